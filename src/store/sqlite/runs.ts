// Run rows of the SQLite store (the SQL of store.ts's run methods): created with their definition, found by id or
// prefix, listed and counted by filter, one column updated behind the fence, finished with their owner closed.
// Same checks and messages as the PostgreSQL store (postgres/runs.ts).
import type { RunStatus, StopReason } from '../../core/types.js';
import { AmbiguousRunIdError, StoreError } from '../errors.js';
import { runRowSchema } from '../rows.js';
import type { RunRow, RunTotals, RunWithTotals } from '../rows.js';
import { RUN_SELECT } from '../sql-columns.js';
import type { Fence, NewRun, RunFilter } from '../store.js';
import type { SqliteDb } from './db.js';
import { writeDefinition } from './definitions.js';
import { interruptRunning } from './iterations.js';
import { queryTotalsMany } from './queries.js';
import { runWhere } from './run-filter.js';

/** Inserts the run row and its definition (in the caller's transaction; its owner is opened apart: owners.ts). */
export function insertRun(s: SqliteDb, run: NewRun): void {
  s.run(
    `INSERT INTO runs (id, status, stop_reason, agent, kind, origin, spec_json, meta_json, workspace, worktree, branch, created_at, updated_at, ended_at)
     VALUES (:id, :status, NULL, :agent, :kind, :origin, :spec, :meta, :workspace, :worktree, :branch, :now, :now, NULL)`,
    {
      id: run.id,
      status: run.status ?? 'running',
      agent: run.agent,
      kind: run.kind ?? 'prompt',
      origin: run.origin ?? 'cli',
      spec: JSON.stringify(run.spec ?? null),
      meta: JSON.stringify(run.meta ?? {}),
      workspace: run.workspace,
      worktree: run.worktree ?? null,
      branch: run.branch ?? null,
      now: run.now,
    },
  );
  if (run.definition) writeDefinition(s, run.id, run.definition, run.now);
}

/** One run, or null. */
export function readRun(s: SqliteDb, id: string): RunRow | null {
  const row = s.q(`${RUN_SELECT} WHERE r.id = :id`).get({ id });
  return row === undefined ? null : runRowSchema.parse(row);
}

/** One run that must exist (a StoreError otherwise). */
export function mustGetRun(s: SqliteDb, id: string): RunRow {
  const run = readRun(s, id);
  if (!run) throw new StoreError(`no run ${id}`);
  return run;
}

/** The run with this id, else the one run whose id starts with it (AmbiguousRunIdError when several do). */
export function findRun(s: SqliteDb, idOrPrefix: string): RunRow | null {
  const exact = readRun(s, idOrPrefix);
  if (exact || idOrPrefix === '') return exact;
  const rows = s.q('SELECT id FROM runs WHERE substr(id, 1, :n) = :prefix ORDER BY id LIMIT 6')
    .all({ n: idOrPrefix.length, prefix: idOrPrefix }) as Array<{ id: string }>;
  if (rows.length > 1) throw new AmbiguousRunIdError(idOrPrefix, rows.map((r) => r.id));
  return rows[0] ? readRun(s, rows[0].id) : null;
}

/** The runs the filter selects, newest first, each with its totals. */
export function listRuns(s: SqliteDb, filter: RunFilter): RunWithTotals[] {
  const { where, params } = runWhere(filter);
  const page = filter.limit !== undefined || filter.offset !== undefined ? 'LIMIT :limit OFFSET :offset' : '';
  if (page) {
    params.limit = filter.limit ?? -1;
    params.offset = filter.offset ?? 0;
  }
  const runs = s.q(`${RUN_SELECT} ${where} ORDER BY r.created_at DESC, r.id DESC ${page}`).all(params).map((row) => runRowSchema.parse(row));
  const totals = queryTotalsMany(s.db, runs.map((r) => r.id));
  return runs.map((run) => ({ ...run, totals: totals.get(run.id) as RunTotals }));
}

/** How many runs the filter selects. */
export function countRuns(s: SqliteDb, filter: RunFilter): number {
  const { where, params } = runWhere(filter);
  const row = s.q(`SELECT COUNT(*) AS n FROM runs r ${where}`).get(params) as { n: number };
  return row.n;
}

/** Sets one column of the run row (`set`: `column = :value`) and updated_at, behind the fence when given. */
export function updateRunColumn(s: SqliteDb, what: string, id: string, fence: Fence | undefined, set: string, value: string, now: number): void {
  s.fenced(id, fence, what, () => {
    const { changes } = s.run(`UPDATE runs SET ${set}, updated_at = :now WHERE id = :id`, { id, value, now });
    if (changes === 0) throw new StoreError(`${what}: no run ${id}`);
  });
}

/** Replaces the run's definition behind the fence. */
export function updateRunDefinition(s: SqliteDb, id: string, definition: Record<string, unknown>, now: number, fence?: Fence): void {
  s.fenced(id, fence, 'updateRunDefinition', () => {
    if (!readRun(s, id)) throw new StoreError(`updateRunDefinition: no run ${id}`);
    writeDefinition(s, id, definition, now);
  });
}

/** Ends the run in one transaction: its status and reason, running iterations interrupted, its owner closed. */
export function finishRun(s: SqliteDb, id: string, end: { status: RunStatus; stop_reason: StopReason | null; now: number }, fence?: Fence): RunRow {
  return s.tx(() => {
    if (!readRun(s, id)) throw new StoreError(`finishRun: no run ${id}`);
    s.fence(id, fence, 'finishRun');
    s.run('UPDATE runs SET status = :status, stop_reason = :reason, ended_at = :now, updated_at = :now WHERE id = :id', {
      id,
      status: end.status,
      reason: end.stop_reason,
      now: end.now,
    });
    interruptRunning(s, id, end.now);
    s.run('UPDATE run_owners SET ended_at = :now, heartbeat_at = MAX(heartbeat_at, :now) WHERE run_id = :id AND ended_at IS NULL', { id, now: end.now });
    return mustGetRun(s, id);
  });
}
