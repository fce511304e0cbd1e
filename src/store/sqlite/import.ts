// Imports a legacy per-workspace database (`<workspace>/.ringmaster/ringmaster.db`, schema 1) into the
// per-user store once: every run with its owners, iterations, events, checkpoints and errors.
import type { DatabaseSync } from 'node:sqlite';

/** Copies the runs of the database at `path` unless it was imported before; returns the number of runs copied. */
export function importLegacyDatabase(db: DatabaseSync, path: string, now: number, workspace: string | null): number {
  const done = db.prepare('SELECT 1 FROM imports WHERE path = :path').get({ path });
  if (done !== undefined) return 0;
  db.prepare("ATTACH DATABASE :path AS legacy").run({ path });
  try {
    db.exec('BEGIN IMMEDIATE');
    try {
      const ids = (db.prepare('SELECT id FROM legacy.runs WHERE id NOT IN (SELECT id FROM main.runs)').all() as Array<{ id: string }>).map((r) => r.id);
      db.exec('CREATE TEMP TABLE IF NOT EXISTS import_ids (id TEXT PRIMARY KEY)');
      db.exec('DELETE FROM import_ids');
      const add = db.prepare('INSERT INTO import_ids (id) VALUES (:id)');
      for (const id of ids) add.run({ id });
      db.exec(`
        INSERT INTO main.runs (id, status, stop_reason, agent, spec_json, workspace, worktree, branch, created_at, updated_at, ended_at)
          SELECT id, status, stop_reason, agent, spec_json, workspace, worktree, branch, created_at, updated_at, ended_at
          FROM legacy.runs WHERE id IN (SELECT id FROM import_ids);
        INSERT INTO main.run_owners (run_id, seq, pid, host, started_at, heartbeat_at, ended_at)
          SELECT run_id, seq, pid, host, started_at, heartbeat_at, ended_at FROM legacy.run_owners WHERE run_id IN (SELECT id FROM import_ids);
        INSERT INTO main.iterations (run_id, number, agent, status, started_at, completed_at, duration_ms, exit_code, exit_signal,
            tokens_in, tokens_out, cache_read, cache_write, cost_usd, completion_signal_found, failure_signal_found,
            error_kind, error_message, session_id, model, log_path)
          SELECT run_id, number, agent, status, started_at, completed_at, duration_ms, exit_code, exit_signal,
            tokens_in, tokens_out, cache_read, cache_write, cost_usd, completion_signal_found, failure_signal_found,
            error_kind, error_message, session_id, model, log_path
          FROM legacy.iterations WHERE run_id IN (SELECT id FROM import_ids);
        INSERT INTO main.events (run_id, seq, at, type, iteration, payload_json)
          SELECT run_id, seq, at, type, iteration, payload_json FROM legacy.events WHERE run_id IN (SELECT id FROM import_ids) ORDER BY rowid;
        INSERT INTO main.checkpoints (run_id, iteration, commit_sha, state, message, created_at)
          SELECT run_id, iteration, commit_sha, state, message, created_at FROM legacy.checkpoints WHERE run_id IN (SELECT id FROM import_ids) ORDER BY id;
        INSERT INTO main.errors (run_id, iteration, kind, message, context_json, created_at)
          SELECT run_id, iteration, kind, message, context_json, created_at FROM legacy.errors WHERE run_id IN (SELECT id FROM import_ids) ORDER BY id;
      `);
      if (workspace !== null) db.prepare('UPDATE main.runs SET workspace = :workspace WHERE id IN (SELECT id FROM import_ids)').run({ workspace });
      db.prepare('INSERT INTO imports (path, imported_at, runs) VALUES (:path, :now, :runs)').run({ path, now, runs: ids.length });
      db.exec('DROP TABLE import_ids');
      db.exec('COMMIT');
      return ids.length;
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    }
  } finally {
    db.exec('DETACH DATABASE legacy');
  }
}
