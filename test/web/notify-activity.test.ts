// Notifications for finished and waiting runs, and the card's "right now" line (tool in use, last output line).
import { describe, expect, it } from 'vitest';
import { agentActivitySchema, type AgentActivity } from '../../web/src/api/api-types.js';
import { notificationFor } from '../../web/src/lib/notify.js';
import { RunActivity, nextRunNow } from '../../web/src/lib/run-activity.js';
import { runEvent, runItem } from './fixtures.js';

const T = 1_800_000_000_000;
const event = (fields: { type: string } & Record<string, unknown>) => runEvent({ run_id: 'r1', seq: 9, time: T, ...fields });

describe('notificationFor', () => {
  const run = runItem({ id: 'r1', title: 'Fix the flaky tests', label: 'prompt' });

  it('notifies completion, failure and usage-limit waits, naming the run', () => {
    expect(notificationFor(event({ type: 'completed', stop_reason: 'success_signal' }), run, T)).toEqual({ title: 'Completed: Fix the flaky tests (r1)', body: 'stop reason: success_signal', tag: 'run-r1' });
    expect(notificationFor(event({ type: 'failed', stop_reason: 'failure_threshold', message: '3 consecutive failures' }), run, T)).toEqual({ title: 'Failed: Fix the flaky tests (r1)', body: '3 consecutive failures', tag: 'run-r1' });
    expect(notificationFor(event({ type: 'waiting', iteration: 3, until: T + 3_600_000, reason: 'usage_limit' }), undefined, T)).toEqual({ title: 'Waiting on a usage limit: r1', body: 'resumes in 1h 00m 00s', tag: 'run-r1' });
  });

  it('stays quiet for everything else', () => {
    expect(notificationFor(event({ type: 'waiting', iteration: 3, until: T + 5000, reason: 'rate_limit' }), run, T)).toBeNull();
    expect(notificationFor(event({ type: 'paused' }), run, T)).toBeNull();
    expect(notificationFor(event({ type: 'stopped', stop_reason: 'user_stop' }), run, T)).toBeNull();
  });
});

describe('run activity (card)', () => {
  const label = (name: string, input: string) => `${name} ${input}`;
  const a = (fields: Record<string, unknown> & { kind: AgentActivity['kind'] }): AgentActivity => agentActivitySchema.parse({ iteration: 1, time: T, text: '', index: 0, offset: 0, ...fields });

  it('shows the tool in use until its result, and the last non-empty output line without ANSI codes', () => {
    let now = nextRunNow(undefined, a({ kind: 'output', stream: 'stdout', text: 'one\n\u001b[32mtwo\u001b[0m\n\n' }), label);
    expect(now).toEqual({ iteration: 1, tool: null, lastLine: 'two' });
    now = nextRunNow(now, a({ kind: 'tool_call', name: 'Bash', input: 'npm test' }), label);
    expect(now.tool).toBe('Bash npm test');
    now = nextRunNow(now, a({ kind: 'tool_result', name: 'Bash', output: 'ok', is_error: false }), label);
    expect(now.tool).toBeNull();
    now = nextRunNow(now, a({ kind: 'text', text: 'All green.\n' }), label);
    expect(now.lastLine).toBe('All green.');
  });

  it('a new iteration clears the tool but keeps the last line until new output', () => {
    const now = nextRunNow({ iteration: 1, tool: 'Edit x', lastLine: 'done' }, a({ iteration: 2, kind: 'tool_result', name: null, output: '', is_error: false }), label);
    expect(now).toEqual({ iteration: 2, tool: null, lastLine: 'done' });
  });

  it('notifies only the cards whose run changed', () => {
    const store = new RunActivity(label);
    const calls: string[] = [];
    store.subscribe('r1', () => calls.push('r1'));
    store.subscribe('r2', () => calls.push('r2'));
    store.apply([{ run_id: 'r1', activity: a({ kind: 'output', stream: 'stdout', text: 'x\n' }) }]);
    store.apply([{ run_id: 'r1', activity: a({ kind: 'output', stream: 'stdout', text: 'x\n' }) }]);
    store.forget('r2');
    store.forget('r1');
    expect(calls).toEqual(['r1', 'r1']);
    expect(store.size).toBe(0);
  });
});
