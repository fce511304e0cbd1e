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
