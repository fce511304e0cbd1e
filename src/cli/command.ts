// The shape of one CLI subcommand and the I/O it is given (so tests can run commands in-process).
import type { Readable } from 'node:stream';

/** Where a command reads and writes; the real process streams in production, buffers in tests. */
export interface CliIO {
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  stderr: { write(chunk: string): unknown; isTTY?: boolean };
  stdin: Readable;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Registers a handler for SIGINT/SIGTERM; returns a function that removes it. */
  onSignal(handler: (signal: NodeJS.Signals) => void): () => void;
}

/** One `ringmaster <name>` subcommand. Returns the exit code; throws UserError for user mistakes. */
export interface Command {
  name: string;
  /** Full usage text for `ringmaster <name> --help`. */
  usage: string;
  run(args: string[], io: CliIO): Promise<number>;
}
