// Run events folded into the board's summary and the run page's detail: a snapshot plus the events after
// it gives the state a later snapshot would.
import { describe, expect, it } from 'vitest';
import type { RunDetail, RunEvent } from '../../web/src/api/api-types.js';
import { applyToDetail, applyToSummary, foldIntoDetail, foldIntoList, relation } from '../../web/src/lib/run-reducer.js';
import { runEvent, runSummary } from './fixtures.js';

const T = Date.parse('2026-01-01T10:00:00.000Z');
let seq = 0;
const e = (fields: { type: string } & Record<string, unknown>): RunEvent => runEvent({ seq: ++seq, time: T + seq * 1000, ...fields });

const completed = (iteration: number, cost: number | null, outcome = 'success') =>
  e({ type: 'iteration_completed', iteration, outcome, duration_ms: 900, exit_code: 0, exit_signal: null, tokens_in: 100, tokens_out: 10, cost_usd: cost, completion_signal_found: outcome === 'complete', error_kind: 'none', error_message: null, model: 'sonnet', agent: 'claude' });

describe('applyToSummary', () => {
  it('follows a run from start to completion', () => {
    seq = 0;
    const events = [
      e({ type: 'run_started', label: 'PROMPT.md', max_iterations: 10, workspace: '/w', agent: 'claude' }),
      e({ type: 'iteration_started', iteration: 1, max_iterations: 10, agent: 'claude' }),
      completed(1, 0.25),
      e({ type: 'cost_incurred', iteration: 1, cost_usd: 0.25, total_cost_usd: 0.25 }),
      e({ type: 'iteration_started', iteration: 2, max_iterations: 10, agent: 'claude' }),
      completed(2, null, 'complete'),
      e({ type: 'completed', stop_reason: 'success_signal' }),
    ];
    const run = events.reduce(applyToSummary, runSummary({ id: 'r', status: 'pending' }));
    expect(run).toMatchObject({
      status: 'completed',
      stop_reason: 'success_signal',
      label: 'PROMPT.md',
      max_iterations: 10,
      iterations: 2,
      cost_usd: 0.25,
      cost_unknown: true,
      tokens_in: 200,
      tokens_out: 20,
      model: 'sonnet',
      last_seq: 7,
      ended_at: new Date(T + 7000).toISOString(),
    });
  });

  it('shows pausing and stopping until the run really paused or stopped', () => {
    seq = 10;
    let run = runSummary({ id: 'r', status: 'running', last_seq: 10 });
    run = applyToSummary(run, e({ type: 'pause_requested', now: false }));
    expect([run.status, run.pause_requested]).toEqual(['running', true]);
    run = applyToSummary(run, e({ type: 'paused', after_iteration: 3 }));
    expect([run.status, run.pause_requested]).toEqual(['paused', false]);
    run = applyToSummary(run, e({ type: 'resumed' }));
    run = applyToSummary(run, e({ type: 'stop_requested' }));
    expect([run.status, run.stop_requested]).toEqual(['running', true]);
    run = applyToSummary(run, e({ type: 'stopped', stop_reason: 'user_stop' }));
    expect([run.status, run.stop_requested, run.stop_reason]).toEqual(['stopped', false, 'user_stop']);
  });

  it('a usage-limit wait records the reset time, the next iteration clears it', () => {
    seq = 20;
    let run = applyToSummary(runSummary({ id: 'r' }), e({ type: 'waiting', iteration: 4, until: T + 3_600_000, reason: 'usage_limit' }));
    expect([run.status, run.waiting_until]).toEqual(['waiting', T + 3_600_000]);
    run = applyToSummary(run, e({ type: 'iteration_started', iteration: 5, max_iterations: null, agent: 'claude' }));
    expect([run.status, run.waiting_until, run.iterations]).toEqual(['running', null, 5]);
  });

  it('an iteration starting while a pause is pending keeps a paused run paused', () => {
    seq = 30;
    const run = applyToSummary(runSummary({ id: 'r', status: 'paused' }), e({ type: 'iteration_started', iteration: 2, max_iterations: null, agent: 'claude' }));
    expect(run.status).toBe('paused');
  });
});

describe('applyToDetail', () => {
  it('adds the running iteration row, completes it, and records checkpoints', () => {
    seq = 40;
    const start: RunDetail = { run: runSummary({ id: 'r' }), iterations: [], checkpoints: [], units: [] };
    const started = e({ type: 'iteration_started', iteration: 1, max_iterations: null, agent: 'claude' });
    let detail = applyToDetail(start, started);
    expect(detail.iterations).toEqual([expect.objectContaining({ number: 1, status: 'running', started_at: new Date(started.time).toISOString(), completed_at: null })]);
    expect(applyToDetail(detail, started).iterations).toHaveLength(1);
    detail = applyToDetail(detail, completed(1, 0.5));
    expect(detail.iterations[0]).toMatchObject({ number: 1, status: 'success', duration_ms: 900, cost_usd: 0.5, exit_code: 0, started_at: new Date(started.time).toISOString() });
    detail = applyToDetail(detail, e({ type: 'checkpoint_created', iteration: 1, commit_sha: 'abc123', state: 'committed' }));
    expect(detail.checkpoints).toEqual([expect.objectContaining({ iteration: 1, commit_sha: 'abc123', state: 'committed' })]);
  });

  it('an event that changes nothing shown returns the same detail (no re-render)', () => {
    seq = 50;
    const detail: RunDetail = { run: runSummary({ id: 'r', last_seq: 60 }), iterations: [], checkpoints: [], units: [] };
    expect(applyToDetail(detail, e({ type: 'warning', message: 'no git' }))).toBe(detail);
  });
});

describe('relation', () => {
  it('tells an event a snapshot already has, the next one, and one after a hole', () => {
    expect(relation(5, 4)).toBe('seen');
    expect(relation(5, 5)).toBe('seen');
    expect(relation(5, 6)).toBe('next');
    expect(relation(5, 8)).toBe('ahead');
    expect(relation(0, 1)).toBe('next');
  });
});

describe('foldIntoList / foldIntoDetail', () => {
  const started = (run_id: string, seq: number, iteration: number) => runEvent({ type: 'iteration_started', run_id, seq, time: T, iteration });

  it('applies each run’s next events, skips seen ones, and reports a hole or an unknown run as stale', () => {
    const runs = [runSummary({ id: 'a', last_seq: 3 }), runSummary({ id: 'b', last_seq: 1 })];
    const ok = foldIntoList(runs, [started('a', 3, 1), started('a', 4, 2), started('b', 2, 1)]);
    expect(ok.stale).toBe(false);
    expect(ok.runs.map((r) => [r.id, r.last_seq, r.iterations])).toEqual([['a', 4, 2], ['b', 2, 1]]);
    expect(runs[0]?.last_seq).toBe(3);
    expect(foldIntoList(runs, [started('a', 6, 3)]).stale).toBe(true);
    expect(foldIntoList(runs, [started('zzz', 1, 1)]).stale).toBe(true);
  });

  it('a detail takes only its own run’s events', () => {
    const detail: RunDetail = { run: runSummary({ id: 'a', last_seq: 0 }), iterations: [], checkpoints: [], units: [] };
    const folded = foldIntoDetail(detail, [started('b', 1, 1), started('a', 1, 1)]);
    expect(folded.stale).toBe(false);
    expect(folded.detail.iterations.map((i) => i.number)).toEqual([1]);
    expect(foldIntoDetail(detail, [started('a', 2, 1)]).stale).toBe(true);
  });
});
