// Applies the numbered SQLite migrations that a database has not seen yet (by version, gaps filled: see
// ../migration-plan.ts), each in its own transaction.
import type { DatabaseSync } from 'node:sqlite';
import { StoreVersionError } from '../errors.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import type { Migration } from './migrations.js';
import { newestVersion, pendingMigrations } from '../migration-plan.js';

/** Brings the database at `path` up to date (every migration it lacks, gaps too); returns the versions applied now. */
export function migrate(db: DatabaseSync, path: string, now: number, migrations: readonly Migration[] = SQLITE_MIGRATIONS): number[] {
  const known = newestVersion(migrations);
  // Up to date (the usual case): read without taking the write lock, so that opening the database (even for
  // `ringmaster runs`) never waits for another process's write transaction.
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined) {
    const version = currentVersion(db);
    if (version > known) throw new StoreVersionError(path, version, known);
    if (upToDate(db, migrations)) return [];
  }
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied: number[] = [];
  for (const migration of pendingMigrations(migrations, new Set())) {
    // BEGIN IMMEDIATE takes the write lock first, so two processes opening a new database do not race.
    db.exec('BEGIN IMMEDIATE');
    try {
      const current = currentVersion(db);
      if (current > known) throw new StoreVersionError(path, current, known);
      if (appliedVersions(db).has(migration.version)) {
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

/** The versions recorded in schema_migrations. */
function appliedVersions(db: DatabaseSync): Set<number> {
  return new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
}

/** Highest applied migration version (0 for a new database). */
export function currentVersion(db: DatabaseSync): number {
  const row = db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number };
  return row.v;
}

/** Whether the database has every migration this version of ringmaster knows. */
export function upToDate(db: DatabaseSync, migrations: readonly Migration[] = SQLITE_MIGRATIONS): boolean {
  return pendingMigrations(migrations, appliedVersions(db)).length === 0;
}
