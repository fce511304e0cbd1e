// Typed errors of task sources: a bad task file names the file, the line and the field.
import { EXIT, UserError } from '../core/errors.js';

/** A task file (or a task command's output) that does not match its schema. */
export class TaskFileError extends UserError {
  readonly file: string;
  readonly line: number | null;
  readonly field: string | null;
  constructor(file: string, line: number | null, field: string | null, problem: string) {
    const where = [file, line === null ? null : `line ${line}`, field].filter((x) => x !== null).join(': ');
    super(`${where}: ${problem}`, EXIT.usage);
    this.name = 'TaskFileError';
    this.file = file;
    this.line = line;
    this.field = field;
  }
}

/** A task command (list or status update) that failed to run or printed something unusable. */
export class TaskCommandError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.failure, options);
    this.name = 'TaskCommandError';
  }
}

/** Formats a zod issue path as a field name: `completion.command`, `acceptance[2]`. */
export function fieldName(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(task)' : out;
}
