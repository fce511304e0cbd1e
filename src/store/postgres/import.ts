// Imports a legacy per-workspace SQLite database (`<workspace>/.ringmaster/ringmaster.db`, schema 1) into the
// PostgreSQL store once, like sqlite/import.ts does into the per-user SQLite store: every run not yet present
// with its owners, iterations, events, checkpoints and errors, in one transaction.
import { DatabaseSync } from 'node:sqlite';
import type pg from 'pg';
import { EVENT_ORDER_LOCK } from './events.js';
import { inTransaction, query } from './pool.js';
import type { Queryable } from './pool.js';

/** Column lists copied as they are (schema 1 of the SQLite store). */
const TABLES: ReadonlyArray<{ table: string; columns: string[]; order: string; booleans?: string[] }> = [
  { table: 'runs', columns: ['id', 'status', 'stop_reason', 'agent', 'spec_json', 'workspace', 'worktree', 'branch', 'created_at', 'updated_at', 'ended_at'], order: 'created_at' },
  { table: 'run_owners', columns: ['run_id', 'seq', 'pid', 'host', 'started_at', 'heartbeat_at', 'ended_at'], order: 'run_id, seq' },
  {
    table: 'iterations',
    columns: ['run_id', 'number', 'agent', 'status', 'started_at', 'completed_at', 'duration_ms', 'exit_code', 'exit_signal', 'tokens_in', 'tokens_out',
      'cache_read', 'cache_write', 'cost_usd', 'completion_signal_found', 'failure_signal_found', 'error_kind', 'error_message', 'session_id', 'model', 'log_path'],
    order: 'run_id, number',
    booleans: ['completion_signal_found', 'failure_signal_found'],
  },
  { table: 'events', columns: ['run_id', 'seq', 'at', 'type', 'iteration', 'payload_json'], order: 'rowid' },
  { table: 'checkpoints', columns: ['run_id', 'iteration', 'commit_sha', 'state', 'message', 'created_at'], order: 'id' },
  { table: 'errors', columns: ['run_id', 'iteration', 'kind', 'message', 'context_json', 'created_at'], order: 'id' },
];

/** Copies the runs of the SQLite database at `path` unless it was imported before; returns the number of runs copied. */
export async function importLegacyIntoPostgres(pool: pg.Pool, path: string, now: number, workspace: string | null): Promise<number> {
  const legacy = new DatabaseSync(path, { readOnly: true });
  try {
    return await inTransaction(pool, async (db) => {
      await query(db, 'LOCK TABLE imports IN EXCLUSIVE MODE');
      if ((await query(db, 'SELECT 1 FROM imports WHERE path = $1', [path])).rowCount) return 0;
      await query(db, 'SELECT pg_advisory_xact_lock($1, $2)', [...EVENT_ORDER_LOCK]);
      const existing = new Set((await query<{ id: string }>(db, 'SELECT id FROM runs')).rows.map((r) => r.id));
      const ids = (legacy.prepare('SELECT id FROM runs').all() as Array<{ id: string }>).map((r) => r.id).filter((id) => !existing.has(id));
      const wanted = new Set(ids);
      for (const spec of TABLES) {
        const key = spec.table === 'runs' ? 'id' : 'run_id';
        const rows = (legacy.prepare(`SELECT ${spec.columns.join(', ')} FROM ${spec.table} ORDER BY ${spec.order}`).all() as Array<Record<string, unknown>>)
          .filter((row) => wanted.has(String(row[key])));
        for (const row of rows) await insertRow(db, spec.table, spec.columns, spec.booleans ?? [], row);
      }
      if (workspace !== null && ids.length) await query(db, 'UPDATE runs SET workspace = $1 WHERE id = ANY($2::text[])', [workspace, ids]);
      await query(db, 'INSERT INTO imports (path, imported_at, runs) VALUES ($1, $2, $3)', [path, now, ids.length]);
      return ids.length;
    });
  } finally {
    legacy.close();
  }
}

async function insertRow(db: Queryable, table: string, columns: string[], booleans: string[], row: Record<string, unknown>): Promise<void> {
  const values = columns.map((c) => (booleans.includes(c) ? row[c] === 1 : row[c]));
  const params = columns.map((_, i) => `$${i + 1}`);
  await query(db, `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${params.join(', ')})`, values);
}
