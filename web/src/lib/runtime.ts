// A run's state as the dashboard shows it: elapsed runtime (the stored runtime at the snapshot, plus the time
// since for a run that is still going; paused time does not count, as in the runner's max-runtime budget), the
// state label ("pausing" and "stopping" until the run really is), how much of a limit is used.
import type { RunItem } from '../api/api-types.js';

/** Statuses whose clock is running. */
const TICKING = new Set(['running', 'waiting']);

/** Milliseconds of runtime now, given when the snapshot was fetched. */
export function liveRuntime(run: Pick<RunItem, 'status' | 'runtime_ms'>, fetchedAt: number, now: number): number {
  return TICKING.has(run.status) ? run.runtime_ms + Math.max(0, now - fetchedAt) : run.runtime_ms;
}

/** The label of a run's state as a card shows it: the server's transition (pausing, stopping) until the run really is. */
export function stateLabel(run: Pick<RunItem, 'status' | 'transition'>): string {
  return run.transition ?? run.status;
}

/** Fraction (0..1) of a limit used, or null when there is no limit. */
export function fraction(used: number, limit: number | null): number | null {
  if (limit === null || limit <= 0) return null;
  return Math.min(1, Math.max(0, used / limit));
}

/** Epoch ms of an ISO time, or null. */
export function epoch(time: string | null): number | null {
  if (time === null) return null;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? null : ms;
}

/** How a run ended, at a glance: what the card and the run page show, and its tone (colour). */
export interface RunEnd {
  text: string;
  tone: 'ok' | 'limit' | 'bad' | 'neutral';
}

const END_WORDS: Record<string, RunEnd> = {
  success_signal: { text: 'done: the agent signalled completion', tone: 'ok' },
  max_iterations: { text: 'limit: iterations used up', tone: 'limit' },
  max_runtime: { text: 'limit: runtime used up', tone: 'limit' },
  max_cost: { text: 'limit: budget spent', tone: 'limit' },
  failure_threshold: { text: 'failed: too many failures in a row', tone: 'bad' },
  fatal_error: { text: 'failed: fatal error', tone: 'bad' },
  stalled: { text: 'stalled: no task could run', tone: 'limit' },
  no_progress: { text: 'no progress: iterations in a row changed no file', tone: 'limit' },
  user_stop: { text: 'stopped by a person', tone: 'neutral' },
  interrupted: { text: 'interrupted', tone: 'neutral' },
};

/**
 * Why a finished run ended, in words and a tone, so that a run a limit ended never looks like a success (the
 * status stays what it is: a limit completes a run). Overspend (a cost past the budget: the iteration that
 * reached it finished) is said with the amount. Null while the run is active or has no reason.
 */
export function runEnd(run: Pick<RunItem, 'status' | 'stop_reason' | 'cost_usd' | 'limits'>): RunEnd | null {
  if (run.stop_reason === null || ['pending', 'running', 'paused', 'waiting'].includes(run.status)) return null;
  const end = END_WORDS[run.stop_reason] ?? { text: run.stop_reason.replace(/_/g, ' '), tone: 'neutral' };
  const budget = run.limits.max_cost_usd;
  if (budget !== null && run.cost_usd > budget) {
    const over = run.cost_usd - budget;
    return { text: `${end.text}; over budget by $${over.toFixed(over < 1 ? 4 : 2)}`, tone: end.tone === 'ok' ? 'limit' : end.tone };
  }
  return end;
}
