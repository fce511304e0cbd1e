// Typed errors for user mistakes and environment problems; the CLI turns them into text + exit code in one place.

/** Process exit codes of the `ringmaster` CLI (documented in README.md#exit-codes). */
export const EXIT = {
  /** The agent signalled success. */
  success: 0,
  /** Aborted after the failure threshold, or a fatal error. */
  failure: 1,
  /** A limit (iterations, runtime, cost) ended the run without success. */
  limit: 2,
  /** The workspace is locked by another live run. */
  locked: 3,
  /** Bad command line or configuration (or a Node.js older than 24). */
  usage: 64,
  /** A file or the database could not be used: damaged, a directory, read-only, permission denied, disk full. */
  io: 74,
  /** Interrupted by SIGINT/SIGTERM or `ringmaster stop`. */
  interrupted: 130,
} as const;

/** Base class of errors that are the user's to fix: printed as one message, never with a stack. */
export class UserError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number = EXIT.usage, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UserError';
    this.exitCode = exitCode;
  }
}

/** A bad flag or argument on the command line. */
export class UsageError extends UserError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}

/** Where a configuration problem is: a file (with its line when known), an env variable or a flag. */
export interface ConfigPlace {
  /** A file path, `environment variable NAME` or `flag --name`. */
  file: string;
  line?: number | null;
  /** The key (e.g. `loop.max_cost`), when the problem is one key's. */
  key?: string | null;
}

/** A bad configuration value: names the file (and line), the key and what was wrong: `file:line: key: problem`. */
export class ConfigError extends UserError {
  readonly file: string;
  readonly key: string | null;
  readonly line: number | null;
  constructor(place: ConfigPlace, problem: string) {
    const where = place.line !== undefined && place.line !== null ? `${place.file}:${place.line}` : place.file;
    super(`${where}: ${place.key ? `${place.key}: ` : ''}${problem}`, EXIT.usage);
    this.name = 'ConfigError';
    this.file = place.file;
    this.key = place.key ?? null;
    this.line = place.line ?? null;
  }
}
