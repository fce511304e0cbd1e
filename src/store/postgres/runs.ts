// Run rows of the PostgreSQL store (the SQL of store.ts's run methods): created with their definition, found by
// id or prefix, listed and counted by filter, one column updated behind the fence, finished with their owner closed.
import type { RunStatus, StopReason } from '../../core/types.js';
import { AmbiguousRunIdError, StoreError } from '../errors.js';
import { runRowSchema } from '../rows.js';
import type { RunRow, RunTotals, RunWithTotals } from '../rows.js';
import { RUN_SELECT } from '../sql-columns.js';
import type { Fence, NewRun, RunFilter } from '../store.js';
import { writeDefinition } from './definitions.js';
import { checkFence, lockRunRow } from './fence.js';
import { interruptRunning } from './iterations.js';
import { query as q } from './pool.js';
import type { Queryable } from './pool.js';
import { queryTotalsMany } from './queries.js';
import { runWhere } from './run-filter.js';

/** Inserts the run row and its definition (in the caller's transaction; its owner is opened apart: owners.ts). */
export async function insertRun(db: Queryable, run: NewRun): Promise<void> {
  await q(
    db,
    `INSERT INTO runs (id, status, stop_reason, agent, kind, spec_json, meta_json, workspace, worktree, branch, created_at, updated_at, ended_at, origin)
     VALUES ($1, $2, NULL, $3, $4, $5, $6, $7, $8, $9, $10, $10, NULL, $11)`,
    [
      run.id,
      run.status ?? 'running',
      run.agent,
      run.kind ?? 'prompt',
      JSON.stringify(run.spec ?? null),
      JSON.stringify(run.meta ?? {}),
      run.workspace,
      run.worktree ?? null,
      run.branch ?? null,
      run.now,
      run.origin ?? 'cli',
    ],
  );
  if (run.definition) await writeDefinition(db, run.id, run.definition, run.now);
}

/** One run, or null. */
export async function readRun(db: Queryable, id: string): Promise<RunRow | null> {
  const row = (await q(db, `${RUN_SELECT} WHERE r.id = $1`, [id])).rows[0];
  return row === undefined ? null : runRowSchema.parse(row);
}

/** One run that must exist (a StoreError otherwise). */
export async function mustGetRun(db: Queryable, id: string): Promise<RunRow> {
  const run = await readRun(db, id);
  if (!run) throw new StoreError(`no run ${id}`);
  return run;
}

/** The run with this id, else the one run whose id starts with it (AmbiguousRunIdError when several do). */
export async function findRun(db: Queryable, idOrPrefix: string): Promise<RunRow | null> {
  const exact = await readRun(db, idOrPrefix);
  if (exact || idOrPrefix === '') return exact;
  const rows = (await q<{ id: string }>(db, 'SELECT id FROM runs WHERE starts_with(id, $1) ORDER BY id LIMIT 6', [idOrPrefix])).rows;
  if (rows.length > 1) throw new AmbiguousRunIdError(idOrPrefix, rows.map((r) => r.id));
  return rows[0] ? readRun(db, rows[0].id) : null;
}

/** The runs the filter selects, newest first, each with its totals. */
export async function listRuns(db: Queryable, filter: RunFilter): Promise<RunWithTotals[]> {
  const { where, values } = runWhere(filter);
  const page = `LIMIT $${values.length + 1} OFFSET $${values.length + 2}`;
  const runs = (
    await q(db, `${RUN_SELECT} ${where} ORDER BY r.created_at DESC, r.id DESC ${page}`, [...values, filter.limit ?? null, filter.offset ?? 0])
  ).rows.map((row) => runRowSchema.parse(row));
  const totals = await queryTotalsMany(db, runs.map((r) => r.id));
  return runs.map((run) => ({ ...run, totals: totals.get(run.id) as RunTotals }));
}

/** How many runs the filter selects. */
export async function countRuns(db: Queryable, filter: RunFilter): Promise<number> {
  const { where, values } = runWhere(filter);
  const { rows } = await q<{ n: number }>(db, `SELECT COUNT(*) AS n FROM runs r ${where}`, values);
  return rows[0]?.n ?? 0;
}

/**
 * Sets one column of the run row (and updated_at). With a fence (in the caller's transaction), the run row is
 * locked and the fence checked first.
 */
export async function updateRunColumn(db: Queryable, what: string, id: string, fence: Fence | undefined, column: string, value: string, now: number): Promise<void> {
  if (fence !== undefined) {
    if (!(await lockRunRow(db, id))) throw new StoreError(`${what}: no run ${id}`);
    await checkFence(db, id, fence, what);
  }
  const { rowCount } = await q(db, `UPDATE runs SET ${column} = $2, updated_at = $3 WHERE id = $1`, [id, value, now]);
  if (rowCount === 0) throw new StoreError(`${what}: no run ${id}`);
}

/** Replaces the run's definition behind the fence (in the caller's transaction). */
export async function updateRunDefinition(db: Queryable, id: string, definition: Record<string, unknown>, now: number, fence?: Fence): Promise<void> {
  if (!(await lockRunRow(db, id))) throw new StoreError(`updateRunDefinition: no run ${id}`);
  await checkFence(db, id, fence, 'updateRunDefinition');
  await writeDefinition(db, id, definition, now);
}

/** Ends the run (in the caller's transaction): its status and reason, running iterations interrupted, its owner closed. */
export async function finishRun(db: Queryable, id: string, end: { status: RunStatus; stop_reason: StopReason | null; now: number }, fence?: Fence): Promise<RunRow> {
  if (!(await lockRunRow(db, id))) throw new StoreError(`finishRun: no run ${id}`);
  await checkFence(db, id, fence, 'finishRun');
  await q(db, 'UPDATE runs SET status = $2, stop_reason = $3, ended_at = $4, updated_at = $4 WHERE id = $1', [id, end.status, end.stop_reason, end.now]);
  await interruptRunning(db, id, end.now);
  await q(db, 'UPDATE run_owners SET ended_at = $2, heartbeat_at = GREATEST(heartbeat_at, $2) WHERE run_id = $1 AND ended_at IS NULL', [id, end.now]);
  return mustGetRun(db, id);
}
