// The run's one control channel as the loop reads it: every request that can change the course of a run (fatal
// error, interrupt, stop, pause, hand-over) read as one snapshot (core/run-step.ts Controls) at each boundary, and
// one sleep that any of them cuts short. Built from the RunDeps callbacks, so a library user's deps keep working.
import type { Controls } from '../core/run-step.js';
import type { RunDeps } from './run-deps.js';

/** What the loop reads of its controls. */
export interface LoopControls {
  /** The requests pending now. */
  read(): Controls;
  /** Sleeps unless interrupted or woken by a pause or stop request; true when the full time passed. */
  sleep(ms: number): Promise<boolean>;
  /** Resolves when a paused run is resumed, stopped or interrupted. */
  waitUntilResumed(): Promise<void>;
  /** The time agents have spent suspended (`pause --now`) in all, ms. */
  suspendedMs(): number;
}

/** The control channel of a run with these deps. */
export function loopControls(deps: RunDeps): LoopControls {
  return {
    read: () => ({
      fatal: deps.fatalError?.() ?? null,
      interrupted: deps.signal.aborted,
      stop: deps.stopRequested?.() ?? false,
      pause: deps.pause?.requested() ?? null,
      handOver: deps.handOver?.() ?? false,
    }),
    sleep: (ms) => sleepAwake(deps, ms),
    waitUntilResumed: async () => {
      await deps.pause?.waitUntilResumed();
    },
    suspendedMs: () => deps.pause?.suspend?.suspendedMs() ?? 0,
  };
}

async function sleepAwake(deps: RunDeps, ms: number): Promise<boolean> {
  if (!deps.wakeSignal) return deps.sleep(ms, deps.signal);
  // Combined by hand with listeners removed after each sleep: nothing accumulates on the run's long-lived signal.
  const wake = deps.wakeSignal();
  const combined = new AbortController();
  const onAbort = (): void => combined.abort();
  if (deps.signal.aborted || wake.aborted) combined.abort();
  deps.signal.addEventListener('abort', onAbort, { once: true });
  wake.addEventListener('abort', onAbort, { once: true });
  try {
    return await deps.sleep(ms, combined.signal);
  } finally {
    deps.signal.removeEventListener('abort', onAbort);
    wake.removeEventListener('abort', onAbort);
  }
}
