// Applies the numbered PostgreSQL migrations a database has not seen yet. Several processes may start at
// once (a server and workers): a session advisory lock lets one migrate while the others wait, then they
// find nothing left to do. Each migration runs in its own transaction. Every migration not recorded is applied, not
// only those above the highest recorded (branches number theirs apart: a database at 8 still gets 6 and 7).
import type pg from 'pg';
import { StoreVersionError } from '../errors.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';
import { redactUrl } from './pool.js';
import type { Migration } from '../sqlite/migrations.js';

/** The advisory lock key pair of ringmaster's migrations ('RING', 1): any fixed pair unique to ringmaster. */
export const MIGRATION_LOCK: readonly [number, number] = [0x52494e47, 1];

/** Brings the database of `pool` up to the newest migration; returns the versions applied now. */
export async function migratePostgres(
  pool: pg.Pool,
  url: string,
  now: number,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
): Promise<number[]> {
  const known = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1, $2)', [...MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
      const current = await currentVersion(client);
      if (current > known) throw new StoreVersionError(redactUrl(url), current, known);
      const recorded = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
      const applied: number[] = [];
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (recorded.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
            migration.version,
            migration.name,
            now,
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
        applied.push(migration.version);
      }
      return applied;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, $2)', [...MIGRATION_LOCK]);
    }
  } catch (error) {
    // A session whose unlock or rollback failed is dropped: closing it releases the lock too.
    if (!(error instanceof StoreVersionError)) broken = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.release(broken);
  }
}

/** Highest applied migration version (0 for a new database). */
export async function currentVersion(client: Pick<pg.PoolClient, 'query'>): Promise<number> {
  const result = await client.query<{ v: number }>('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations');
  return result.rows[0]?.v ?? 0;
}
