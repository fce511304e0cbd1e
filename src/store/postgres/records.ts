// Checkpoints and errors of a run in the PostgreSQL store: appended (behind the caller's fence), listed in order.
import { checkpointRowSchema, errorRowSchema } from '../rows.js';
import type { CheckpointRow, ErrorRow } from '../rows.js';
import { CHECKPOINT_COLUMNS, ERROR_COLUMNS } from '../sql-columns.js';
import type { NewCheckpoint, NewError } from '../store.js';
import { query as q } from './pool.js';
import type { Queryable } from './pool.js';

/** Appends a checkpoint. */
export async function insertCheckpoint(db: Queryable, c: NewCheckpoint): Promise<CheckpointRow> {
  const { rows } = await q(
    db,
    `INSERT INTO checkpoints (run_id, iteration, commit_sha, state, message, snapshot_json, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${CHECKPOINT_COLUMNS}`,
    [c.run_id, c.iteration, c.commit_sha, c.state, c.message ?? null, c.snapshot === undefined ? null : JSON.stringify(c.snapshot), c.created_at],
  );
  return checkpointRowSchema.parse(rows[0]);
}

/** A run's checkpoints, oldest first. */
export async function listCheckpoints(db: Queryable, runId: string): Promise<CheckpointRow[]> {
  const { rows } = await q(db, `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE run_id = $1 ORDER BY id`, [runId]);
  return rows.map((row) => checkpointRowSchema.parse(row));
}

/** Appends an error. */
export async function insertError(db: Queryable, e: NewError): Promise<ErrorRow> {
  const { rows } = await q(
    db,
    `INSERT INTO errors (run_id, iteration, kind, message, context_json, created_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${ERROR_COLUMNS}`,
    [e.run_id, e.iteration ?? null, e.kind, e.message, e.context === undefined ? null : JSON.stringify(e.context), e.created_at],
  );
  return errorRowSchema.parse(rows[0]);
}

/** A run's errors, oldest first. */
export async function listErrors(db: Queryable, runId: string): Promise<ErrorRow[]> {
  const { rows } = await q(db, `SELECT ${ERROR_COLUMNS} FROM errors WHERE run_id = $1 ORDER BY id`, [runId]);
  return rows.map((row) => errorRowSchema.parse(row));
}
