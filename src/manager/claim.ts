// Taking over an existing run: claimed once its owner's lease has run out (when asked to wait for that), and the
// wait (for a usage limit) it was in when its last owner let it go.
import { runEventSchema } from '../runner/events.js';
import type { ResumePoint } from '../runner/run-deps.js';
import { abortableSleep } from '../runner/run-loop.js';
import { RunBusyError, type ClaimOptions, type ClaimResult, type Owner, type Store } from '../store/index.js';

/** interrupt() came while the controller waited to claim its run: nothing was taken or started. */
export class ClaimInterruptedError extends Error {
  constructor(runId: string) {
    super(`run ${runId}: interrupted while waiting for its owner's lease to run out`);
    this.name = 'ClaimInterruptedError';
  }
}

/** What claiming an existing run found. */
export interface ClaimInfo {
  iterations: number;
  costUsd: number;
  /** Some iteration's cost is not known: costUsd is a lower bound. */
  costUnknown: boolean;
  interrupted: number[];
  leftoverKilled: number | null;
}

/**
 * claimRun with `options`: when the owner is not idle yet (options.ifIdleMs), waits until its lease has run out;
 * `signal` ends the wait with ClaimInterruptedError.
 */
export async function claimWhenIdle(store: Store, runId: string, owner: Owner, how: { options: ClaimOptions; now: () => number; signal: AbortSignal }): Promise<ClaimResult> {
  for (;;) {
    try {
      return await store.claimRun(runId, owner, how.now(), how.options);
    } catch (error) {
      if (!(error instanceof RunBusyError) || how.options.ifIdleMs === undefined) throw error;
      // Durations only: the store judged the owner's silence by its own clock.
      if (!(await abortableSleep(how.options.ifIdleMs - error.idleMs + 50, how.signal))) throw new ClaimInterruptedError(runId);
    }
  }
}

/**
 * The wait the run was in when its last owner let it go (or died), if it is not over at `now`: the last `waiting`
 * event among the run's latest ones, with no iteration started after it (a hand-over may add a checkpoint after it).
 */
export async function unfinishedWait(store: Store, runId: string, now: number): Promise<ResumePoint['wait']> {
  const lastSeq = await store.lastEventSeq(runId);
  const recent = await store.listEvents(runId, { afterSeq: Math.max(0, lastSeq - 50) });
  for (const row of recent.reverse()) {
    if (row.type === 'iteration_started') return null;
    if (row.type !== 'waiting') continue;
    const parsed = runEventSchema.safeParse(row.payload);
    const event = parsed.success ? parsed.data : null;
    if (event?.type !== 'waiting' || event.until <= now) return null;
    // A wait for the shared budget is not waited out to its time: the run's budget gate looks at the store again.
    return event.reason === 'budget' ? null : { until: event.until, reason: event.reason };
  }
  return null;
}

/**
 * True when the run was paused, or asked to pause, and not resumed when its last owner let it go (a restart of the
 * server, a crash): the run then comes back paused, as it was or would have been after the iteration cut short.
 */
export async function pauseLeftPending(store: Store, runId: string): Promise<boolean> {
  const lastSeq = await store.lastEventSeq(runId);
  const recent = await store.listEvents(runId, { afterSeq: Math.max(0, lastSeq - 50) });
  for (const row of recent.reverse()) {
    if (row.type === 'pause_requested' || row.type === 'paused') return true;
    if (row.type === 'resumed' || row.type === 'run_started') return false;
  }
  return false;
}
