// A switch that suspends a running agent (`pause --now`): its owner flips it, the supervisor of the agent
// process listens (SIGSTOP / SIGCONT of its group, timers held). Like an AbortSignal, but it can go back.

/** What a supervisor listens to: whether the agent must be suspended now. */
export interface SuspendSignal {
  readonly suspended: boolean;
  /** Calls `listener` on every change; returns the unsubscribe function. */
  subscribe(listener: (suspended: boolean) => void): () => void;
}

/** The owner's side: flips the signal and tells how long it was suspended in total. */
export interface SuspendSwitch extends SuspendSignal {
  /** Suspends (true) or continues (false); a no-op when already so. */
  set(suspended: boolean): void;
  /** True while a supervisor listens (an agent process is running). */
  readonly attached: boolean;
  /** Milliseconds spent suspended so far, the current suspension included. */
  suspendedMs(): number;
  /** Milliseconds of the current suspension (0 when not suspended). */
  currentMs(): number;
}

/** A new switch, not suspended. `now` is the clock suspensions are measured with. */
export function createSuspendSwitch(now: () => number = Date.now): SuspendSwitch {
  const listeners = new Set<(suspended: boolean) => void>();
  let since: number | null = null;
  let total = 0;
  return {
    get suspended() {
      return since !== null;
    },
    get attached() {
      return listeners.size > 0;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(suspended) {
      if (suspended === (since !== null)) return;
      if (suspended) since = now();
      else {
        total += Math.max(0, now() - (since ?? now()));
        since = null;
      }
      for (const listener of [...listeners]) listener(suspended);
    },
    suspendedMs() {
      return total + this.currentMs();
    },
    currentMs() {
      return since === null ? 0 : Math.max(0, now() - since);
    },
  };
}
