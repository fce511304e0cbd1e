// The time limits of one agent process (idle, hard timeout, deadline) and the clock they hold while it is
// suspended (`pause --now`): the hard timeout's clock stops, the deadline moves by the time suspended.
import { idleTimer, timerAfter, timerAt, type IdleTimer, type SafeTimer } from '../os/timers.js';

/** Which limit fired. */
export type TimeLimit = 'idle_timeout' | 'iteration_timeout' | 'deadline';

/** The limits of one process; null = none. */
export interface TimeLimits {
  idleTimeoutMs: number | null;
  hardTimeoutMs: number | null;
  /** Epoch ms. */
  deadlineMs: number | null;
}

/** The armed limits of one process and its time suspended. */
export interface AgentClock {
  /** Arms every limit (the process started). */
  arm(): void;
  /** Cancels every limit. */
  disarm(): void;
  /** Output arrived: the idle limit starts over. */
  touch(): void;
  /** Holds the limits at `at`; false when already held. */
  hold(at: number): boolean;
  /** Re-arms the limits at `at`, the deadline moved by the time held; false when not held. */
  release(at: number): boolean;
  /** The process ended at `at`: a hold still open counts as time suspended. */
  settle(at: number): void;
  /** Time held so far. */
  suspendedMs(): number;
}

/** A clock for a process started at `started` that calls `fire` when a limit is reached. */
export function agentClock(limits: TimeLimits, started: number, fire: (limit: TimeLimit) => void): AgentClock {
  let hardLeftMs = limits.hardTimeoutMs;
  let activeSince = started;
  let heldAt: number | null = null;
  let suspendedTotal = 0;
  let timers: SafeTimer[] = [];
  // Any length is safe here (os/timers.ts): a 600h limit must not fire after 1 ms like a raw setTimeout would.
  let idle: IdleTimer | null = null;
  const arm = (): void => {
    if (limits.idleTimeoutMs !== null) idle = idleTimer(limits.idleTimeoutMs, () => fire('idle_timeout'));
    if (hardLeftMs !== null) timers.push(timerAfter(hardLeftMs, () => fire('iteration_timeout')));
    if (limits.deadlineMs !== null) timers.push(timerAt(limits.deadlineMs + suspendedTotal, () => fire('deadline')));
  };
  const disarm = (): void => {
    for (const t of timers) t.cancel();
    timers = [];
    idle?.cancel();
    idle = null;
  };
  return {
    arm,
    disarm,
    touch: () => idle?.touch(),
    hold(at) {
      if (heldAt !== null) return false;
      heldAt = at;
      if (hardLeftMs !== null) hardLeftMs = Math.max(0, hardLeftMs - (at - activeSince));
      disarm();
      return true;
    },
    release(at) {
      if (heldAt === null) return false;
      suspendedTotal += at - heldAt;
      heldAt = null;
      activeSince = at;
      arm();
      return true;
    },
    settle(at) {
      if (heldAt === null) return;
      suspendedTotal += at - heldAt;
      heldAt = null;
    },
    suspendedMs: () => suspendedTotal,
  };
}
