// Iteration rows of the SQLite store: written before the agent starts, completed whatever the outcome, closed
// as interrupted when their process is gone. Same checks and messages as the PostgreSQL store.
import { StoreError } from '../errors.js';
import { INTERRUPTED_MESSAGE, iterationRowSchema } from '../rows.js';
import type { IterationRow } from '../rows.js';
import type { SqliteDb, Params } from './db.js';
import type { Fence, IterationEnd, IterationProgress, IterationStart, NewEvent } from '../store.js';
import { changeColumns } from '../sql-columns.js';
import { insertEvents } from './events.js';

const PROGRESS_COLUMNS = ['tokens_in', 'tokens_out', 'cache_read', 'cache_write', 'cost_usd', 'session_id', 'model'] as const;

/** Writes a running iteration row (a duplicate number is a StoreError), then `events` in the same transaction. */
export function startIteration(s: SqliteDb, start: IterationStart, fence?: Fence, events?: readonly NewEvent[]): IterationRow {
  return s.tx(() => {
    s.fence(start.run_id, fence, 'startIteration');
    if (readIteration(s, start.run_id, start.number)) {
      throw new StoreError(`startIteration: run ${start.run_id} already has iteration ${start.number}`);
    }
    const row = s
      .q(
        `INSERT INTO iterations (run_id, number, agent, status, started_at, log_path, unit_id)
         VALUES (:run_id, :number, :agent, 'running', :started_at, :log_path, :unit_id) RETURNING *`,
      )
      .get({ run_id: start.run_id, number: start.number, agent: start.agent, started_at: start.started_at, log_path: start.log_path, unit_id: start.unit_id ?? null });
    touchOwner(s, start.run_id, start.started_at);
    const written = iterationRowSchema.parse(row);
    if (events) insertEvents(s, events, fence, start.run_id);
    return written;
  });
}

/** Records usage seen so far in a running iteration, then `events` in the same transaction. */
export function updateIteration(s: SqliteDb, runId: string, number: number, progress: IterationProgress, fence?: Fence, events?: readonly NewEvent[]): void {
  const params: Params = { run_id: runId, number };
  const sets: string[] = [];
  for (const column of PROGRESS_COLUMNS) {
    const value = progress[column];
    if (value === undefined) continue;
    sets.push(`${column} = :${column}`);
    params[column] = value;
  }
  const write = (): void => {
    if (sets.length > 0) {
      const { changes } = s.run(`UPDATE iterations SET ${sets.join(', ')} WHERE run_id = :run_id AND number = :number AND status = 'running'`, params);
      if (changes === 0) throw new StoreError(`updateIteration: iteration ${number} of run ${runId} is not running`);
    }
    if (events) insertEvents(s, events, fence, runId);
  };
  if (!events?.length) {
    if (sets.length > 0) s.fenced(runId, fence, 'updateIteration', write);
    return;
  }
  s.tx(() => {
    s.fence(runId, fence, 'updateIteration');
    write();
  });
}

/** Completes a running iteration row, then writes `events` in the same transaction. */
export function completeIteration(s: SqliteDb, runId: string, number: number, end: IterationEnd, fence?: Fence, events?: readonly NewEvent[]): IterationRow {
  return s.tx(() => {
    s.fence(runId, fence, 'completeIteration');
    const row = s
      .q(
        `UPDATE iterations SET status = :status, completed_at = :completed_at, duration_ms = :duration_ms,
           exit_code = :exit_code, exit_signal = :exit_signal,
           tokens_in = :tokens_in, tokens_out = :tokens_out, cache_read = :cache_read, cache_write = :cache_write,
           cost_usd = :cost_usd, completion_signal_found = :completion, failure_signal_found = :failure,
           error_kind = :error_kind, error_message = :error_message,
           session_id = COALESCE(:session_id, session_id), model = COALESCE(:model, model),
           tree_before = :tree_before, tree_after = :tree_after, files_changed = :files_changed,
           files_changed_total = :files_changed_total, discarded_ref = :discarded_ref, verify = :verify
         WHERE run_id = :run_id AND number = :number AND status = 'running' RETURNING *`,
      )
      .get({
        run_id: runId,
        number,
        status: end.status,
        completed_at: end.completed_at,
        duration_ms: Math.max(0, Math.round(end.duration_ms)),
        exit_code: end.exit_code,
        exit_signal: end.exit_signal ?? null,
        tokens_in: end.tokens_in ?? null,
        tokens_out: end.tokens_out ?? null,
        cache_read: end.cache_read ?? null,
        cache_write: end.cache_write ?? null,
        cost_usd: end.cost_usd ?? null,
        completion: end.completion_signal_found ? 1 : 0,
        failure: end.failure_signal_found ? 1 : 0,
        error_kind: end.error_kind,
        error_message: end.error_message,
        session_id: end.session_id ?? null,
        model: end.model ?? null,
        ...changeColumns(end),
        verify: end.verify ? JSON.stringify(end.verify) : null,
      });
    if (row === undefined) {
      const existing = readIteration(s, runId, number);
      throw new StoreError(
        existing ? `completeIteration: iteration ${number} of run ${runId} is already ${existing.status}` : `completeIteration: run ${runId} has no iteration ${number}`,
      );
    }
    touchOwner(s, runId, end.completed_at);
    const written = iterationRowSchema.parse(row);
    if (events) insertEvents(s, events, fence, runId);
    return written;
  });
}

/** One iteration row, or null. */
export function readIteration(s: SqliteDb, runId: string, number: number): IterationRow | null {
  const row = s.q('SELECT * FROM iterations WHERE run_id = :runId AND number = :number').get({ runId, number });
  return row === undefined ? null : iterationRowSchema.parse(row);
}

/** A run's iteration rows by number. */
export function listIterations(s: SqliteDb, runId: string): IterationRow[] {
  return s.q('SELECT * FROM iterations WHERE run_id = :runId ORDER BY number').all({ runId }).map((row) => iterationRowSchema.parse(row));
}

/** Closes `running` iterations as interrupted at `at` (their usage, if any was recorded, is kept). */
export function interruptRunning(s: SqliteDb, runId: string, at: number): number[] {
  const rows = s
    .q(
      `UPDATE iterations SET status = 'interrupted', completed_at = MAX(started_at, :at),
         duration_ms = MAX(started_at, :at) - started_at, error_kind = 'interrupted',
         error_message = COALESCE(error_message, :message)
       WHERE run_id = :runId AND status = 'running' RETURNING number`,
    )
    .all({ runId, at, message: INTERRUPTED_MESSAGE }) as Array<{ number: number }>;
  return rows.map((r) => r.number).sort((a, b) => a - b);
}

/** Writing an iteration row is a sign of life: the open owner's heartbeat moves with it. */
function touchOwner(s: SqliteDb, runId: string, now: number): void {
  s.run('UPDATE run_owners SET heartbeat_at = MAX(heartbeat_at, :now) WHERE run_id = :runId AND ended_at IS NULL', { runId, now });
}
