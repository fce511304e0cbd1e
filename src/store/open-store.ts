// Opens the Store of a workspace: `<workspace>/.ringmaster/ringmaster.db` (SQLite by default).
import { existsSync } from 'node:fs';
import { NoStoreError } from './errors.js';
import { databasePath, ensureRingmasterDir } from './paths.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

/** How to open a workspace's store: `create: false` (history commands) fails with NoStoreError if there is none. */
export interface OpenStoreOptions {
  create?: boolean;
  now?: () => number;
}

/** Opens (by default creating) the store of `workspace`. */
export function openStore(workspace: string, options: OpenStoreOptions = {}): Store {
  const path = databasePath(workspace);
  if (options.create === false) {
    if (!existsSync(path)) throw new NoStoreError(workspace);
  } else {
    ensureRingmasterDir(workspace);
  }
  return new SqliteStore(path, options.now ? { now: options.now } : {});
}
