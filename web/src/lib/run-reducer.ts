// Folds run events into the run's summary (board card) and its detail (run page), so that a snapshot
// plus the events after its seq equals a later snapshot. Pure: no clock, no I/O.
import type { Checkpoint, Iteration, RunDetail, RunEvent, RunSummary } from '../api/api-types.js';

/** A stored event of a type this dashboard does not know (a newer server): it still takes its place in the seq order. */
export interface UnknownEvent {
  type: 'unknown';
  run_id: string;
  seq: number;
  time: number;
  original_type: string;
}

/** Any event the feed delivers. */
export type FeedEvent = RunEvent | UnknownEvent;

const iso = (ms: number): string => new Date(ms).toISOString();

/** The summary after one event. Returns the same object when the event changes nothing it shows. */
export function applyToSummary(run: RunSummary, event: FeedEvent): RunSummary {
  const at = { updated_at: iso(event.time), last_seq: Math.max(run.last_seq, event.seq) };
  switch (event.type) {
    case 'run_started':
      return { ...run, ...at, status: 'running', label: event.label, max_iterations: event.max_iterations, agent: event.agent, stop_reason: null, ended_at: null, stop_requested: false, pause_requested: false };
    case 'iteration_started':
      return { ...run, ...at, status: run.status === 'paused' ? 'paused' : 'running', iterations: Math.max(run.iterations, event.iteration), agent: event.agent, waiting_until: null };
    case 'iteration_completed':
      return {
        ...run,
        ...at,
        model: event.model ?? run.model,
        tokens_in: run.tokens_in + (event.tokens_in ?? 0),
        tokens_out: run.tokens_out + (event.tokens_out ?? 0),
        cost_unknown: run.cost_unknown || event.cost_usd === null,
      };
    case 'cost_incurred':
      return { ...run, ...at, cost_usd: event.total_cost_usd };
    case 'waiting':
      return { ...run, ...at, status: 'waiting', waiting_until: event.until };
    case 'pause_requested':
      return { ...run, ...at, pause_requested: true };
    case 'paused':
      return { ...run, ...at, status: 'paused', pause_requested: false };
    case 'resumed':
      return { ...run, ...at, status: 'running', pause_requested: false };
    case 'stop_requested':
      return { ...run, ...at, stop_requested: true };
    case 'completed':
    case 'stopped':
    case 'failed':
      return { ...run, ...at, status: event.type, stop_reason: event.stop_reason, stop_requested: false, pause_requested: false, waiting_until: null, ended_at: iso(event.time) };
    case 'run_finished':
      return { ...run, ...at, status: event.status, stop_reason: event.stop_reason, iterations: event.iterations, cost_usd: event.cost_usd, stop_requested: false, pause_requested: false, waiting_until: null, ended_at: iso(event.time) };
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
    cost_usd: null,
    completion_signal_found: false,
    error_kind: null,
    error_message: null,
    model: null,
    agent: event.agent,
    started_at: iso(event.time),
    completed_at: null,
  };
}

const OUTCOME_STATUS: Record<string, Iteration['status']> = {
  success: 'success',
  failure: 'failure',
  complete: 'complete',
  waiting: 'waiting',
  interrupted: 'interrupted',
};

function completedRow(previous: Iteration | undefined, event: Extract<RunEvent, { type: 'iteration_completed' }>): Iteration {
  const started = previous?.started_at ?? iso(event.time - event.duration_ms);
  return {
    number: event.iteration,
    status: OUTCOME_STATUS[event.outcome] ?? 'failure',
    exit_code: event.exit_code,
    exit_signal: event.exit_signal,
    duration_ms: event.duration_ms,
    tokens_in: event.tokens_in,
    tokens_out: event.tokens_out,
    cost_usd: event.cost_usd,
    completion_signal_found: event.completion_signal_found,
    error_kind: event.error_kind,
    error_message: event.error_message,
    model: event.model,
    agent: event.agent,
    started_at: started,
    completed_at: iso(event.time),
  };
}

function upsertCheckpoint(list: Checkpoint[], row: Checkpoint): Checkpoint[] {
  const rest = list.filter((c) => !(c.iteration === row.iteration && c.commit_sha === row.commit_sha));
  return [...rest, row].sort((a, b) => a.iteration - b.iteration);
}

/** The run page's detail after one event: the summary plus the iteration and checkpoint rows it touches. */
export function applyToDetail(detail: RunDetail, event: FeedEvent): RunDetail {
  const run = applyToSummary(detail.run, event);
  switch (event.type) {
    case 'iteration_started':
      if (detail.iterations.some((it) => it.number === event.iteration)) return { ...detail, run };
      return { ...detail, run, iterations: upsertIteration(detail.iterations, startedRow(event)) };
    case 'iteration_completed': {
      const previous = detail.iterations.find((it) => it.number === event.iteration);
      return { ...detail, run, iterations: upsertIteration(detail.iterations, completedRow(previous, event)) };
    }
    case 'checkpoint_created':
      return {
        ...detail,
        run,
        checkpoints: upsertCheckpoint(detail.checkpoints, { iteration: event.iteration, commit_sha: event.commit_sha, state: event.state, message: null, created_at: iso(event.time) }),
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

/**
 * Folds a batch of events into the board's list. Each run takes only its next event; an event after a
 * hole, or of a run the list does not have, makes the list `stale` (the caller refetches it).
 */
export function foldIntoList(runs: readonly RunSummary[], events: readonly FeedEvent[]): { runs: RunSummary[]; stale: boolean } {
  const index = new Map(runs.map((run, i) => [run.id, i]));
  const next = runs.slice();
  let stale = false;
  for (const event of events) {
    const i = index.get(event.run_id);
    const run = i === undefined ? undefined : next[i];
    if (i === undefined || run === undefined) {
      stale = true;
      continue;
    }
    const rel = relation(run.last_seq, event.seq);
    if (rel === 'next') next[i] = applyToSummary(run, event);
    else if (rel === 'ahead') stale = true;
  }
  return { runs: next, stale };
}

/** Folds a batch of events into one run's detail (events of other runs are ignored); `stale` as in foldIntoList. */
export function foldIntoDetail(detail: RunDetail, events: readonly FeedEvent[]): { detail: RunDetail; stale: boolean } {
  let current = detail;
  let stale = false;
  for (const event of events) {
    if (event.run_id !== detail.run.id) continue;
    const rel = relation(current.run.last_seq, event.seq);
    if (rel === 'next') current = applyToDetail(current, event);
    else if (rel === 'ahead') stale = true;
  }
  return { detail: current, stale };
}
