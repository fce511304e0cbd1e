// Run events folded into the board's run items and the run page's detail: a snapshot plus the events after its
// last_seq gives the state a later snapshot would.
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../web/src/api/api-types.js';
import { applyToDetail, applyToItem, foldIntoDetail, foldIntoList, needsRefetch, relation } from '../../web/src/lib/run-reducer.js';
import { runDetail, runEvent, runItem } from './fixtures.js';

const T = Date.parse('2026-01-01T10:00:00.000Z');
let seq = 0;
const e = (fields: { type: string } & Record<string, unknown>): RunEvent => runEvent({ seq: ++seq, time: T + seq * 1000, ...fields });

const completed = (iteration: number, cost: number | null, outcome = 'success', unit: unknown = null) =>
  e({ type: 'iteration_completed', iteration, outcome, duration_ms: 900, exit_code: 0, tokens_in: 100, tokens_out: 10, cache_read: 5, cost_usd: cost, completion_signal_found: outcome === 'complete', model: 'sonnet', unit });

describe('places in the queue', () => {
  it('a queued run takes its place; when a run ahead starts or leaves, the ones behind move up', () => {
    const runs = [runItem({ id: 'a', status: 'pending', queue_position: 1, last_seq: 1 }), runItem({ id: 'b', status: 'pending', queue_position: 2, last_seq: 1 }), runItem({ id: 'c', status: 'pending', queue_position: 3, last_seq: 1 }), runItem({ id: 'd', status: 'completed', last_seq: 1 })];
    const started = foldIntoList(runs, [runEvent({ type: 'run_started', run_id: 'a', seq: 2 })], true).value;
    expect(started.map((r) => [r.id, r.status, r.queue_position])).toEqual([['a', 'running', null], ['b', 'pending', 1], ['c', 'pending', 2], ['d', 'completed', null]]);
    // A run paused in the queue is held back (no place); the one behind it moves up.
    const held = foldIntoList(started, [runEvent({ type: 'paused', run_id: 'b', seq: 2 })], true).value;
    expect(held.map((r) => r.queue_position)).toEqual([null, null, 1, null]);
    const queued = foldIntoList(held, [runEvent({ type: 'run_queued', run_id: 'd', seq: 2, position: 2 })], true).value;
    expect(queued.map((r) => [r.status, r.queue_position])).toEqual([['running', null], ['paused', null], ['pending', 1], ['pending', 2]]);
  });
});

describe('applyToItem', () => {
  it('follows a run from the queue to completion', () => {
    seq = 0;
    const events = [
      e({ type: 'run_queued', label: 'Fix the tests' }),
      e({ type: 'run_started', label: 'Fix the tests', max_iterations: 10 }),
      e({ type: 'iteration_started', iteration: 1 }),
      completed(1, 0.25),
      e({ type: 'cost_incurred', iteration: 1, cost_usd: 0.25, total_cost_usd: 0.25 }),
      e({ type: 'iteration_started', iteration: 2 }),
      completed(2, null, 'complete'),
      e({ type: 'completed', stop_reason: 'success_signal' }),
    ];
    const run = events.reduce(applyToItem, runItem({ id: 'r', status: 'pending', label: null }));
    expect(run).toMatchObject({
      status: 'completed',
      stop_reason: 'success_signal',
      label: 'Fix the tests',
      limits: { max_iterations: 10 },
      iterations: 2,
      cost_usd: 0.25,
      cost_unknown: true,
      tokens_in: 200,
      tokens_out: 20,
      cache_read: 10,
      model: 'sonnet',
      last_seq: 8,
      transition: null,
      ended_at: new Date(T + 8000).toISOString(),
      updated_at: new Date(T + 8000).toISOString(),
    });
  });

  it('shows pausing and stopping (the server’s transitions) until the run really paused or stopped', () => {
    seq = 10;
    let run = runItem({ id: 'r', status: 'running', last_seq: 10 });
    run = applyToItem(run, e({ type: 'pause_requested' }));
    expect([run.status, run.transition]).toEqual(['running', 'pausing']);
    run = applyToItem(run, e({ type: 'paused', after_iteration: 3 }));
    expect([run.status, run.transition]).toEqual(['paused', null]);
    run = applyToItem(run, e({ type: 'resumed' }));
    expect([run.status, run.transition]).toEqual(['running', null]);
    run = applyToItem(run, e({ type: 'stop_requested' }));
    run = applyToItem(run, e({ type: 'pause_requested' }));
    expect([run.status, run.transition]).toEqual(['running', 'stopping']);
    run = applyToItem(run, e({ type: 'stopped', stop_reason: 'user_stop' }));
    expect([run.status, run.transition, run.stop_reason]).toEqual(['stopped', null, 'user_stop']);
  });

  it('a usage-limit wait records the reset time; the next iteration clears it', () => {
    seq = 20;
    let run = applyToItem(runItem({ id: 'r' }), e({ type: 'waiting', iteration: 4, until: T + 3_600_000, reason: 'usage_limit' }));
    expect([run.status, run.waiting_until]).toEqual(['waiting', new Date(T + 3_600_000).toISOString()]);
    run = applyToItem(run, e({ type: 'iteration_started', iteration: 5 }));
    expect([run.status, run.waiting_until, run.iterations]).toEqual(['running', null, 5]);
  });

  it('an iteration starting while paused keeps the run paused; extending raises the limit', () => {
    seq = 30;
    const run = applyToItem(runItem({ id: 'r', status: 'paused' }), e({ type: 'iteration_started', iteration: 2 }));
    expect(run.status).toBe('paused');
    expect(applyToItem(run, e({ type: 'limits_changed', max_iterations: 15 })).limits.max_iterations).toBe(15);
  });

  it('asks for a fresh snapshot where the clock starts or stops, after a resume of a paused run (a paused queued run goes back to pending), a rollback or a program event', () => {
    seq = 40;
    expect(needsRefetch({ status: 'pending' }, e({ type: 'run_started' }))).toBe(true);
    expect(needsRefetch({ status: 'running' }, e({ type: 'paused' }))).toBe(true);
    expect(needsRefetch({ status: 'running' }, e({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', iterations: 2, total_ms: 5, cost_usd: 0, cost_unknown: false, tokens_in: 0, tokens_out: 0, consecutive_failures: 0, failure_threshold: 3, max_iterations: null, message: null }))).toBe(true);
    expect(needsRefetch({ status: 'paused' }, e({ type: 'resumed' }))).toBe(true);
    expect(needsRefetch({ status: 'running' }, e({ type: 'resumed' }))).toBe(false);
    expect(needsRefetch({ status: 'stopped' }, e({ type: 'rollback', to_iteration: 2, target_sha: 'abc', commit_sha: null, discarded: [] }))).toBe(true);
    expect(needsRefetch({ status: 'running' }, e({ type: 'program', name: 'tasks', data: {} }))).toBe(true);
    expect(needsRefetch({ status: 'running' }, e({ type: 'warning', message: 'x' }))).toBe(false);
  });
});

describe('applyToDetail', () => {
  it('adds the running iteration row, completes it, counts it to its task, and records checkpoints', () => {
    seq = 50;
    const unit = { id: 't1', title: 'Write the README', iteration: 1, max_iterations: null };
    const start = runDetail({ id: 'r' }, { units: [{ id: 't1', title: 'Write the README', status: 'open', iterations: 0, cost_usd: 0 }] });
    const started = e({ type: 'iteration_started', iteration: 1, log_path: '/logs/1.log', unit });
    let detail = applyToDetail(start, started);
    expect(detail.iterations).toEqual([expect.objectContaining({ number: 1, status: 'running', started_at: new Date(started.time).toISOString(), completed_at: null, log_path: '/logs/1.log', unit_id: 't1' })]);
    expect(detail.run.last_iteration).toBe(1);
    expect(applyToDetail(detail, started).iterations).toHaveLength(1);
    detail = applyToDetail(detail, completed(1, 0.5, 'success', unit));
    expect(detail.iterations[0]).toMatchObject({ number: 1, status: 'success', duration_ms: 900, cost_usd: 0.5, exit_code: 0, cache_read: 5, log_path: '/logs/1.log', started_at: new Date(started.time).toISOString() });
    expect(detail.run.duration_ms).toBe(900);
    expect(detail.units).toEqual([{ id: 't1', title: 'Write the README', status: 'open', iterations: 1, cost_usd: 0.5 }]);
    detail = applyToDetail(detail, e({ type: 'checkpoint_created', iteration: 1, commit_sha: 'abc123', state: 'committed' }));
    expect(detail.checkpoints).toEqual([expect.objectContaining({ iteration: 1, commit_sha: 'abc123', state: 'committed', snapshot: null })]);
  });

  it('completes the row with what the iteration changed, as its event carries it', () => {
    seq = 70;
    let detail = applyToDetail(runDetail({ id: 'r' }), e({ type: 'iteration_started', iteration: 1, log_path: '/logs/1.log', unit: null }));
    expect(detail.iterations[0]).toMatchObject({ files_changed: null, files_changed_total: null, discarded_ref: null });
    const changes = { tree_before: 'a'.repeat(40), tree_after: 'b'.repeat(40), files_changed: [{ path: 'src/a.ts', change: 'added' }], files_changed_total: 1, discarded_ref: 'refs/ringmaster/discarded/r/1' };
    detail = applyToDetail(detail, e({ ...completed(1, 0.5, 'failure'), changes }));
    expect(detail.iterations[0]).toMatchObject(changes);
  });

  it("puts the verify gate's check of a completed iteration in its row (none before it ends, none without a check)", () => {
    seq = 80;
    const verify = { command: 'npm test', passed: false, exit_code: 1, duration_ms: 812, summary: 'exited 1', output_tail: '1 failing\n' };
    let detail = applyToDetail(runDetail({ id: 'r' }), e({ type: 'iteration_started', iteration: 1 }));
    expect(detail.iterations[0]?.verify).toBeNull();
    detail = applyToDetail(detail, e({ type: 'iteration_completed', iteration: 1, outcome: 'failure', duration_ms: 900, exit_code: 0, error_kind: 'verify_failed', verify }));
    expect(detail.iterations[0]).toMatchObject({ status: 'failure', error_kind: 'verify_failed', verify });
    detail = applyToDetail(detail, completed(2, 0.1));
    expect(detail.iterations[1]?.verify).toBeNull();
  });

  it("shows what a running iteration has spent so far, in its row, its task and the run, counted once when it ends", () => {
    seq = 55;
    const unit = { id: 't1', title: 'Write the README', iteration: 1, max_iterations: null };
    let detail = runDetail({ id: 'r', cost_usd: 1 }, { units: [{ id: 't1', title: 'Write the README', status: 'open', iterations: 0, cost_usd: 0 }] });
    detail = applyToDetail(detail, e({ type: 'iteration_started', iteration: 1, log_path: '/logs/1.log', unit }));
    detail = applyToDetail(detail, e({ type: 'cost_so_far', iteration: 1, cost_usd: 0.2, total_cost_usd: 1.2 }));
    detail = applyToDetail(detail, e({ type: 'cost_so_far', iteration: 1, cost_usd: 0.3, total_cost_usd: 1.3 }));
    expect([detail.run.cost_usd, detail.iterations[0]?.cost_usd, detail.units[0]?.cost_usd]).toEqual([1.3, 0.3, 0.3]);
    detail = applyToDetail(detail, completed(1, 0.5, 'success', unit));
    detail = applyToDetail(detail, e({ type: 'cost_incurred', iteration: 1, cost_usd: 0.5, total_cost_usd: 1.5 }));
    expect([detail.run.cost_usd, detail.iterations[0]?.cost_usd, detail.units[0]?.cost_usd]).toEqual([1.5, 0.5, 0.5]);
    // A late report of an iteration that has ended changes nothing but the run's snapshot position.
    expect(applyToDetail(detail, e({ type: 'cost_so_far', iteration: 1, cost_usd: 0.4, total_cost_usd: 1.4 })).iterations[0]?.cost_usd).toBe(0.5);
  });

  it('an event that changes nothing shown returns the same detail (no re-render)', () => {
    seq = 60;
    const detail = runDetail({ id: 'r', last_seq: 70 });
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
  const resumed = (run_id: string, seq: number) => runEvent({ type: 'resumed', run_id, seq, time: T });

  it('applies each run’s next events, skips seen ones; a run after a hole is to be fetched again, an unknown run to be added', () => {
    const runs = [runItem({ id: 'a', last_seq: 3 }), runItem({ id: 'b', last_seq: 1 })];
    const ok = foldIntoList(runs, [started('a', 3, 1), started('a', 4, 2), started('b', 2, 1)]);
    expect([ok.refetch, ok.unknown]).toEqual([new Set(), new Set()]);
    expect(ok.value.map((r) => [r.id, r.last_seq, r.iterations])).toEqual([['a', 4, 2], ['b', 2, 1]]);
    expect(runs[0]?.last_seq).toBe(3);
    const holes = foldIntoList(runs, [started('a', 6, 3), started('zzz', 1, 1)]);
    expect([holes.refetch, holes.unknown]).toEqual([new Set(['a']), new Set(['zzz'])]);
  });

  it('a resume of a paused run is applied and fetched again, except while catching a fresh snapshot up', () => {
    const runs = [runItem({ id: 'a', status: 'paused', last_seq: 3 })];
    expect(foldIntoList(runs, [resumed('a', 4)]).refetch).toEqual(new Set(['a']));
    const caught = foldIntoList(runs, [resumed('a', 4)], true);
    expect([caught.refetch, caught.value[0]?.status]).toEqual([new Set(), 'running']);
  });

  it('a detail takes only its own run’s events', () => {
    const detail = runDetail({ id: 'a', last_seq: 0 });
    const folded = foldIntoDetail(detail, [started('b', 1, 1), started('a', 1, 1)]);
    expect(folded.refetch).toEqual(new Set());
    expect(folded.value.iterations.map((i) => i.number)).toEqual([1]);
    expect(foldIntoDetail(detail, [started('a', 2, 1)]).refetch).toEqual(new Set(['a']));
  });
});
