// The owner's lease on a run: a heartbeat to the store every `intervalMs` from the moment the run is created or
// claimed. A renewal answered "not yours" means another process took the run over: the owner must stop.
import type { Owner, Store } from '../store/index.js';

/** What a lease needs. */
export interface LeaseOptions {
  store: Store;
  runId: string;
  owner: Owner;
  intervalMs: number;
  now: () => number;
  /** A renewal succeeded; `sentAt` (performance.now(), monotonic) is when it was sent: the lease is ours since then. */
  onRenewed?: (sentAt: number) => void;
  /** Another process owns the run now (called once). */
  onLost: () => void;
  /** A renewal failed (the store could not be reached): shown, and retried at the next tick. */
  onError?: (error: Error) => void;
}

/** A running lease. */
export interface Lease {
  stop(): void;
}

/** Starts renewing; one renewal at a time (a slow store never piles them up). */
export function startLease(options: LeaseOptions): Lease {
  let inFlight = false;
  let lost = false;
  const tick = (): void => {
    if (inFlight || lost) return;
    inFlight = true;
    // A monotonic time of this process only (never compared with another machine's): when the request left.
    const sentAt = performance.now();
    options.store.heartbeat(options.runId, options.owner, options.now()).then(
      (ours) => {
        inFlight = false;
        if (ours) options.onRenewed?.(sentAt);
        else if (!lost) {
          lost = true;
          options.onLost();
        }
      },
      (error: unknown) => {
        inFlight = false;
        options.onError?.(error instanceof Error ? error : new Error(String(error)));
      },
    );
  };
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
