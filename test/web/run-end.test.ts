// Why a run ended, at a glance: a limit or an overspend never reads like a success.
import { describe, expect, it } from 'vitest';
import { runEnd } from '../../web/src/lib/runtime.js';

const limits = { max_iterations: 10, max_runtime_ms: null, max_cost_usd: 0.6 };
const run = (status: 'completed' | 'failed' | 'stopped' | 'running', stop_reason: string | null, cost_usd = 0.1) => ({ status, stop_reason, cost_usd, limits }) as Parameters<typeof runEnd>[0];

describe('runEnd', () => {
  it('words each reason with its tone', () => {
    expect(runEnd(run('completed', 'success_signal'))).toEqual({ text: 'done: the agent signalled completion', tone: 'ok' });
    expect(runEnd(run('completed', 'max_iterations'))).toEqual({ text: 'limit: iterations used up', tone: 'limit' });
    expect(runEnd(run('failed', 'failure_threshold'))).toEqual({ text: 'failed: too many failures in a row', tone: 'bad' });
    expect(runEnd(run('stopped', 'user_stop'))).toEqual({ text: 'stopped by a person', tone: 'neutral' });
  });

  it('says an overspend with its amount', () => {
    expect(runEnd(run('completed', 'max_cost', 0.63))).toEqual({ text: 'limit: budget spent; over budget by $0.0300', tone: 'limit' });
    expect(runEnd(run('completed', 'success_signal', 0.75))).toEqual({ text: 'done: the agent signalled completion; over budget by $0.1500', tone: 'limit' });
  });

  it('says nothing while the run is active', () => {
    expect(runEnd(run('running', 'max_cost', 0.7))).toBeNull();
    expect(runEnd(run('completed', null))).toBeNull();
  });
});
