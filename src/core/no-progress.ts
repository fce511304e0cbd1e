// The no-progress rule of a run (`--no-progress-after N`, loop.no_progress_after; README "Stop on no progress"): a
// run whose last N iterations changed no file in the workspace stops with reason `no_progress`. A pure counter and
// decision fed from the per-iteration change tracking (runner/change-tracking.ts: files_changed_total); the run's
// step (run-step.ts) applies it to every finished iteration that would go on.
import type { Decision, IterationOutcome } from './types.js';

/** The stop it makes: a limit the user set, reached (exit 2, like the other limits). */
export const NO_PROGRESS_STOP = { kind: 'stop', reason: 'no_progress', status: 'completed' } as const satisfies Decision;

/** The counter: consecutive iterations that changed no file. */
export interface ProgressCount {
  idle: number;
}

/**
 * The count after one finished iteration. Counted: an iteration that ran to its end (success or failure) with its
 * changes known; files changed reset it to 0. Not counted (the count stays): a usage-limit wait or an
 * interruption (no iteration happened), and an iteration whose changes are unknown (its snapshot failed).
 */
export function countProgress(count: ProgressCount, outcome: IterationOutcome, filesChanged: number | null): ProgressCount {
  if (outcome === 'waiting' || outcome === 'interrupted' || filesChanged === null) return count;
  return { idle: filesChanged > 0 ? 0 : count.idle + 1 };
}

/** True when the run must stop: the guard is on (after > 0) and the last `after` iterations changed nothing. */
export function noProgress(count: ProgressCount, after: number): boolean {
  return after > 0 && count.idle >= after;
}
