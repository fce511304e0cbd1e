// Terminal rendering: colors only on a TTY without NO_COLOR; JSON lines exactly as events are stored; pause lines.
import { expect, it, vi } from 'vitest';
import { humanRenderer, jsonRenderer, useColor, verboseActivity } from '../../src/cli/render.js';

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

it('task runs: which task and which of its iterations, the task ends, a resumed task', () => {
  let out = '';
  const sink = humanRenderer({ out: { write: (s: string) => (out += s) }, err: { write: () => true } }, { color: false, maxRuntimeMs: null, maxCostUsd: null });
  const base = { run_id: 'r', time: 0 };
  sink({ ...base, seq: 1, type: 'run_started', kind: 'tasks', label: 'tasks.jsonl', max_iterations: null, workspace: '/w', agent: 'claude', resumed: true });
  sink({ ...base, seq: 2, type: 'task_started', task_id: 'A-1', title: 'Parse', base: 'abc1234567', resumed: true, tasks_started: 1, max_tasks: 50 });
  sink({ ...base, seq: 3, type: 'iteration_started', iteration: 7, max_iterations: null, agent: 'claude', log_path: '/l', unit: { id: 'A-1', title: 'Parse', iteration: 3, max_iterations: 10 } });
  sink({ ...base, seq: 4, type: 'task_blocked', task_id: 'A-1', title: 'Parse', reason: 'max_cost: $5.1000 spent (limit $5)', iterations: 3, cost_usd: 5.1, cost_unknown: false, duration_ms: 1000, failed_branch: 'ringmaster/failed/A-1', rolled_back_to: 'abc1234567' });
  sink({ ...base, seq: 5, type: 'task_completed', task_id: 'B', title: 'b', iterations: 1, cost_usd: 0.25, cost_unknown: false, duration_ms: 61_000, commit_sha: null });
  expect(out.replace(/\[\d\d:\d\d:\d\d\]/g, '[T]')).toBe(
    [
      '[T] Starting task run: tasks.jsonl',
      '[T] Resuming task A-1: Parse',
      '[T] Iteration 7 (task A-1 3/10) starting...',
      '[T] Task A-1 blocked after 3 iterations: max_cost: $5.1000 spent (limit $5)',
      '  rolled back to abc1234; the attempt is on branch ringmaster/failed/A-1',
      '[T] Task B done in 1 iteration (1m01s, $0.2500)',
      '',
    ].join('\n'),
  );
});

it('--verbose: a progress line after agent output left without its newline starts on a line of its own', () => {
  let out = '';
  const target = { out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (out += s) }, openLine: { value: false } };
  const sink = humanRenderer(target, { color: false, maxRuntimeMs: null, maxCostUsd: null });
  const activity = verboseActivity(target);
  activity({ kind: 'output', iteration: 1, time: 0, stream: 'stdout', text: 'héllo ✓ 🎉', offset: 0 });
  sink({ type: 'resumed', run_id: 'r', seq: 1, time: 0, paused_ms: 0 });
  activity({ kind: 'output', iteration: 1, time: 0, stream: 'stdout', text: 'whole line\n', offset: 11 });
  sink({ type: 'resumed', run_id: 'r', seq: 2, time: 0, paused_ms: 0 });
  expect(out.replace(/\[\d\d:\d\d:\d\d\]/g, '[T]')).toBe('héllo ✓ 🎉\n[T] Resumed\nwhole line\n[T] Resumed\n');
});
