// Timers safe for any delay: nothing fires early, nothing spins, whatever the length (Node's own setTimeout
// turns anything above 2^31-1 ms into 1 ms).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { idleTimer, MAX_TIMER_MS, sleep, timerAfter, timerAt } from '../../src/os/timers.js';

const DAY = 86_400_000;

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('timerAfter / timerAt', () => {
  it.each([MAX_TIMER_MS + 1, 600 * 3_600_000, 30 * DAY, 400 * DAY])('a delay of %d ms fires exactly then, not after 1 ms', async (ms) => {
    const fn = vi.fn();
    timerAfter(ms, fn);
    await vi.advanceTimersByTimeAsync(1);
    expect(fn).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(ms - 2);
    expect(fn).not.toHaveBeenCalled();
    // Long waits are chained: only a handful of native timers, never a busy loop.
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(10 * DAY);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('a time in the past, NaN or a negative delay fires on the next turn, Infinity never; cancel stops it', async () => {
    const past = vi.fn();
    const nan = vi.fn();
    const never = vi.fn();
    const cancelled = vi.fn();
    timerAt(Date.now() - 5000, past);
    timerAfter(Number.NaN, nan);
    timerAfter(Infinity, never);
    timerAfter(MAX_TIMER_MS * 3, cancelled).cancel();
    expect(past).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(0);
    expect(past).toHaveBeenCalledTimes(1);
    expect(nan).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS * 4);
    expect(never).not.toHaveBeenCalled();
    expect(cancelled).not.toHaveBeenCalled();
  });
});

describe('idleTimer', () => {
  it('fires after the quiet period, measured from the last touch, for any length', async () => {
    const fn = vi.fn();
    const ms = 40 * DAY;
    const t = idleTimer(ms, fn);
    await vi.advanceTimersByTimeAsync(ms - 10);
    t.touch();
    await vi.advanceTimersByTimeAsync(ms - 10);
    expect(fn).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(10);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});

describe('sleep', () => {
  it('sleeps past 2^31 ms without waking early, and an abort ends it at once with false', async () => {
    const controller = new AbortController();
    let result: boolean | null = null;
    void sleep(30 * DAY, controller.signal).then((r) => (result = r));
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS + 5);
    expect(result).toBeNull();
    await vi.advanceTimersByTimeAsync(30 * DAY);
    expect(result).toBe(true);
    let aborted: boolean | null = null;
    void sleep(30 * DAY, controller.signal).then((r) => (aborted = r));
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(aborted).toBe(false);
  });

  it('a deadline cuts the sleep short', async () => {
    let result: boolean | null = null;
    void sleep(60_000, new AbortController().signal, Date.now() + 3000).then((r) => (result = r));
    await vi.advanceTimersByTimeAsync(2999);
    expect(result).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toBe(true);
  });
});
