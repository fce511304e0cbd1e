// Applies the numbered SQLite migrations that a database has not seen yet, each in its own transaction. Every
// migration not recorded is applied, not only those above the highest recorded: branches developed side by side
// number theirs apart (a database at 8 still gets 6 and 7 when they land after 8), so each migration stands alone.
import type { DatabaseSync } from 'node:sqlite';
import { StoreVersionError } from '../errors.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import type { Migration } from './migrations.js';

/** Brings the database at `path` up to the newest migration; returns the versions applied now. */
export function migrate(db: DatabaseSync, path: string, now: number, migrations: readonly Migration[] = SQLITE_MIGRATIONS): number[] {
  const known = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  // Up to date (the usual case): read without taking the write lock, so that opening the database (even for
  // `ringmaster runs`) never waits for another process's write transaction.
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined) {
    const version = currentVersion(db);
    if (version > known) throw new StoreVersionError(path, version, known);
    if (missingVersions(db, migrations).length === 0) return [];
  }
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    // BEGIN IMMEDIATE takes the write lock first, so two processes opening a new database do not race.
    db.exec('BEGIN IMMEDIATE');
    try {
      const current = currentVersion(db);
      if (current > known) throw new StoreVersionError(path, current, known);
      if (!missingVersions(db, [migration]).includes(migration.version)) {
        db.exec('COMMIT');
        continue;
      }
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        now,
      );
      db.exec('COMMIT');
      applied.push(migration.version);
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }
  const final = currentVersion(db);
  if (final > known) throw new StoreVersionError(path, final, known);
  return applied;
}

/** Highest applied migration version (0 for a new database). */
export function currentVersion(db: DatabaseSync): number {
  const row = db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number };
  return row.v;
}

/** The versions of `migrations` the database has not recorded, in order. */
export function missingVersions(db: DatabaseSync, migrations: readonly Migration[] = SQLITE_MIGRATIONS): number[] {
  const rows = db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>;
  const applied = new Set(rows.map((r) => r.version));
  return migrations.map((m) => m.version).filter((v) => !applied.has(v)).sort((a, b) => a - b);
}
