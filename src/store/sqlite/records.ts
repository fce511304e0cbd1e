// Checkpoints and errors of a run in the SQLite store: appended behind the fence, listed in order
// (postgres/records.ts alike).
import { checkpointRowSchema, errorRowSchema } from '../rows.js';
import type { CheckpointRow, ErrorRow } from '../rows.js';
import { CHECKPOINT_COLUMNS, ERROR_COLUMNS } from '../sql-columns.js';
import type { Fence, NewCheckpoint, NewError } from '../store.js';
import type { SqliteDb } from './db.js';

/** Appends a checkpoint, behind the fence when given. */
export function recordCheckpoint(s: SqliteDb, c: NewCheckpoint, fence?: Fence): CheckpointRow {
  const row = s.fenced(c.run_id, fence, 'recordCheckpoint', () =>
    s
      .q(
        `INSERT INTO checkpoints (run_id, iteration, commit_sha, state, message, snapshot_json, created_at)
         VALUES (:run_id, :iteration, :commit_sha, :state, :message, :snapshot, :created_at) RETURNING ${CHECKPOINT_COLUMNS}`,
      )
      .get({
        run_id: c.run_id,
        iteration: c.iteration,
        commit_sha: c.commit_sha,
        state: c.state,
        message: c.message ?? null,
        snapshot: c.snapshot === undefined ? null : JSON.stringify(c.snapshot),
        created_at: c.created_at,
      }),
  );
  return checkpointRowSchema.parse(row);
}

/** A run's checkpoints, oldest first. */
export function listCheckpoints(s: SqliteDb, runId: string): CheckpointRow[] {
  return s.q(`SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE run_id = :runId ORDER BY id`).all({ runId }).map((row) => checkpointRowSchema.parse(row));
}

/** Appends an error, behind the fence when given. */
export function recordError(s: SqliteDb, e: NewError, fence?: Fence): ErrorRow {
  const row = s.fenced(e.run_id, fence, 'recordError', () =>
    s
      .q(
        `INSERT INTO errors (run_id, iteration, kind, message, context_json, created_at)
         VALUES (:run_id, :iteration, :kind, :message, :context, :created_at) RETURNING ${ERROR_COLUMNS}`,
      )
      .get({
        run_id: e.run_id,
        iteration: e.iteration ?? null,
        kind: e.kind,
        message: e.message,
        context: e.context === undefined ? null : JSON.stringify(e.context),
        created_at: e.created_at,
      }),
  );
  return errorRowSchema.parse(row);
}

/** A run's errors, oldest first. */
export function listErrors(s: SqliteDb, runId: string): ErrorRow[] {
  return s.q(`SELECT ${ERROR_COLUMNS} FROM errors WHERE run_id = :runId ORDER BY id`).all({ runId }).map((row) => errorRowSchema.parse(row));
}
