// Money, durations and the usage-limit countdown as the dashboard writes them.
import { describe, expect, it } from 'vitest';
import { count, countdown, elapsed, nextTick, title, usd } from '../../web/src/lib/format.js';
import { epoch, fraction, liveRuntime, stateLabel } from '../../web/src/lib/runtime.js';

describe('format', () => {
  it('writes dollars with 4 decimals below one dollar, 2 above, and marks unknown costs', () => {
    expect(usd(0)).toBe('$0.00');
    expect(usd(0.0123)).toBe('$0.0123');
    expect(usd(12.345)).toBe('$12.35');
    expect(usd(null)).toBe('?');
    expect(usd(3, true)).toBe('$3.00+?');
  });

  it('writes elapsed time like the CLI, counts with separators', () => {
    expect(elapsed(45_200)).toBe('45.2s');
    expect(elapsed(136_000)).toBe('2m16s');
    expect(elapsed(3_723_000)).toBe('1h02m03s');
    expect(elapsed(null)).toBe('-');
    expect(count(18211)).toBe('18,211');
    expect(count(null)).toBe('-');
  });

  it('counts down to a usage-limit reset, rounding partial seconds up', () => {
    const now = 1_000_000;
    expect(countdown(now + 3_723_000, now)).toBe('1h 02m 03s');
    expect(countdown(now + 245_000, now)).toBe('4m 05s');
    expect(countdown(now + 8_001, now)).toBe('9s');
    expect(countdown(now + 1, now)).toBe('1s');
    expect(countdown(now, now)).toBe('now');
    expect(countdown(now - 5000, now)).toBe('now');
  });

  it('ticks exactly when the countdown text changes, and never after the reset', () => {
    expect(nextTick(10_500, 10_000)).toBe(500);
    expect(nextTick(12_000, 10_000)).toBe(1000);
    expect(nextTick(10_000, 10_000)).toBe(Infinity);
  });

  it('titles a prompt by its first line, shortened', () => {
    expect(title('Fix the tests\nthen commit')).toBe('Fix the tests');
    expect(title('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});

describe('runtime and state labels', () => {
  it('runs the clock on from the snapshot only while the run is running or waiting', () => {
    expect(liveRuntime({ status: 'running', runtime_ms: 5000 }, 1000, 4000)).toBe(8000);
    expect(liveRuntime({ status: 'waiting', runtime_ms: 5000 }, 1000, 500)).toBe(5000);
    expect(liveRuntime({ status: 'paused', runtime_ms: 5000 }, 1000, 4000)).toBe(5000);
  });

  it('says pausing / stopping (the server’s transition) until the run really paused or stopped', () => {
    expect(stateLabel({ status: 'running', transition: 'pausing' })).toBe('pausing');
    expect(stateLabel({ status: 'paused', transition: 'stopping' })).toBe('stopping');
    expect(stateLabel({ status: 'stopped', transition: null })).toBe('stopped');
  });

  it('reads ISO times of the API as epoch milliseconds', () => {
    expect(epoch('2026-01-01T10:00:00.000Z')).toBe(Date.UTC(2026, 0, 1, 10));
    expect(epoch(null)).toBeNull();
    expect(epoch('soon')).toBeNull();
  });

  it('measures the used part of a limit, capped at 1', () => {
    expect(fraction(2, 8)).toBe(0.25);
    expect(fraction(12, 8)).toBe(1);
    expect(fraction(3, null)).toBeNull();
  });
});
