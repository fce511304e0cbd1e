// Folds run events into a run's snapshot as the server lists it (board card) and its detail (run page), so that
// a snapshot plus the events after its last_seq gives what a later snapshot would show. Pure: no clock, no I/O.
import type { Checkpoint, Iteration, RunDetail, RunEvent, RunItem, Unit } from '../api/api-types.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** Statuses of a run that has not ended. */
export const ACTIVE = new Set<RunItem['status']>(['pending', 'running', 'paused', 'waiting']);

/** Events after which the run is fetched again (see needsRefetch). */
const REFETCH = new Set<RunEvent['type']>(['run_started', 'paused', 'run_finished', 'rollback', 'program']);

/**
 * Events after which a snapshot cannot say for sure what the run looks like, so it is fetched again: where its
 * clock starts or stops (a start, a pause, the end: the server's runtime is the truth), a resume of a paused run
 * (a paused queued run goes back to pending, a paused loop to running), a rollback, a program's own event (the
 * tasks or steps of the run changed).
 */
export function needsRefetch(before: Pick<RunItem, 'status'>, event: RunEvent): boolean {
  return REFETCH.has(event.type) || (event.type === 'resumed' && before.status === 'paused');
}

/** The run after one event. Returns the same object when the event changes nothing it shows. */
export function applyToItem<R extends RunItem>(run: R, event: RunEvent): R {
  const at = { updated_at: iso(event.time), last_seq: Math.max(run.last_seq, event.seq) };
  const stopping = run.transition === 'stopping' ? 'stopping' : null;
  switch (event.type) {
    case 'run_queued':
      return { ...run, ...at, status: 'pending', label: event.label, queue_position: event.position };
    case 'run_started':
      return {
        ...run,
        ...at,
        status: 'running',
        queue_position: null,
        label: event.label,
        agent: event.agent,
        limits: { ...run.limits, max_iterations: event.max_iterations },
        stop_reason: null,
        ended_at: null,
        transition: stopping,
      };
    case 'iteration_started':
      return { ...run, ...at, status: run.status === 'paused' ? 'paused' : 'running', iterations: Math.max(run.iterations, event.iteration), agent: event.agent, waiting_until: null };
    case 'iteration_completed':
      return {
        ...run,
        ...at,
        model: event.model ?? run.model,
        tokens_in: run.tokens_in + (event.tokens_in ?? 0),
        tokens_out: run.tokens_out + (event.tokens_out ?? 0),
        cache_read: run.cache_read + (event.cache_read ?? 0),
        cache_write: run.cache_write + (event.cache_write ?? 0),
        cost_unknown: run.cost_unknown || (event.cost_usd === null && event.outcome !== 'interrupted'),
      };
    // cost_so_far: what the running iterations have spent so far is in the run's cost (as in the server's totals).
    case 'cost_incurred':
    case 'cost_so_far':
      return { ...run, ...at, cost_usd: event.total_cost_usd };
    case 'waiting':
      return { ...run, ...at, status: 'waiting', waiting_until: iso(event.until) };
    case 'pause_requested':
      return { ...run, ...at, transition: stopping ?? 'pausing' };
    case 'paused':
      return { ...run, ...at, status: 'paused', transition: stopping, waiting_until: null, suspended: event.suspended, queue_position: null };
    case 'resumed':
      return { ...run, ...at, status: run.status === 'paused' ? 'running' : run.status, transition: stopping, suspended: false };
    case 'stop_requested':
      return { ...run, ...at, transition: 'stopping' };
    case 'limits_changed':
      return { ...run, ...at, limits: { ...run.limits, max_iterations: event.max_iterations } };
    case 'completed':
    case 'stopped':
    case 'failed':
      return { ...run, ...at, status: event.type, stop_reason: event.stop_reason, transition: null, waiting_until: null, suspended: false, queue_position: null, ended_at: iso(event.time) };
    case 'run_finished':
      return {
        ...run,
        ...at,
        status: event.status,
        stop_reason: event.stop_reason,
        iterations: Math.max(run.iterations, event.iterations),
        cost_usd: event.cost_usd,
        cost_unknown: event.cost_unknown,
        transition: null,
        waiting_until: null,
        suspended: false,
        queue_position: null,
        ended_at: iso(event.time),
      };
    default:
      return event.seq > run.last_seq ? { ...run, last_seq: event.seq } : run;
  }
}

function upsertIteration(list: Iteration[], row: Iteration): Iteration[] {
  const index = list.findIndex((it) => it.number === row.number);
  if (index === -1) return [...list, row].sort((a, b) => a.number - b.number);
  const next = list.slice();
  next[index] = row;
  return next;
}

function startedRow(event: Extract<RunEvent, { type: 'iteration_started' }>): Iteration {
  return {
    number: event.iteration,
    status: 'running',
    exit_code: null,
    exit_signal: null,
    duration_ms: null,
    tokens_in: null,
    tokens_out: null,
    cache_read: null,
    cache_write: null,
    cost_usd: null,
    completion_signal_found: false,
    failure_signal_found: false,
    error_kind: null,
    error_message: null,
    session_id: null,
    model: null,
    agent: event.agent,
    started_at: iso(event.time),
    completed_at: null,
    log_path: event.log_path,
    unit_id: event.unit?.id ?? null,
    files_changed: null,
    files_changed_total: null,
    tree_before: null,
    tree_after: null,
    discarded_ref: null, verify: null,
  };
}

function completedRow(previous: Iteration | undefined, event: Extract<RunEvent, { type: 'iteration_completed' }>): Iteration {
  return {
    number: event.iteration,
    status: event.outcome,
    exit_code: event.exit_code,
    exit_signal: event.exit_signal,
    duration_ms: event.duration_ms,
    tokens_in: event.tokens_in,
    tokens_out: event.tokens_out,
    cache_read: event.cache_read,
    cache_write: event.cache_write,
    cost_usd: event.cost_usd,
    completion_signal_found: event.completion_signal_found,
    failure_signal_found: event.failure_signal_found,
    error_kind: event.error_kind,
    error_message: event.error_message,
    session_id: event.session_id,
    model: event.model,
    agent: event.agent,
    started_at: previous?.started_at ?? iso(event.time - event.duration_ms),
    completed_at: iso(event.time),
    log_path: previous?.log_path ?? null,
    unit_id: event.unit?.id ?? previous?.unit_id ?? null,
    files_changed: event.changes?.files_changed ?? null,
    files_changed_total: event.changes?.files_changed_total ?? null,
    tree_before: event.changes?.tree_before ?? null,
    tree_after: event.changes?.tree_after ?? null,
    discarded_ref: event.changes?.discarded_ref ?? null,
    verify: event.verify ?? null,
  };
}

function upsertCheckpoint(list: Checkpoint[], row: Checkpoint): Checkpoint[] {
  const rest = list.filter((c) => !(c.iteration === row.iteration && c.commit_sha === row.commit_sha));
  return [...rest, row].sort((a, b) => a.iteration - b.iteration);
}

/** A unit's iteration count (on start) or cost (on completion) after an iteration event that names it. */
function countUnit(units: Unit[], unit: { id: string; title: string } | null, change: { iterations: number; cost: number }): Unit[] {
  if (unit === null) return units;
  const found = units.find((u) => u.id === unit.id);
  const base: Unit = found ?? { id: unit.id, title: unit.title, status: null, iterations: 0, cost_usd: 0 };
  const next = { ...base, iterations: base.iterations + change.iterations, cost_usd: Math.round((base.cost_usd + change.cost) * 1e9) / 1e9 };
  return found ? units.map((u) => (u === found ? next : u)) : [...units, next];
}

/** The run page's detail after one event: the run plus the iteration, checkpoint and unit rows it touches. */
export function applyToDetail(detail: RunDetail, event: RunEvent): RunDetail {
  const run = applyToItem(detail.run, event);
  switch (event.type) {
    case 'iteration_started': {
      if (detail.iterations.some((it) => it.number === event.iteration)) return { ...detail, run };
      return {
        ...detail,
        run: { ...run, last_iteration: Math.max(run.last_iteration, event.iteration) },
        iterations: upsertIteration(detail.iterations, startedRow(event)),
        units: countUnit(detail.units, event.unit, { iterations: 1, cost: 0 }),
      };
    }
    case 'iteration_completed': {
      const previous = detail.iterations.find((it) => it.number === event.iteration);
      // The unit already counts what the iteration had spent so far (its row, cost_so_far): only the rest is added.
      return {
        ...detail,
        run: { ...run, duration_ms: run.duration_ms + event.duration_ms },
        iterations: upsertIteration(detail.iterations, completedRow(previous, event)),
        units: countUnit(detail.units, event.unit, { iterations: previous ? 0 : 1, cost: (event.cost_usd ?? 0) - (previous?.cost_usd ?? 0) }),
      };
    }
    case 'cost_so_far': {
      const previous = detail.iterations.find((it) => it.number === event.iteration);
      if (previous?.status !== 'running') return { ...detail, run };
      const unit = previous.unit_id === null ? null : (detail.units.find((u) => u.id === previous.unit_id) ?? null);
      return {
        ...detail,
        run,
        iterations: upsertIteration(detail.iterations, { ...previous, cost_usd: event.cost_usd }),
        units: unit === null ? detail.units : countUnit(detail.units, { id: unit.id, title: unit.title ?? unit.id }, { iterations: 0, cost: event.cost_usd - (previous.cost_usd ?? 0) }),
      };
    }
    case 'checkpoint_created':
      return {
        ...detail,
        run,
        checkpoints: upsertCheckpoint(detail.checkpoints, { iteration: event.iteration, commit_sha: event.commit_sha, state: event.state, message: null, snapshot: null, created_at: iso(event.time) }),
      };
    default:
      return run === detail.run ? detail : { ...detail, run };
  }
}

/** How an event relates to a snapshot that reflects events up to `lastSeq`: in it, the next one, or after a hole. */
export function relation(lastSeq: number, seq: number): 'seen' | 'next' | 'ahead' {
  if (seq <= lastSeq) return 'seen';
  return seq === lastSeq + 1 ? 'next' : 'ahead';
}

/** What folding a batch of events into snapshots found: runs to fetch again (a hole, or an event only a new snapshot explains). */
export interface Folded<T> {
  value: T;
  refetch: Set<string>;
  /** Runs the events were about that the list does not have. */
  unknown: Set<string>;
}

/**
 * Folds a batch of events into the board's list. Each run takes only its next event; a run with an event after
 * a hole (or one of needsRefetch) is to be fetched again, a run the list does not have to be fetched and added.
 * `catchingUp`: the events bring a fresh snapshot up to date (nothing is fetched again for them).
 */
export function foldIntoList(runs: readonly RunItem[], events: readonly RunEvent[], catchingUp = false): Folded<RunItem[]> {
  const index = new Map(runs.map((run, i) => [run.id, i]));
  const next = runs.slice();
  const refetch = new Set<string>();
  const unknown = new Set<string>();
  for (const event of events) {
    const i = index.get(event.run_id);
    const run = i === undefined ? undefined : next[i];
    if (i === undefined || run === undefined) {
      unknown.add(event.run_id);
      continue;
    }
    const rel = relation(run.last_seq, event.seq);
    if (rel === 'next') {
      if (!catchingUp && needsRefetch(run, event)) refetch.add(run.id);
      const after = applyToItem(run, event);
      next[i] = after;
      if (run.queue_position !== null && after.queue_position === null) closeQueueGap(next, run.queue_position);
    } else if (rel === 'ahead') {
      refetch.add(run.id);
    }
  }
  return { value: next, refetch, unknown };
}

/** A run left the queue at `place`: the runs behind it move up one (the server's queue is first in first out). */
function closeQueueGap(runs: RunItem[], place: number): void {
  runs.forEach((run, i) => {
    if (run.queue_position !== null && run.queue_position > place) runs[i] = { ...run, queue_position: run.queue_position - 1 };
  });
}

/** Events after which the runs still queued have moved up (one ahead of them started or left the queue). */
export const QUEUE_MOVES = new Set<RunEvent['type']>(['run_started', 'paused', 'completed', 'stopped', 'failed', 'run_finished']);

/** Folds a batch of events into one run's detail (events of other runs are ignored); `refetch` as in foldIntoList. */
export function foldIntoDetail(detail: RunDetail, events: readonly RunEvent[], catchingUp = false): Folded<RunDetail> {
  let current = detail;
  const refetch = new Set<string>();
  for (const event of events) {
    if (event.run_id !== detail.run.id) continue;
    const rel = relation(current.run.last_seq, event.seq);
    if (rel === 'next') {
      if (!catchingUp && needsRefetch(current.run, event)) refetch.add(event.run_id);
      current = applyToDetail(current, event);
    } else if (rel === 'ahead') {
      refetch.add(event.run_id);
    }
  }
  return { value: current, refetch, unknown: new Set() };
}
