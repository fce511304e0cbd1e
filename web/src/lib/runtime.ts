// A run's elapsed runtime on screen: the stored runtime at the snapshot, plus the time since for a run
// that is still going (paused time does not count, as in the runner's max-runtime budget).
import type { RunSummary } from '../api/api-types.js';

/** Statuses whose clock is running. */
const TICKING = new Set(['running', 'waiting']);

/** Milliseconds of runtime now, given when the snapshot was fetched. */
export function liveRuntime(run: Pick<RunSummary, 'status' | 'runtime_ms'>, fetchedAt: number, now: number): number {
  return TICKING.has(run.status) ? run.runtime_ms + Math.max(0, now - fetchedAt) : run.runtime_ms;
}

/** The label of a run's state as a card shows it: "pausing" and "stopping" until the run really is. */
export function stateLabel(run: Pick<RunSummary, 'status' | 'pause_requested' | 'stop_requested'>): string {
  const active = run.status === 'running' || run.status === 'waiting' || run.status === 'pending' || run.status === 'paused';
  if (run.stop_requested && active) return 'stopping';
  if (run.pause_requested && (run.status === 'running' || run.status === 'waiting')) return 'pausing';
  return run.status;
}

/** Fraction (0..1) of a limit used, or null when there is no limit. */
export function fraction(used: number, limit: number | null): number | null {
  if (limit === null || limit <= 0) return null;
  return Math.min(1, Math.max(0, used / limit));
}
