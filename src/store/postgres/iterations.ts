// Iteration rows of the PostgreSQL store: each write on the per-iteration path is one statement (one round trip),
// the owner's heartbeat moved with it; the same checks and messages as the SQLite store.
import { OwnershipLostError, StoreError } from '../errors.js';
import { DB_NOW, holdsRun } from './fence.js';
import { query as q, sqlState } from './pool.js';
import type { Queryable } from './pool.js';
import { INTERRUPTED_MESSAGE, iterationRowSchema } from '../rows.js';
import { changeColumns } from '../sql-columns.js';
import type { IterationRow } from '../rows.js';
import type { Fence, IterationEnd, IterationProgress, IterationStart } from '../store.js';

/** The iteration columns as the row schema reads them (booleans as 0/1). */
export const ITERATION_COLUMNS = `run_id, number, agent, status, started_at, completed_at, duration_ms, exit_code, exit_signal,
  tokens_in, tokens_out, cache_read, cache_write, cost_usd,
  completion_signal_found::int AS completion_signal_found, failure_signal_found::int AS failure_signal_found,
  error_kind, error_message, session_id, model, log_path, unit_id,
  tree_before, tree_after, files_changed, files_changed_total, discarded_ref, verify`;



// A CTE beside an iteration write (run_id $1): the open owner's heartbeat moves to $4, since writing a row is a sign of
// life. Fenced ($pid not null): only the row of that owner, whose lease is renewed; the write happens only if it did.
function touchOwner(pid: string, host: string): string {
  return `owner AS (UPDATE run_owners SET heartbeat_at = GREATEST(heartbeat_at, $4),
    renewed_at = CASE WHEN ${pid}::int IS NULL THEN renewed_at ELSE ${DB_NOW} END
    WHERE run_id = $1 AND ended_at IS NULL AND (${pid}::int IS NULL OR (pid = ${pid} AND host = ${host})) RETURNING 1)`;
}

const PROGRESS_COLUMNS = ['tokens_in', 'tokens_out', 'cache_read', 'cache_write', 'cost_usd', 'session_id', 'model'] as const;

/** Writes a running iteration row (a duplicate number is a StoreError). */
export async function startIteration(db: Queryable, start: IterationStart, fence?: Fence): Promise<IterationRow> {
  try {
    const { rows } = await q(
      db,
      `WITH ${touchOwner('$7', '$8')}
       INSERT INTO iterations (run_id, number, agent, status, started_at, log_path, unit_id)
       SELECT $1, $2, $3, 'running', $4, $5, $6 WHERE $7::int IS NULL OR EXISTS (SELECT 1 FROM owner) RETURNING ${ITERATION_COLUMNS}`,
      [start.run_id, start.number, start.agent, start.started_at, start.log_path, start.unit_id ?? null, fence?.pid ?? null, fence?.host ?? null],
    );
    if (rows[0] === undefined && fence) throw new OwnershipLostError(start.run_id, fence, 'startIteration');
    return iterationRowSchema.parse(rows[0]);
  } catch (error) {
    if (sqlState(error) === '23505') {
      throw new StoreError(`startIteration: run ${start.run_id} already has iteration ${start.number}`, { cause: error });
    }
    throw error;
  }
}

/** Records usage seen so far in a running iteration. */
export async function updateIteration(db: Queryable, runId: string, number: number, progress: IterationProgress, fence?: Fence): Promise<void> {
  const values: unknown[] = [runId, number];
  const sets: string[] = [];
  for (const column of PROGRESS_COLUMNS) {
    const value = progress[column];
    if (value === undefined) continue;
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  }
  if (sets.length === 0) return;
  const { rowCount } = await q(db, `UPDATE iterations SET ${sets.join(', ')} WHERE run_id = $1 AND number = $2 AND status = 'running'`, values);
  if (rowCount === 0) {
    if (fence && !(await holdsRun(db, runId, fence))) throw new OwnershipLostError(runId, fence, 'updateIteration');
    throw new StoreError(`updateIteration: iteration ${number} of run ${runId} is not running`);
  }
}

/** Completes a running iteration row. */
export async function completeIteration(db: Queryable, runId: string, number: number, end: IterationEnd, fence?: Fence): Promise<IterationRow> {
  const row = (
    await q(
      db,
      `WITH ${touchOwner('$19', '$20')}
       UPDATE iterations SET status = $3, completed_at = $4, duration_ms = $5, exit_code = $6, exit_signal = $7,
         tokens_in = $8, tokens_out = $9, cache_read = $10, cache_write = $11, cost_usd = $12,
         completion_signal_found = $13, failure_signal_found = $14, error_kind = $15, error_message = $16,
         session_id = COALESCE($17, session_id), model = COALESCE($18, model),
         tree_before = $21, tree_after = $22, files_changed = $23, files_changed_total = $24, discarded_ref = $25, verify = $26
       WHERE run_id = $1 AND number = $2 AND status = 'running' AND ($19::int IS NULL OR EXISTS (SELECT 1 FROM owner)) RETURNING ${ITERATION_COLUMNS}`,
      [
        runId,
        number,
        end.status,
        end.completed_at,
        Math.max(0, Math.round(end.duration_ms)),
        end.exit_code,
        end.exit_signal ?? null,
        end.tokens_in ?? null,
        end.tokens_out ?? null,
        end.cache_read ?? null,
        end.cache_write ?? null,
        end.cost_usd ?? null,
        end.completion_signal_found,
        end.failure_signal_found ?? false,
        end.error_kind,
        end.error_message,
        end.session_id ?? null,
        end.model ?? null,
        fence?.pid ?? null,
        fence?.host ?? null,
        ...Object.values(changeColumns(end)),
        end.verify ? JSON.stringify(end.verify) : null,
      ],
    )
  ).rows[0];
  if (row === undefined) {
    if (fence && !(await holdsRun(db, runId, fence))) throw new OwnershipLostError(runId, fence, 'completeIteration');
    const existing = await readIteration(db, runId, number);
    throw new StoreError(
      existing
        ? `completeIteration: iteration ${number} of run ${runId} is already ${existing.status}`
        : `completeIteration: run ${runId} has no iteration ${number}`,
    );
  }
  return iterationRowSchema.parse(row);
}

/** One iteration row, or null. */
export async function readIteration(db: Queryable, runId: string, number: number): Promise<IterationRow | null> {
  const row = (await q(db, `SELECT ${ITERATION_COLUMNS} FROM iterations WHERE run_id = $1 AND number = $2`, [runId, number])).rows[0];
  return row === undefined ? null : iterationRowSchema.parse(row);
}

/** A run's iterations, in order. */
export async function listIterations(db: Queryable, runId: string): Promise<IterationRow[]> {
  const { rows } = await q(db, `SELECT ${ITERATION_COLUMNS} FROM iterations WHERE run_id = $1 ORDER BY number`, [runId]);
  return rows.map((row) => iterationRowSchema.parse(row));
}

/** Closes `running` iterations as interrupted at `at` (their usage, if any was recorded, is kept). */
export async function interruptRunning(db: Queryable, runId: string, at: number): Promise<number[]> {
  const { rows } = await q<{ number: number }>(
    db,
    `UPDATE iterations SET status = 'interrupted', completed_at = GREATEST(started_at, $2),
       duration_ms = GREATEST(started_at, $2) - started_at, error_kind = 'interrupted',
       error_message = COALESCE(error_message, $3)
     WHERE run_id = $1 AND status = 'running' RETURNING number`,
    [runId, at, INTERRUPTED_MESSAGE],
  );
  return rows.map((r) => r.number).sort((a, b) => a - b);
}
