// Terminal rendering: colors only on a TTY without NO_COLOR; JSON lines exactly as events are stored; pause lines.
import { expect, it, vi } from 'vitest';
import { humanRenderer, jsonRenderer, useColor } from '../../src/cli/render.js';

it('uses colors only on a TTY, never with NO_COLOR or TERM=dumb', () => {
  expect(useColor({ isTTY: true }, {})).toBe(true);
  expect(useColor({ isTTY: false }, {})).toBe(false);
  expect(useColor({}, {})).toBe(false);
  expect(useColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
  expect(useColor({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
});

it('colors the failure line only when asked to', () => {
  const event = {
    type: 'iteration_completed' as const, run_id: 'r1', seq: 4, unit: null, time: Date.UTC(2026, 10, 22, 10, 0, 0), iteration: 4, max_iterations: 10, outcome: 'failure' as const,
    duration_ms: 15_000, exit_code: 1, exit_signal: null, consecutive_failures: 1, failure_threshold: 3, completion_signal_found: false,
    failure_signal_found: false, error_kind: 'exit_nonzero' as const, error_message: null, tokens_in: null, tokens_out: null, cache_read: null,
    cache_write: null, cost_usd: null, session_id: null, model: null, malformed_lines: 0, agent: 'command',
  };
  let plain = '';
  humanRenderer({ out: { write: (s: string) => (plain += s) }, err: { write: () => true } }, { color: false, maxRuntimeMs: null, maxCostUsd: null })(event);
  expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\] Iteration 4\/10 completed in 15\.0s \(failure, consecutive: 1\/3\)\n$/);
  let colored = '';
  humanRenderer({ out: { write: (s: string) => (colored += s) }, err: { write: () => true } }, { color: true, maxRuntimeMs: null, maxCostUsd: null })(event);
  expect(colored).toContain('\u001b[33mIteration 4/10 completed in 15.0s (failure, consecutive: 1/3)\u001b[0m');
  let json = '';
  jsonRenderer({ out: { write: (s: string) => (json += s) }, err: { write: () => true } })(event);
  expect(JSON.parse(json)).toEqual(event);
});

it('on a terminal a wait shows a countdown that the next event clears', () => {
  vi.useFakeTimers();
  try {
    const start = Date.UTC(2026, 10, 22, 10, 0, 0);
    vi.setSystemTime(start);
    let out = '';
    const sink = humanRenderer({ out: { write: (s: string) => (out += s), isTTY: true }, err: { write: () => true } }, { color: false, maxRuntimeMs: null, maxCostUsd: null });
    sink({ type: 'waiting', run_id: 'r', seq: 1, time: start, iteration: 1, until: start + 90_000, reason: 'usage_limit' });
    expect(out).toMatch(/Waiting until \d\d:\d\d:\d\d \(1m30s\) for the usage limit to clear\.\.\.\n/);
    expect(out.endsWith('...\n\r\u001b[2K  1m30s left (Ctrl+C stops the run)')).toBe(true);
    vi.advanceTimersByTime(30_000);
    expect(out.endsWith('\r\u001b[2K  1m00s left (Ctrl+C stops the run)')).toBe(true);
    sink({ type: 'warning', run_id: 'r', seq: 2, time: start + 30_000, message: 'x' });
    expect(out.endsWith('\r\u001b[2K')).toBe(true);
    const length = out.length;
    vi.advanceTimersByTime(5000);
    expect(out.length).toBe(length);
  } finally {
    vi.useRealTimers();
  }
});

it('without a terminal a wait is one line, no countdown', () => {
  let out = '';
  const sink = humanRenderer({ out: { write: (s: string) => (out += s) }, err: { write: () => true } }, { color: false, maxRuntimeMs: null, maxCostUsd: null });
  sink({ type: 'waiting', run_id: 'r', seq: 1, time: 0, iteration: 1, until: 5000, reason: 'rate_limit' });
  expect(out).toMatch(/^\[\d\d:\d\d:\d\d\] Waiting until \d\d:\d\d:\d\d \(5\.0s\) for the rate limit to clear\.\.\.\n$/);
});

it('shows pause requests, pauses, resumes and stop requests as progress lines', () => {
  let out = '';
  const sink = humanRenderer({ out: { write: (s: string) => (out += s) }, err: { write: () => true } }, { color: false, maxRuntimeMs: null, maxCostUsd: null });
  const base = { run_id: 'r', time: 0 };
  sink({ ...base, seq: 1, type: 'pause_requested', by: 'user', now: false });
  sink({ ...base, seq: 2, type: 'paused', after_iteration: 3, by: 'user', suspended: false });
  sink({ ...base, seq: 3, type: 'resumed', paused_ms: 1000 });
  sink({ ...base, seq: 4, type: 'stop_requested', by: null });
  expect(out.replace(/\[\d\d:\d\d:\d\d\] /g, '')).toBe(
    [
      'Pause requested (by user): pausing after the current iteration...',
      'Paused (by user) after iteration 3',
      'Resumed',
      'Stop requested: stopping the agent...',
      '',
    ].join('\n'),
  );
});
