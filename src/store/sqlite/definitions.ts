// A run's program definition in the SQLite store (run_definitions, migration 8): written once, apart from the
// run's metadata, so that what is rewritten after every iteration stays small (postgres/definitions.ts alike).
import { definitionSchema } from '../rows.js';
import type { SqliteDb } from './db.js';

/** Inserts or replaces the run's definition (in the caller's transaction). */
export function writeDefinition(s: SqliteDb, runId: string, definition: Record<string, unknown>, now: number): void {
  s.run(
    `INSERT INTO run_definitions (run_id, definition_json, updated_at) VALUES (:id, :definition, :now)
     ON CONFLICT (run_id) DO UPDATE SET definition_json = excluded.definition_json, updated_at = excluded.updated_at`,
    { id: runId, definition: JSON.stringify(definition), now },
  );
}

/** The run's definition, or null when it has none. */
export function readDefinition(s: SqliteDb, runId: string): Record<string, unknown> | null {
  const row = s.q('SELECT definition_json FROM run_definitions WHERE run_id = :id').get({ id: runId }) as { definition_json: string } | undefined;
  return row === undefined ? null : definitionSchema.parse(row.definition_json);
}
