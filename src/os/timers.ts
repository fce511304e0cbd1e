// Timers that are safe for any delay. Node's setTimeout turns a delay above 2^31-1 ms (about 24.8 days) into
// 1 ms: a 600h budget or a usage-limit reset weeks away would fire at once (an iteration killed after 0 s, a
// wait that spins). Every timer in Ringmaster whose delay comes from configuration or an agent goes through here.

/** The longest delay Node's timers honour (2^31-1 ms); longer ones are chained in pieces of at most this. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A pending timer. */
export interface SafeTimer {
  /** Stops it; the callback never runs afterwards. */
  cancel(): void;
}

/** The clock and native timer functions a SafeTimer uses (injected in tests). */
export interface TimerHost {
  now(): number;
  setTimeout(fn: () => void, ms: number): NodeJS.Timeout;
  clearTimeout(timer: NodeJS.Timeout): void;
}

const realHost: TimerHost = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer),
};

/** A delay as a timer can take it: NaN and negatives are 0; +Infinity stays (never fires). */
function sane(ms: number): number {
  if (Number.isNaN(ms) || ms < 0) return 0;
  return ms;
}

/**
 * Runs `fn` once, at the epoch time `atMs` (never earlier, whatever the distance: long waits are chained).
 * `unref`: the timer alone does not keep the process alive.
 */
export function timerAt(atMs: number, fn: () => void, options: { unref?: boolean; host?: TimerHost } = {}): SafeTimer {
  const host = options.host ?? realHost;
  let handle: NodeJS.Timeout | null = null;
  let cancelled = false;
  const schedule = (remaining: number): void => {
    if (remaining === Infinity) return;
    handle = host.setTimeout(arm, Math.min(Math.max(0, Math.ceil(remaining)), MAX_TIMER_MS));
    if (options.unref) handle.unref();
  };
  function arm(): void {
    handle = null;
    if (cancelled) return;
    const remaining = sane(atMs - host.now());
    if (remaining === 0) fn();
    else schedule(remaining);
  }
  // Always asynchronous, like setTimeout(fn, 0), even when the time has already passed.
  schedule(sane(atMs - host.now()));
  return {
    cancel() {
      cancelled = true;
      if (handle) host.clearTimeout(handle);
      handle = null;
    },
  };
}

/** Runs `fn` once after `ms` (any length; see timerAt). */
export function timerAfter(ms: number, fn: () => void, options: { unref?: boolean; host?: TimerHost } = {}): SafeTimer {
  const host = options.host ?? realHost;
  return timerAt(host.now() + sane(ms), fn, options);
}

/**
 * An inactivity timer: `fn` runs once `ms` pass without a `touch()`. Touching only records the time (cheap
 * on every chunk of output); the timer re-arms itself for the remainder when it fires early.
 */
export interface IdleTimer extends SafeTimer {
  touch(): void;
}

/** Starts an inactivity timer of `ms` (any length). */
export function idleTimer(ms: number, fn: () => void, options: { host?: TimerHost } = {}): IdleTimer {
  const host = options.host ?? realHost;
  let last = host.now();
  let timer: SafeTimer | null = null;
  let done = false;
  const check = (): void => {
    if (done) return;
    const due = last + sane(ms);
    if (host.now() >= due) {
      done = true;
      fn();
      return;
    }
    timer = timerAt(due, check, { host });
  };
  timer = timerAt(last + sane(ms), check, { host });
  return {
    touch() {
      last = host.now();
    },
    cancel() {
      done = true;
      timer?.cancel();
    },
  };
}

/**
 * Sleeps `ms` (any length), resolving true when the time is up, false at once when `signal` aborts. With
 * `deadlineMs` (epoch ms) the sleep ends there at the latest, resolving true: the caller's limits decide next.
 */
export function sleep(ms: number, signal: AbortSignal, deadlineMs: number | null = null, host: TimerHost = realHost): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  const until = deadlineMs === null ? host.now() + sane(ms) : Math.min(host.now() + sane(ms), deadlineMs);
  if (until <= host.now()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      timer.cancel();
      resolve(false);
    };
    const timer = timerAt(
      until,
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      },
      { host },
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
