// Opens the user's Store: the SQLite database in the data directory (see paths.ts), shared by every
// workspace. A workspace's legacy `.ringmaster/ringmaster.db` is imported into it on first use.
import { existsSync } from 'node:fs';
import { NoStoreError } from './errors.js';
import { dataDir, databasePath, ensurePrivateDir, legacyDatabasePath, workspaceKey, type PathEnv } from './paths.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

/** How to open the store. */
export interface OpenStoreOptions {
  env: PathEnv;
  /** false (history commands): fail with NoStoreError when there is no database and nothing to import. */
  create?: boolean;
  /** Import this workspace's legacy database, if it has one. */
  workspace?: string;
  now?: () => number;
  /** Move WAL checkpoints to a worker thread (for a process that writes hundreds of times a second). */
  backgroundCheckpoints?: boolean;
}

/** Opens (by default creating) the user's store. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const dir = dataDir(options.env);
  const path = databasePath(dir);
  const legacy = options.workspace !== undefined ? legacyDatabasePath(options.workspace) : null;
  const hasLegacy = legacy !== null && existsSync(legacy);
  if (options.create === false && !existsSync(path) && !hasLegacy) throw new NoStoreError(options.workspace ?? dir);
  ensurePrivateDir(dir);
  const now = options.now ?? Date.now;
  const store = new SqliteStore(path, { now, backgroundCheckpoints: options.backgroundCheckpoints === true });
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
