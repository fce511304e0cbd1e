// Runs the built `ringmaster` CLI as a process (Node 24 from node_modules, absolute paths), for hook-mode tests.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { testHome } from '../helpers/home.js';

/** Repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');
/** The pinned Node 24. */
export const NODE = resolve(ROOT, 'node_modules/.bin/node');
/** The CLI launcher. */
export const BIN = resolve(ROOT, 'bin/ringmaster.js');

/** Exit code and output of one CLI run. */
export interface CliRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `ringmaster <args>` with optional stdin; PATH holds no `ringmaster`. */
export function runCli(args: string[], options: { cwd: string; stdin?: string; env?: Record<string, string> }): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(NODE, [BIN, ...args], {
      cwd: options.cwd,
      env: { PATH: '/usr/bin:/bin', HOME: options.cwd, RINGMASTER_HOME: testHome(), ...(options.env ?? {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (exitCode) => resolvePromise({ exitCode, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
