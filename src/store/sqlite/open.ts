// Opening the SQLite database file: read-write with the store's pragmas and pending migrations, or, when it
// cannot be written but is up to date, read-only (history commands still work). What is wrong with a file that
// cannot be used at all (damaged, a directory, the disk full) is one StoreUnusableError line.
import { statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { restrictToOwner } from '../../os/private-files.js';
import { StoreUnusableError, storeErrorFrom } from '../errors.js';
import { migrate, missingVersions } from './migrate.js';

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function openReadWrite(path: string, now: number): DatabaseSync {
  const db = new DatabaseSync(path);
  try {
    // Only its owner may read the database (its journal files take the same mode).
    if (path !== ':memory:' && !path.startsWith('file:')) restrictToOwner(path);
    db.exec('PRAGMA busy_timeout = 5000');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    migrate(db, path, now);
    // From here a locked database is waited out by the store's retries (busy-retry.ts), each attempt waiting at
    // most 100 ms on the connection's thread: a CLI run's event loop (its agent's output, its timers) keeps going,
    // and the calls queued behind a waiting one (reads, which a lock does not block) are not held up for long.
    db.exec('PRAGMA busy_timeout = 100');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Opens an existing, up-to-date database for reading only. In WAL mode SQLite needs to create its shared-memory
 * file even to read; in a read-only directory it cannot, and the file is read as immutable instead (nothing can
 * be writing it: nobody may).
 */
function openReadOnly(path: string, why: StoreUnusableError): DatabaseSync {
  const attempts = [() => new DatabaseSync(path, { readOnly: true }), () => new DatabaseSync(`file:${encodeURI(path)}?immutable=1`, { readOnly: true })];
  for (const attempt of attempts) {
    let db: DatabaseSync | null = null;
    try {
      db = attempt();
      db.exec('PRAGMA busy_timeout = 5000');
      if (missingVersions(db).length > 0) {
        db.close();
        throw new StoreUnusableError('read_only', `${path} needs an upgrade to this version of ringmaster but cannot be written (${why.message})`);
      }
      return db;
    } catch (error) {
      db?.close();
      if (error instanceof StoreUnusableError) throw error;
      const problem = storeErrorFrom(error, path);
      if (problem !== null && problem.reason !== 'read_only' && problem.reason !== 'cannot_open') throw problem;
    }
  }
  throw why;
}

/** Opens the database at `path` (migrated at `now`), read-only when it can only be read. */
export function openDatabase(path: string, now: number): { db: DatabaseSync; readOnly: boolean } {
  if (path !== ':memory:' && isDirectory(path)) {
    throw new StoreUnusableError('cannot_open', `${path} is a directory, not a database file: move it away (ringmaster creates the database there)`);
  }
  try {
    return { db: openReadWrite(path, now), readOnly: false };
  } catch (error) {
    const problem = storeErrorFrom(error, path);
    if (problem?.reason !== 'read_only' && problem?.reason !== 'cannot_open') throw problem ?? error;
    return { db: openReadOnly(path, problem), readOnly: true };
  }
}
