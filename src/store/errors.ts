// Typed errors of the store: contract violations (bugs or a lost ownership) and unknown runs.
import { EXIT, UserError } from '../core/errors.js';

/** A write that breaks the store contract, e.g. a duplicate iteration number or completing a closed row. */
export class StoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/** A database written by a newer ringmaster (a migration this version does not know). */
export class StoreVersionError extends UserError {
  constructor(path: string, found: number, known: number) {
    super(`${path} has schema version ${found}, this ringmaster knows up to ${known}: upgrade ringmaster`, EXIT.failure);
    this.name = 'StoreVersionError';
  }
}

/** No run with that id (ids are the same in every workspace: the store holds them all). */
export class RunNotFoundError extends UserError {
  readonly runId: string;
  constructor(runId: string, _workspace?: string) {
    super(`no run '${runId}' (see 'ringmaster runs --all')`, EXIT.usage);
    this.name = 'RunNotFoundError';
    this.runId = runId;
  }
}

/** A run id prefix that matches more than one run. */
export class AmbiguousRunIdError extends UserError {
  readonly matches: string[];
  constructor(prefix: string, matches: string[]) {
    super(`run id '${prefix}' is ambiguous: it matches ${matches.join(', ')}`, EXIT.usage);
    this.name = 'AmbiguousRunIdError';
    this.matches = matches;
  }
}

/** The workspace has no ringmaster database yet. */
export class NoStoreError extends UserError {
  constructor(where: string) {
    super(`no ringmaster runs yet (no database for ${where}): start one with 'ringmaster run'`, EXIT.usage);
    this.name = 'NoStoreError';
  }
}

/** A write made on behalf of an owner that no longer holds the run (another process claimed it): it must stop. */
export class OwnershipLostError extends StoreError {
  readonly runId: string;
  constructor(runId: string, owner: { pid: number; host: string }, what: string) {
    super(`${what}: run ${runId} is no longer driven by pid ${owner.pid} on ${owner.host} (another process claimed it)`);
    this.name = 'OwnershipLostError';
    this.runId = runId;
  }
}

/** A conditional claim refused: the run's owner renewed its lease more recently than the claim allows. */
export class RunBusyError extends StoreError {
  readonly runId: string;
  /** How long the owner has been silent, by the store's clock (ms). */
  readonly idleMs: number;
  constructor(runId: string, owner: { pid: number; host: string }, idleMs: number) {
    super(`claimRun: run ${runId} is driven by pid ${owner.pid} on ${owner.host} (last renewed ${idleMs} ms ago)`);
    this.name = 'RunBusyError';
    this.runId = runId;
    this.idleMs = idleMs;
  }
}

/** A claim that may only continue a run (onlyIfResumable) found it ended for good (completed, failed, stopped by a user). */
export class RunEndedError extends StoreError {
  readonly runId: string;
  constructor(runId: string, status: string, reason: string | null) {
    super(`claimRun: run ${runId} has ended (${status}${reason ? `, ${reason}` : ''})`);
    this.name = 'RunEndedError';
    this.runId = runId;
  }
}

/** SQLite primary result codes Ringmaster explains (the low byte of an extended code). */
const SQLITE = { BUSY: 5, READONLY: 8, IOERR: 10, CORRUPT: 11, FULL: 13, CANTOPEN: 14, NOTADB: 26 } as const;

/** The database cannot be used as it is: damaged, not a database, a directory, read-only, or the disk is full. */
export class StoreUnusableError extends UserError {
  readonly reason: 'damaged' | 'read_only' | 'cannot_open' | 'disk_full' | 'io' | 'busy';
  constructor(reason: StoreUnusableError['reason'], message: string, options?: { cause?: unknown }) {
    super(message, EXIT.io, options);
    this.name = 'StoreUnusableError';
    this.reason = reason;
  }
}

/** The SQLite result code of an error from node:sqlite, or null for any other error. */
export function sqliteCode(error: unknown): number | null {
  if (typeof error !== 'object' || error === null || !('code' in error) || !('errcode' in error)) return null;
  return error.code === 'ERR_SQLITE_ERROR' && typeof error.errcode === 'number' ? error.errcode : null;
}

/**
 * One line saying what is wrong with the database and what to do, for an error of node:sqlite (null for
 * other errors). `path` names the file when known.
 */
export function storeErrorFrom(error: unknown, path: string | null): StoreUnusableError | null {
  const code = sqliteCode(error);
  if (code === null) return null;
  const what = path ?? 'the ringmaster database';
  const detail = error instanceof Error ? error.message : String(error);
  const cause = { cause: error };
  switch (code & 0xff) {
    case SQLITE.CORRUPT:
    case SQLITE.NOTADB:
      return new StoreUnusableError(
        'damaged',
        `${what} is damaged (${detail}): move it aside (e.g. mv ${path ?? 'ringmaster.db'} ${path ?? 'ringmaster.db'}.damaged) to start a new history, or restore it from a backup`,
        cause,
      );
    case SQLITE.READONLY:
      return new StoreUnusableError(
        'read_only',
        `${what} is read-only (${detail}): 'ringmaster run', 'resume' and 'stop' need to write it; make it and its directory writable (read-only commands such as runs, show, logs and stats work as it is)`,
        cause,
      );
    case SQLITE.CANTOPEN:
      return new StoreUnusableError('cannot_open', `cannot open ${what} (${detail}): check that it is a file you may read and write, in a directory you may write`, cause);
    case SQLITE.FULL:
      return new StoreUnusableError('disk_full', `${what} cannot grow: the disk is full (${detail}); free some space and resume the run`, cause);
    case SQLITE.IOERR:
      return new StoreUnusableError('io', `${what} could not be read or written (${detail}): check the disk and the file system`, cause);
    case SQLITE.BUSY:
      return new StoreUnusableError('busy', `${what} is locked by another process (${detail}): try again once it is done`, cause);
    default:
      return new StoreUnusableError('io', `${what}: ${detail}`, cause);
  }
}
