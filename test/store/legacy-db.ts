// A legacy per-workspace SQLite database (schema 1) with one run and a row in every table, for import tests.
import { DatabaseSync } from 'node:sqlite';
import { migrate } from '../../src/store/sqlite/migrate.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';

/** Writes the legacy database at `path`: run 'old' (completed, 1 iteration, $0.5, 2 events, 1 checkpoint, 1 error). */
export function writeLegacyDatabase(path: string): void {
  const legacy = new DatabaseSync(path);
  try {
    migrate(legacy, 'legacy', 1, SQLITE_MIGRATIONS.filter((m) => m.version === 1));
    legacy.exec(`
      INSERT INTO runs VALUES ('old', 'completed', 'success_signal', 'claude', '{"label":"p"}', '/was/here', NULL, NULL, 10, 20, 20);
      INSERT INTO run_owners VALUES ('old', 1, 99, 'h', 10, 20, 20);
      INSERT INTO iterations (run_id, number, agent, status, started_at, completed_at, duration_ms, cost_usd, completion_signal_found)
        VALUES ('old', 1, 'claude', 'complete', 11, 19, 8, 0.5, 1);
      INSERT INTO events (run_id, seq, at, type, iteration, payload_json) VALUES ('old', 1, 11, 'run_started', NULL, '{}'), ('old', 2, 19, 'run_finished', NULL, '{}');
      INSERT INTO checkpoints (run_id, iteration, commit_sha, state, message, created_at) VALUES ('old', 1, 'abc', 'committed', 'm', 19);
      INSERT INTO errors (run_id, iteration, kind, message, context_json, created_at) VALUES ('old', 1, 'x', 'y', NULL, 19);
    `);
  } finally {
    legacy.close();
  }
}
