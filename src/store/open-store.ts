// Opens the user's Store: the SQLite database in the data directory (see paths.ts), shared by every
// workspace, or the team's PostgreSQL store when a database URL is configured (database.url /
// RINGMASTER_DATABASE_URL). A workspace's legacy `.ringmaster/ringmaster.db` is imported into it on first use.
import { existsSync } from 'node:fs';
import { retryingBusy, type BusyNotice } from './busy-retry.js';
import { NoStoreError } from './errors.js';
import { dataDir, databasePath, ensurePrivateDir, legacyDatabasePath, sqliteLockFiles, workspaceKey, type PathEnv } from './paths.js';
import { SqliteStore } from './sqlite/store.js';
import { openWorkerStore } from './sqlite/worker-store.js';
import type { Store } from './store.js';

/** How to open the store. */
export interface OpenStoreOptions {
  env: PathEnv;
  /** false (history commands): fail with NoStoreError when there is no database and nothing to import. */
  create?: boolean;
  /** Import this workspace's legacy database, if it has one. */
  workspace?: string;
  /** PostgreSQL URL (from config `database.url`); undefined: $RINGMASTER_DATABASE_URL; null or unset: SQLite. */
  databaseUrl?: string | null;
  now?: () => number;
  /** Move WAL checkpoints to a worker thread (for a process that writes hundreds of times a second). */
  backgroundCheckpoints?: boolean;
  /**
   * Run the SQLite store in a worker thread (sqlite/worker-store.ts): the caller's event loop never waits for the
   * disk or a locked database. For long-lived processes (serve, worker); a one-run CLI keeps it in-thread.
   */
  inWorker?: boolean;
  /** The SQLite database is locked by another process: told after a few seconds of waiting, and when it goes on. */
  onBusy?: (notice: BusyNotice) => void;
}

/** Opens (by default creating) the user's store. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const dir = dataDir(options.env);
  const path = databasePath(dir);
  const legacy = options.workspace !== undefined ? legacyDatabasePath(options.workspace) : null;
  const hasLegacy = legacy !== null && existsSync(legacy);
  const url = options.databaseUrl === undefined ? options.env.RINGMASTER_DATABASE_URL || null : options.databaseUrl;
  if (url === null && options.create === false && !existsSync(path) && !hasLegacy) throw new NoStoreError(options.workspace ?? dir);
  // The data directory holds iteration logs, locks and pid files whatever the store.
  ensurePrivateDir(dir);
  const now = options.now ?? Date.now;
  // Loaded only when used: the driver costs every other command ~20 ms of start-up.
  const store = url !== null ? await (await import('./postgres/store.js')).PostgresStore.open(url, { now }) : await openSqlite(path, options);
  if (hasLegacy && options.workspace !== undefined) {
    try {
      await store.importDatabase(legacy, now(), workspaceKey(options.workspace));
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  return store;
}

/** The SQLite store, in a worker thread when asked and possible (a custom clock stays in-thread), waiting out locks. */
async function openSqlite(path: string, options: OpenStoreOptions): Promise<Store> {
  const backgroundCheckpoints = options.backgroundCheckpoints === true;
  const onBusy = options.onBusy ? { onBusy: options.onBusy } : {};
  if (options.inWorker && options.now === undefined) {
    const store = await openWorkerStore(path, { backgroundCheckpoints, ...onBusy });
    if (store !== null) return store;
  }
  const now = options.now ?? Date.now;
  return retryingBusy(new SqliteStore(path, { now, backgroundCheckpoints }), { lockFiles: sqliteLockFiles(path), ...onBusy });
}
