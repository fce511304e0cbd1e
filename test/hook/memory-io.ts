// An in-memory CliIO for running commands in-process: captured stdout/stderr, a given stdin text.
import { Readable } from 'node:stream';
import type { CliIO } from '../../src/cli/command.js';
import { homeEnv } from '../helpers/home.js';

/** A CliIO plus what the command wrote. */
export interface MemoryIO extends CliIO {
  out(): string;
  err(): string;
}

/** Builds a CliIO rooted at `cwd` with the test's data directory, the given environment and stdin. */
export function memoryIO(cwd: string, extraEnv: Record<string, string> = {}, stdin = ''): MemoryIO {
  const env = homeEnv(extraEnv);
  let out = '';
  let err = '';
  return {
    stdout: { write: (chunk: string) => (out += chunk) },
    stderr: { write: (chunk: string) => (err += chunk) },
    stdin: Readable.from([Buffer.from(stdin)]),
    env,
    cwd,
    onSignal: () => () => undefined,
    out: () => out,
    err: () => err,
  };
}
