// A run's program definition in the PostgreSQL store (run_definitions, migration 8): written once, apart from the
// run's metadata, so that what is rewritten after every iteration stays small (sqlite/store.ts does the same).
import { definitionSchema } from '../rows.js';
import { query } from './pool.js';
import type { Queryable } from './pool.js';

/** Inserts or replaces the run's definition (in the caller's transaction). */
export async function writeDefinition(db: Queryable, runId: string, definition: Record<string, unknown>, now: number): Promise<void> {
  await query(
    db,
    `INSERT INTO run_definitions (run_id, definition_json, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (run_id) DO UPDATE SET definition_json = EXCLUDED.definition_json, updated_at = EXCLUDED.updated_at`,
    [runId, JSON.stringify(definition), now],
  );
}

/** The run's definition, or null when it has none. */
export async function readDefinition(db: Queryable, runId: string): Promise<Record<string, unknown> | null> {
  const row = (await query<{ definition_json: string }>(db, 'SELECT definition_json FROM run_definitions WHERE run_id = $1', [runId])).rows[0];
  return row === undefined ? null : definitionSchema.parse(row.definition_json);
}
