// The Store contract suite: every Store implementation (SQLite today, PostgreSQL later) runs it unchanged.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AmbiguousRunIdError, OwnershipLostError, RunBusyError, RunEndedError, StoreError } from '../../src/store/errors.js';
import type { IterationEnd, Owner, Store } from '../../src/store/store.js';
import { budgetContract } from './budget-contract.js';

/** A fresh, empty store and how to dispose of it. */
export interface StoreFixture {
  store: Store;
  cleanup(): Promise<void>;
}

const OWNER: Owner = { pid: 4242, host: 'host-a' };
const T0 = Date.UTC(2025, 0, 2, 10, 15, 0);

function end(overrides: Partial<IterationEnd> = {}): IterationEnd {
  return {
    status: 'success',
    exit_code: 0,
    duration_ms: 1000,
    tokens_in: 100,
    tokens_out: 20,
    cache_read: 5,
    cache_write: 1,
    cost_usd: 0.25,
    completion_signal_found: false,
    error_kind: 'none',
    error_message: null,
    session_id: null,
    completed_at: T0 + 1000,
    ...overrides,
  };
}

/** Registers the contract tests for the store made by `makeStore`. */
export function storeContract(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}`, () => {
    let fixture: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      fixture = await makeStore();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });
    budgetContract(() => store);

    async function newRun(id: string, now = T0, owner = OWNER) {
      return store.createRun({ id, agent: 'claude', spec: { prompt: 'PROMPT.md', limits: { max_iterations: 10 } }, workspace: '/w', owner, now });
    }

    it('creates a run with its spec, owner and heartbeat', async () => {
      const run = await newRun('r1');
      expect(run).toEqual({
        id: 'r1',
        status: 'running',
        stop_reason: null,
        agent: 'claude',
        kind: 'prompt',
        origin: 'cli',
        spec: { prompt: 'PROMPT.md', limits: { max_iterations: 10 } },
        meta: {},
        workspace: '/w',
        worktree: null,
        branch: null,
        created_at: T0,
        updated_at: T0,
        ended_at: null,
        owner_pid: 4242,
        owner_host: 'host-a',
        heartbeat_at: T0,
      });
      expect(await store.getRun('r1')).toEqual(run);
      expect(await store.getRun('nope')).toBeNull();
      await expect(newRun('r1')).rejects.toThrow();
    });

    it('records worktree and branch', async () => {
      const run = await store.createRun({
        id: 'wt', agent: 'codex', spec: {}, workspace: '/w', worktree: '/w.ringmaster-worktrees/wt', branch: 'ringmaster/wt', owner: OWNER, now: T0,
      });
      expect([run.worktree, run.branch]).toEqual(['/w.ringmaster-worktrees/wt', 'ringmaster/wt']);
    });

    it('finds a run by a unique id prefix and rejects an ambiguous one', async () => {
      await newRun('abc111');
      await newRun('abc222');
      expect((await store.findRun('abc1'))?.id).toBe('abc111');
      expect((await store.findRun('abc222'))?.id).toBe('abc222');
      expect(await store.findRun('zzz')).toBeNull();
      await expect(store.findRun('abc')).rejects.toBeInstanceOf(AmbiguousRunIdError);
    });

    it('lists runs newest first with totals, filtered by status and limited', async () => {
      await newRun('old', T0);
      await newRun('mid', T0 + 10);
      await newRun('new', T0 + 20);
      await store.startIteration({ run_id: 'mid', number: 1, agent: 'claude', started_at: T0 + 11, log_path: null });
      await store.completeIteration('mid', 1, end({ cost_usd: 0.5 }));
      await store.finishRun('old', { status: 'completed', stop_reason: 'success_signal', now: T0 + 30 });
      const all = await store.listRuns();
      expect(all.map((r) => r.id)).toEqual(['new', 'mid', 'old']);
      expect(all[1]?.totals.iterations).toBe(1);
      expect(all[1]?.totals.cost_usd).toBe(0.5);
      expect((await store.listRuns({ status: 'completed' })).map((r) => r.id)).toEqual(['old']);
      expect((await store.listRuns({ limit: 2 })).map((r) => r.id)).toEqual(['new', 'mid']);
    });

    it('writes an iteration row at start and completes it with every field', async () => {
      await newRun('r1');
      const started = await store.startIteration({ run_id: 'r1', number: 1, agent: 'claude', started_at: T0 + 5, log_path: '/w/.ringmaster/logs/r1/iteration-1.log' });
      expect(started).toMatchObject({ number: 1, status: 'running', started_at: T0 + 5, completed_at: null, cost_usd: null, tokens_in: null, completion_signal_found: false });
      const done = await store.completeIteration('r1', 1, end({
        status: 'complete', exit_code: 0, exit_signal: null, duration_ms: 1234.4, completion_signal_found: true, session_id: 'sess-1', model: 'm1', completed_at: T0 + 1239,
      }));
      expect(done).toEqual({
        run_id: 'r1', number: 1, agent: 'claude', status: 'complete', started_at: T0 + 5, completed_at: T0 + 1239, duration_ms: 1234,
        exit_code: 0, exit_signal: null, tokens_in: 100, tokens_out: 20, cache_read: 5, cache_write: 1, cost_usd: 0.25,
        completion_signal_found: true, failure_signal_found: false, error_kind: 'none', error_message: null,
        session_id: 'sess-1', model: 'm1', log_path: '/w/.ringmaster/logs/r1/iteration-1.log', unit_id: null,
        tree_before: null, tree_after: null, files_changed: null, files_changed_total: null, discarded_ref: null, verify: null,
      });
      expect(await store.listIterations('r1')).toEqual([done]);
      expect(await store.getIteration('r1', 1)).toEqual(done);
      expect(await store.getIteration('r1', 2)).toBeNull();
    });

    it('stores what an iteration changed: trees, the changed paths and their total, the ref of a discarded attempt', async () => {
      await newRun('r1');
      await store.startIteration({ run_id: 'r1', number: 1, agent: 'claude', started_at: T0, log_path: null });
      const changes = {
        tree_before: 'a'.repeat(40),
        tree_after: 'b'.repeat(40),
        files_changed: [{ path: 'src/a.ts', change: 'modified' as const }, { path: 'n e w.txt', change: 'added' as const }, { path: 'old', change: 'deleted' as const }],
        files_changed_total: 1200,
        discarded_ref: 'refs/ringmaster/discarded/r1/1',
      };
      const done = await store.completeIteration('r1', 1, { ...end({ status: 'failure' }), changes });
      expect(done).toMatchObject(changes);
      expect(await store.getIteration('r1', 1)).toMatchObject(changes);
    });

    it("keeps the verify gate's evidence on the iteration row", async () => {
      await newRun('r1');
      await store.startIteration({ run_id: 'r1', number: 1, agent: 'claude', started_at: T0, log_path: null });
      const verify = { command: "npm test -- --grep 'a b'", passed: false, exit_code: 1, duration_ms: 812, summary: 'exited 1', output_tail: '1 failing\n  é ✗\n' };
      const done = await store.completeIteration('r1', 1, end({ status: 'failure', error_kind: 'verify_failed', verify }));
      expect(done.verify).toEqual(verify);
      expect((await store.getIteration('r1', 1))?.verify).toEqual(verify);
    });

    it('rejects a duplicate iteration number and completing a row twice or a missing row', async () => {
      await newRun('r1');
      await store.startIteration({ run_id: 'r1', number: 1, agent: 'claude', started_at: T0, log_path: null });
      await expect(store.startIteration({ run_id: 'r1', number: 1, agent: 'claude', started_at: T0, log_path: null })).rejects.toBeInstanceOf(StoreError);
      await store.completeIteration('r1', 1, end());
      await expect(store.completeIteration('r1', 1, end())).rejects.toThrow('iteration 1 of run r1 is already success');
      await expect(store.completeIteration('r1', 9, end())).rejects.toThrow('run r1 has no iteration 9');
      await expect(store.updateIteration('r1', 1, { tokens_in: 5 })).rejects.toBeInstanceOf(StoreError);
      expect(await store.listIterations('r1')).toHaveLength(1);
    });

    it('keeps failed, timed-out and unknown-cost iterations in the totals', async () => {
      await newRun('r1');
      const rows: Array<Partial<IterationEnd>> = [
        { status: 'failure', exit_code: 1, cost_usd: 0.1, tokens_in: 10, tokens_out: 1, error_kind: 'exit_nonzero', error_message: 'exit 1' },
        { status: 'failure', exit_code: null, exit_signal: 'SIGKILL', cost_usd: 0.2, tokens_in: 20, tokens_out: 2, error_kind: 'iteration_timeout' },
        { status: 'success', cost_usd: null, tokens_in: null, tokens_out: null, cache_read: null, cache_write: null },
        { status: 'failure', cost_usd: 0.3, tokens_in: 30, tokens_out: 3, cache_read: 0, cache_write: 0 },
        { status: 'failure', cost_usd: 0.4, tokens_in: 40, tokens_out: 4, cache_read: 0, cache_write: 0 },
      ];
      for (const [i, row] of rows.entries()) {
        await store.startIteration({ run_id: 'r1', number: i + 1, agent: 'claude', started_at: T0 + i * 1000, log_path: null });
        await store.completeIteration('r1', i + 1, end({ duration_ms: 100, completed_at: T0 + i * 1000 + 100, ...row }));
      }
      const totals = await store.runTotals('r1');
      expect(totals).toMatchObject({
        iterations: 5, last_iteration: 5, cost_usd: 1, cost_unknown: true, tokens_in: 100, tokens_out: 10,
        duration_ms: 500, consecutive_failures: 2,
      });
      const listed = await store.listIterations('r1');
      expect(listed.reduce((sum, r) => sum + (r.cost_usd ?? 0), 0)).toBeCloseTo(totals.cost_usd, 9);
      expect(listed.map((r) => r.error_kind)).toEqual(['exit_nonzero', 'iteration_timeout', 'none', 'none', 'none']);
      expect(listed[1]?.exit_signal).toBe('SIGKILL');
    });

    it('claims an orphaned run: interrupts its running iteration, keeps its partial usage, counts runtime to the last heartbeat', async () => {
      await newRun('r1', T0);
      await store.startIteration({ run_id: 'r1', number: 1, agent: 'claude', started_at: T0 + 100, log_path: null });
      await store.completeIteration('r1', 1, end({ completed_at: T0 + 1100 }));
      await store.startIteration({ run_id: 'r1', number: 2, agent: 'claude', started_at: T0 + 2000, log_path: null });
      await store.updateIteration('r1', 2, { tokens_in: 7, tokens_out: 3, cost_usd: 0.05, session_id: 's2' });
      expect(await store.heartbeat('r1', OWNER, T0 + 4000)).toBe(true);
      // The owner dies here; another process claims the run much later.
      const next: Owner = { pid: 5151, host: 'host-a' };
      const claim = await store.claimRun('r1', next, T0 + 60_000);
      expect(claim.interrupted).toEqual([2]);
      expect(claim.previous).toEqual({ pid: 4242, host: 'host-a', heartbeat_at: T0 + 4000 });
      expect(claim.run).toMatchObject({ status: 'running', owner_pid: 5151, heartbeat_at: T0 + 60_000 });
      const second = await store.getIteration('r1', 2);
      expect(second).toMatchObject({
        status: 'interrupted', error_kind: 'interrupted', completed_at: T0 + 4000, duration_ms: 2000,
        tokens_in: 7, tokens_out: 3, cost_usd: 0.05, session_id: 's2',
      });
      expect(await store.heartbeat('r1', OWNER, T0 + 61_000)).toBe(false);
      expect(await store.heartbeat('r1', next, T0 + 65_000)).toBe(true);
      await expect(store.completeIteration('r1', 2, end())).rejects.toBeInstanceOf(StoreError);
      const totals = await store.runTotals('r1');
      expect(totals).toMatchObject({ iterations: 2, last_iteration: 2, cost_usd: 0.3, runtime_ms: 4000 + 5000 });
    });

    it("claims an orphaned run whose agent was found still running: its iteration and the run's runtime go on until the agent was killed", async () => {
      await newRun('r1', T0);
      await store.startIteration({ run_id: 'r1', number: 1, agent: 'claude', started_at: T0 + 100, log_path: null });
      expect(await store.heartbeat('r1', OWNER, T0 + 4000)).toBe(true);
      // The owner dies here, its agent goes on; the claimer kills it at T0 + 50 s and claims at T0 + 60 s.
      const claim = await store.claimRun('r1', { pid: 5151, host: 'host-a' }, T0 + 60_000, { agentRanUntil: T0 + 50_000 });
      expect(claim.interrupted).toEqual([1]);
      expect(await store.getIteration('r1', 1)).toMatchObject({ status: 'interrupted', completed_at: T0 + 50_000, duration_ms: 49_900 });
      expect((await store.runTotals('r1')).runtime_ms).toBe(50_000);
    });

    it('finishes a run: status, stop reason, end time, owner closed, stray running rows interrupted', async () => {
      await newRun('r1', T0);
      await store.updateRunStatus('r1', 'waiting', T0 + 10);
      expect((await store.getRun('r1'))?.status).toBe('waiting');
      await store.startIteration({ run_id: 'r1', number: 1, agent: 'claude', started_at: T0 + 20, log_path: null });
      const run = await store.finishRun('r1', { status: 'stopped', stop_reason: 'user_stop', now: T0 + 500 });
      expect(run).toMatchObject({ status: 'stopped', stop_reason: 'user_stop', ended_at: T0 + 500, updated_at: T0 + 500, owner_pid: null, heartbeat_at: null });
      expect((await store.getIteration('r1', 1))?.status).toBe('interrupted');
      expect((await store.runTotals('r1')).runtime_ms).toBe(500);
      await expect(store.updateRunStatus('nope', 'running', T0)).rejects.toBeInstanceOf(StoreError);
    });

    it('numbers events per run from 1 and lists them in order', async () => {
      await newRun('a');
      await newRun('b');
      const e1 = await store.appendEvent({ run_id: 'a', type: 'iteration_started', payload: { n: 1 }, at: T0, iteration: 1 });
      await store.appendEvent({ run_id: 'b', type: 'run_started', payload: null, at: T0 });
      const e2 = await store.appendEvent({ run_id: 'a', type: 'text', payload: { text: 'héllo\n' }, at: T0 + 1, iteration: 1 });
      const e3 = await store.appendEvent({ run_id: 'a', type: 'run_finished', payload: { reason: 'max_iterations' }, at: T0 + 2 });
      expect([e1.seq, e2.seq, e3.seq]).toEqual([1, 2, 3]);
      expect(await store.listEvents('a')).toEqual([
        { run_id: 'a', seq: 1, at: T0, type: 'iteration_started', iteration: 1, payload: { n: 1 } },
        { run_id: 'a', seq: 2, at: T0 + 1, type: 'text', iteration: 1, payload: { text: 'héllo\n' } },
        { run_id: 'a', seq: 3, at: T0 + 2, type: 'run_finished', iteration: null, payload: { reason: 'max_iterations' } },
      ]);
      expect((await store.listEvents('a', { afterSeq: 1, limit: 1 })).map((e) => e.seq)).toEqual([2]);
      expect((await store.listEvents('b')).map((e) => e.seq)).toEqual([1]);
    });

    it('records checkpoints and errors', async () => {
      await newRun('r1');
      const c = await store.recordCheckpoint({ run_id: 'r1', iteration: 5, commit_sha: 'a'.repeat(40), state: 'committed', message: '[ringmaster] checkpoint run r1 iteration 5', created_at: T0 });
      await store.recordCheckpoint({ run_id: 'r1', iteration: 10, commit_sha: null, state: 'failed', created_at: T0 + 1 });
      expect(c).toMatchObject({ run_id: 'r1', iteration: 5, state: 'committed' });
      expect((await store.listCheckpoints('r1')).map((r) => [r.iteration, r.state, r.commit_sha])).toEqual([
        [5, 'committed', 'a'.repeat(40)],
        [10, 'failed', null],
      ]);
      await store.recordError({ run_id: 'r1', iteration: 2, kind: 'spawn_failed', message: 'ENOENT', context: { binary: 'claude' }, created_at: T0 });
      await store.recordError({ run_id: 'r1', kind: 'git', message: 'checkpoint failed', created_at: T0 + 1 });
      expect((await store.listErrors('r1')).map((e) => [e.iteration, e.kind, e.message, e.context])).toEqual([
        [2, 'spawn_failed', 'ENOENT', { binary: 'claude' }],
        [null, 'git', 'checkpoint failed', null],
      ]);
    });

    it('answers the metrics queries: cost per run, average iterations to completion, cost by hour', async () => {
      const hour = 3_600_000;
      const h0 = Math.floor(T0 / hour) * hour;
      await newRun('r1', T0);
      await newRun('r2', T0 + 1);
      await newRun('r3', T0 + 2);
      const plan: Array<[string, number, number, number | null, boolean]> = [
        ['r1', 1, h0 + 10, 0.5, false],
        ['r1', 2, h0 + hour + 10, 0.25, true],
        ['r2', 1, h0 + 20, 1, false],
        ['r2', 2, h0 + 30, 1, false],
        ['r2', 3, h0 + 2 * hour, null, false],
        ['r2', 4, h0 + 2 * hour + 5, 2, true],
      ];
      for (const [run, n, at, cost, signal] of plan) {
        await store.startIteration({ run_id: run, number: n, agent: 'claude', started_at: at, log_path: null });
        await store.completeIteration(run, n, end({ cost_usd: cost, completion_signal_found: signal, completed_at: at + 1 }));
      }
      const stats = await store.stats();
      expect(stats.cost_per_run).toEqual([
        { run_id: 'r3', status: 'running', iterations: 0, cost_usd: 0, cost_unknown: false },
        { run_id: 'r2', status: 'running', iterations: 4, cost_usd: 4, cost_unknown: true },
        { run_id: 'r1', status: 'running', iterations: 2, cost_usd: 0.75, cost_unknown: false },
      ]);
      expect(stats.avg_iterations_to_completion).toBe(3);
      expect(stats.completed_runs).toBe(2);
      expect(stats.cost_by_hour).toEqual([
        { hour: h0, iterations: 3, cost_usd: 2.5, cost_unknown: false },
        { hour: h0 + hour, iterations: 1, cost_usd: 0.25, cost_unknown: false },
        // r2's iteration 3 has no known cost: the hour's $2 is a lower bound.
        { hour: h0 + 2 * hour, iterations: 2, cost_usd: 2, cost_unknown: true },
      ]);
      expect([stats.total_cost_usd, stats.total_iterations]).toEqual([4.75, 6]);
      const one = await store.stats({ runId: 'r1' });
      expect([one.cost_per_run.length, one.avg_iterations_to_completion, one.total_cost_usd]).toEqual([1, 2, 0.75]);
      await store.createRun({ id: 'elsewhere', agent: 'claude', spec: {}, workspace: '/other', owner: OWNER, now: T0 + 3 });
      await store.startIteration({ run_id: 'elsewhere', number: 1, agent: 'claude', started_at: h0, log_path: null });
      await store.completeIteration('elsewhere', 1, end({ cost_usd: 7, completed_at: h0 + 1 }));
      const mine = await store.stats({ workspace: '/w' });
      expect([mine.cost_per_run.length, mine.total_cost_usd, mine.total_iterations]).toEqual([3, 4.75, 6]);
      expect((await store.stats()).total_cost_usd).toBe(11.75);
    });

    it('answers the Prometheus figures with aggregate queries: runs by status, iterations by agent and outcome, durations', async () => {
      await store.createRun({ id: 'm1', agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: T0 });
      await store.createRun({ id: 'm2', agent: 'codex', spec: {}, workspace: '/w', status: 'pending', owner: OWNER, now: T0 });
      await store.finishRun('m1', { status: 'completed', stop_reason: 'success_signal', now: T0 + 9 });
      await store.createRun({ id: 'm3', agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: T0 });
      const plan: Array<[string, number, string, IterationEnd['status'], number]> = [
        ['m1', 1, 'claude', 'failure', 800],
        ['m1', 2, 'claude', 'success', 4000],
        ['m3', 1, 'codex', 'success', 7_200_001],
      ];
      for (const [run, n, agent, status, ms] of plan) {
        await store.startIteration({ run_id: run, number: n, agent, started_at: T0, log_path: null });
        await store.completeIteration(run, n, end({ status, duration_ms: ms }));
      }
      await store.startIteration({ run_id: 'm3', number: 2, agent: 'codex', started_at: T0, log_path: null });
      const m = await store.metrics();
      const byStatus = Object.fromEntries(m.runs_by_status.map((r) => [r.status, r.count]));
      expect(byStatus).toEqual({ completed: 1, pending: 1, running: 1 });
      const sorted = [...m.iterations].sort((a, b) => `${a.agent}${a.outcome}`.localeCompare(`${b.agent}${b.outcome}`));
      expect(sorted).toEqual([
        { agent: 'claude', outcome: 'failure', count: 1, cost_usd: 0.25, tokens_in: 100, tokens_out: 20, cache_read: 5, cache_write: 1 },
        { agent: 'claude', outcome: 'success', count: 1, cost_usd: 0.25, tokens_in: 100, tokens_out: 20, cache_read: 5, cache_write: 1 },
        { agent: 'codex', outcome: 'running', count: 1, cost_usd: 0, tokens_in: 0, tokens_out: 0, cache_read: 0, cache_write: 0 },
        { agent: 'codex', outcome: 'success', count: 1, cost_usd: 0.25, tokens_in: 100, tokens_out: 20, cache_read: 5, cache_write: 1 },
      ]);
      const durations = [...m.durations].sort((a, b) => a.agent.localeCompare(b.agent));
      expect(durations).toEqual([
        { agent: 'claude', count: 2, sum_seconds: 4.8, buckets: [1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2] },
        { agent: 'codex', count: 1, sum_seconds: 7200.001, buckets: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] },
      ]);
    });

    it('stores a run kind and program metadata, and iteration units', async () => {
      const run = await store.createRun({ id: 't', agent: 'claude', kind: 'tasks', meta: { task: 'A-1' }, spec: {}, workspace: '/w', owner: OWNER, now: T0 });
      expect([run.kind, run.meta]).toEqual(['tasks', { task: 'A-1' }]);
      await store.updateRunMeta('t', { task: 'A-2', done: ['A-1'] }, T0 + 5);
      expect(await store.getRun('t')).toMatchObject({ meta: { task: 'A-2', done: ['A-1'] }, updated_at: T0 + 5 });
      await expect(store.updateRunMeta('nope', {}, T0)).rejects.toBeInstanceOf(StoreError);
      await store.updateRunSpec('t', { limits: { maxIterations: 12 } }, T0 + 6);
      expect(await store.getRun('t')).toMatchObject({ spec: { limits: { maxIterations: 12 } }, updated_at: T0 + 6 });
      await expect(store.updateRunSpec('nope', {}, T0)).rejects.toBeInstanceOf(StoreError);
      const row = await store.startIteration({ run_id: 't', number: 1, agent: 'claude', started_at: T0, log_path: null, unit_id: 'A-2' });
      expect(row.unit_id).toBe('A-2');
    });

    it("stores a program's definition apart from its metadata: at creation, replaced, fenced, absent for other runs", async () => {
      await store.createRun({ id: 'w', agent: 'claude', kind: 'workflow', meta: { step: 1 }, definition: { steps: [{ name: 'plan' }] }, spec: {}, workspace: '/w', owner: OWNER, now: T0 });
      expect(await store.getRunDefinition('w')).toEqual({ steps: [{ name: 'plan' }] });
      expect((await store.getRun('w'))?.meta).toEqual({ step: 1 });
      await store.updateRunDefinition('w', { steps: [{ name: 'plan' }, { name: 'review' }] }, T0 + 1, OWNER);
      expect(await store.getRunDefinition('w')).toEqual({ steps: [{ name: 'plan' }, { name: 'review' }] });
      await store.createRun({ id: 'p', agent: 'claude', spec: {}, workspace: '/w', owner: null, now: T0 });
      expect(await store.getRunDefinition('p')).toBeNull();
      await store.updateRunDefinition('p', { later: true }, T0 + 2);
      expect(await store.getRunDefinition('p')).toEqual({ later: true });
      await expect(store.updateRunDefinition('nope', {}, T0)).rejects.toBeInstanceOf(StoreError);
      await store.claimRun('w', { pid: 5151, host: 'host-b' }, T0 + 3);
      await expect(store.updateRunDefinition('w', { stale: true }, T0 + 4, OWNER)).rejects.toBeInstanceOf(OwnershipLostError);
      expect(await store.getRunDefinition('w')).toEqual({ steps: [{ name: 'plan' }, { name: 'review' }] });
    });

    it('filters runs by workspace, several statuses and text, with offset and a count', async () => {
      await store.createRun({ id: 'run-a', agent: 'claude', spec: { label: 'Fix the Parser' }, workspace: '/w1', owner: OWNER, now: T0 });
      await store.createRun({ id: 'run-b', agent: 'codex', spec: { label: 'docs' }, workspace: '/w2', owner: OWNER, now: T0 + 1 });
      await store.createRun({ id: 'run-c', agent: 'claude', spec: { label: 'parser tests' }, workspace: '/w1', status: 'pending', owner: OWNER, now: T0 + 2 });
      await store.finishRun('run-b', { status: 'failed', stop_reason: 'fatal_error', now: T0 + 3 });
      const ids = async (filter: Parameters<Store['listRuns']>[0]) => (await store.listRuns(filter)).map((r) => r.id);
      expect(await ids({ workspace: '/w1' })).toEqual(['run-c', 'run-a']);
      expect(await ids({ status: ['pending', 'failed'] })).toEqual(['run-c', 'run-b']);
      expect(await ids({ text: 'PARSER' })).toEqual(['run-c', 'run-a']);
      expect(await ids({ text: 'w2' })).toEqual(['run-b']);
      expect(await ids({ offset: 1, limit: 1 })).toEqual(['run-b']);
      expect(await ids({ status: [] })).toEqual([]);
      expect(await store.countRuns({ workspace: '/w1' })).toBe(2);
      expect(await store.countRuns({ limit: 1 })).toBe(3);
    });

    it('writes events with the seq their run owner gave them, refuses a duplicate, and lists every run after a global id', async () => {
      await newRun('a');
      await newRun('b');
      expect(await store.lastEventSeq('a')).toBe(0);
      const start = await store.lastEventId();
      await store.appendEvent({ run_id: 'a', seq: 1, type: 'run_started', payload: { seq: 1 }, at: T0 });
      await store.appendEvent({ run_id: 'b', seq: 1, type: 'run_started', payload: { seq: 1 }, at: T0 + 1 });
      await store.appendEvent({ run_id: 'a', seq: 2, type: 'iteration_started', payload: { seq: 2 }, at: T0 + 2, iteration: 1 });
      await expect(store.appendEvent({ run_id: 'a', seq: 2, type: 'x', payload: null, at: T0 })).rejects.toBeInstanceOf(StoreError);
      expect(await store.lastEventSeq('a')).toBe(2);
      const after = await store.listEventsAfterId(start, 10);
      expect(after.map((e) => [e.run_id, e.seq, e.type])).toEqual([['a', 1, 'run_started'], ['b', 1, 'run_started'], ['a', 2, 'iteration_started']]);
      expect(after.map((e) => e.id)).toEqual([...after.map((e) => e.id)].sort((x, y) => x - y));
      expect((await store.listEventsAfterId(after[0]?.id ?? 0, 1)).map((e) => [e.run_id, e.seq])).toEqual([['b', 1]]);
      expect(await store.lastEventId()).toBe(after[2]?.id);
    });

    it('appends a batch of events in one transaction: all of them, or none when one seq is taken', async () => {
      await newRun('a');
      await store.appendEvents([]);
      await store.appendEvents([
        { run_id: 'a', seq: 1, type: 'run_started', payload: { n: 1 }, at: T0 },
        { run_id: 'a', seq: 2, type: 'iteration_started', payload: { n: 2 }, at: T0 + 1, iteration: 1 },
      ]);
      await expect(
        store.appendEvents([
          { run_id: 'a', seq: 3, type: 'warning', payload: null, at: T0 + 2 },
          { run_id: 'a', seq: 2, type: 'duplicate', payload: null, at: T0 + 3 },
        ]),
      ).rejects.toBeInstanceOf(StoreError);
      expect((await store.listEvents('a')).map((e) => [e.seq, e.type, e.iteration, e.payload])).toEqual([
        [1, 'run_started', null, { n: 1 }],
        [2, 'iteration_started', 1, { n: 2 }],
      ]);
    });

    it('writes the events an iteration write carries after its row, and none when the row is refused', async () => {
      await newRun('a');
      const ev = (seq: number, type: string) => ({ run_id: 'a', seq, type, payload: { seq }, at: T0 + seq, iteration: 1 });
      await store.startIteration({ run_id: 'a', number: 1, agent: 'claude', started_at: T0, log_path: null }, OWNER, [ev(1, 'iteration_started')]);
      await store.updateIteration('a', 1, { cost_usd: 0.5 }, OWNER, [ev(2, 'text'), ev(3, 'cost_so_far')]);
      await store.updateIteration('a', 1, {}, OWNER, [ev(4, 'text')]);
      const row = await store.completeIteration('a', 1, end(), OWNER, [ev(5, 'iteration_completed')]);
      expect(row.status).toBe('success');
      await expect(store.startIteration({ run_id: 'a', number: 1, agent: 'claude', started_at: T0, log_path: null }, OWNER, [ev(6, 'x')])).rejects.toBeInstanceOf(StoreError);
      await expect(store.completeIteration('a', 1, end(), OWNER, [ev(6, 'y')])).rejects.toBeInstanceOf(StoreError);
      await expect(store.updateIteration('a', 1, { cost_usd: 1 }, OWNER, [ev(6, 'z')])).rejects.toBeInstanceOf(StoreError);
      await expect(store.completeIteration('a', 1, end(), { pid: 1, host: 'other' }, [ev(6, 'w')])).rejects.toBeInstanceOf(OwnershipLostError);
      expect((await store.listEvents('a')).map((e) => [e.seq, e.type, e.iteration, e.payload])).toEqual(
        ['iteration_started', 'text', 'cost_so_far', 'text', 'iteration_completed'].map((type, i) => [i + 1, type, 1, { seq: i + 1 }]),
      );
      expect((await store.getIteration('a', 1))?.cost_usd).toBe(0.25);
    });

    it('writes a batch again after a lost answer: what was stored stands, the rest is added, nothing twice', async () => {
      await newRun('a');
      const first = { run_id: 'a', seq: 1, type: 'run_started', payload: { n: 1 }, at: T0 };
      const second = { run_id: 'a', seq: 2, type: 'iteration_started', payload: { n: 2 }, at: T0 + 1, iteration: 1 };
      const third = { run_id: 'a', seq: 3, type: 'warning', payload: { n: 3 }, at: T0 + 2 };
      // The first attempt of [1, 2] was written but its answer lost; the recorder sends [1, 2] again with [3].
      const stored = await store.appendEvents([first, second], OWNER);
      const again = await store.appendEvents([first, second, third], OWNER);
      expect(again.slice(0, 2)).toEqual(stored);
      expect((await store.listEvents('a')).map((e) => [e.seq, e.type, e.payload])).toEqual([
        [1, 'run_started', { n: 1 }],
        [2, 'iteration_started', { n: 2 }],
        [3, 'warning', { n: 3 }],
      ]);
      // Another event under a stored seq is a real duplicate: refused, nothing of its batch written.
      await expect(store.appendEvents([{ ...third, seq: 4 }, { ...third, seq: 3, type: 'other' }], OWNER)).rejects.toBeInstanceOf(StoreError);
      expect(await store.lastEventSeq('a')).toBe(3);
    });

    it('keeps control requests until the owner answers them', async () => {
      await newRun('a');
      await newRun('b');
      const pause = await store.requestControl({ run_id: 'a', action: 'pause', requested_by: 'user', requested_at: T0 });
      await store.requestControl({ run_id: 'b', action: 'stop', options: { why: 'budget' }, requested_at: T0 + 1 });
      expect(pause).toEqual({ id: pause.id, run_id: 'a', action: 'pause', options: {}, requested_by: 'user', requested_at: T0, handled_at: null, result: null });
      expect((await store.pendingControls()).map((c) => [c.run_id, c.action, c.options])).toEqual([['a', 'pause', {}], ['b', 'stop', { why: 'budget' }]]);
      expect((await store.pendingControls('b')).map((c) => c.action)).toEqual(['stop']);
      await store.markControlHandled(pause.id, T0 + 2, 'accepted');
      await store.markControlHandled(pause.id, T0 + 3, 'twice');
      expect(await store.getControl(pause.id)).toMatchObject({ handled_at: T0 + 2, result: 'accepted' });
      expect((await store.pendingControls()).map((c) => c.run_id)).toEqual(['b']);
      expect(await store.getControl(999_999)).toBeNull();
      await expect(store.requestControl({ run_id: 'nope', action: 'stop', requested_at: T0 })).rejects.toBeInstanceOf(StoreError);
    });

    it('stores the loop snapshot with a checkpoint', async () => {
      await newRun('r1');
      const snapshot = { iteration: 5, status: 'running', total_cost_usd: 1.5 };
      const c = await store.recordCheckpoint({ run_id: 'r1', iteration: 5, commit_sha: 'b'.repeat(40), state: 'committed', snapshot, created_at: T0 });
      expect(c.snapshot).toEqual(snapshot);
      expect((await store.listCheckpoints('r1'))[0]?.snapshot).toEqual(snapshot);
    });
      it('queues a run with no owner: pending, not driven, taken by the first claim', async () => {
      const run = await store.createRun({ id: 'q1', agent: 'claude', spec: {}, workspace: 'git@example.com:r.git', status: 'pending', origin: 'queue', owner: null, now: T0 });
      expect(run).toMatchObject({ status: 'pending', origin: 'queue', owner_pid: null, owner_host: null, heartbeat_at: null });
      const claim = await store.claimRun('q1', OWNER, T0 + 5, { ifIdleMs: 60_000 });
      expect(claim.previous).toBeNull();
      expect(claim.run).toMatchObject({ status: 'running', owner_pid: 4242, heartbeat_at: T0 + 5 });
      expect((await store.runTotals('q1')).runtime_ms).toBe(0);
    });

    it('claims only a run that can go on when asked: active, or stopped because its process went away', async () => {
      await newRun('stopped');
      await store.finishRun('stopped', { status: 'stopped', stop_reason: 'user_stop', now: T0 + 1 });
      await expect(store.claimRun('stopped', OWNER, T0 + 2, { onlyIfResumable: true })).rejects.toBeInstanceOf(RunEndedError);
      expect(await store.getRun('stopped')).toMatchObject({ status: 'stopped', stop_reason: 'user_stop', owner_pid: null });
      await newRun('crashed');
      await store.finishRun('crashed', { status: 'stopped', stop_reason: 'interrupted', now: T0 + 1 });
      expect((await store.claimRun('crashed', OWNER, T0 + 2, { onlyIfResumable: true })).run).toMatchObject({ status: 'running', stop_reason: null, ended_at: null });
      // Without the option a claim reopens any run (ringmaster resume of a limit-ended run).
      expect((await store.claimRun('stopped', OWNER, T0 + 3)).run.status).toBe('running');
    });

    it('fences writes made for an owner that lost the run: they fail and change nothing; the new owner writes', async () => {
      await newRun('r1');
      await store.appendEvents([{ run_id: 'r1', seq: 1, type: 'run_started', payload: {}, at: T0 }], OWNER);
      await store.startIteration({ run_id: 'r1', number: 1, agent: 'claude', started_at: T0 + 1, log_path: null }, OWNER);
      const next: Owner = { pid: 5151, host: 'host-b' };
      await store.claimRun('r1', next, T0 + 100);
      const lost = [
        () => store.appendEvents([{ run_id: 'r1', seq: 2, type: 'iteration_completed', payload: {}, at: T0 + 2 }], OWNER),
        () => store.appendEvent({ run_id: 'r1', seq: 2, type: 'x', payload: {}, at: T0 + 2 }, OWNER),
        () => store.completeIteration('r1', 1, end(), OWNER),
        () => store.startIteration({ run_id: 'r1', number: 2, agent: 'claude', started_at: T0 + 3, log_path: null }, OWNER),
        () => store.updateIteration('r1', 1, { tokens_in: 1 }, OWNER),
        () => store.updateRunStatus('r1', 'paused', T0 + 4, OWNER),
        () => store.updateRunMeta('r1', { stale: true }, T0 + 4, OWNER),
        () => store.updateRunSpec('r1', { stale: true }, T0 + 4, OWNER),
        () => store.recordCheckpoint({ run_id: 'r1', iteration: 1, commit_sha: null, state: 'failed', created_at: T0 + 5 }, OWNER),
        () => store.recordError({ run_id: 'r1', kind: 'x', message: 'stale', created_at: T0 + 5 }, OWNER),
        () => store.finishRun('r1', { status: 'stopped', stop_reason: 'interrupted', now: T0 + 6 }, OWNER),
      ];
      for (const write of lost) await expect(write()).rejects.toBeInstanceOf(OwnershipLostError);
      expect(await store.getRun('r1')).toMatchObject({ status: 'running', owner_pid: 5151, spec: { prompt: 'PROMPT.md' }, meta: {} });
      expect((await store.listEvents('r1')).map((e) => e.seq)).toEqual([1]);
      expect((await store.listIterations('r1')).map((i) => [i.number, i.status])).toEqual([[1, 'interrupted']]);
      expect([await store.listCheckpoints('r1'), await store.listErrors('r1')]).toEqual([[], []]);
      await store.appendEvents([{ run_id: 'r1', seq: 2, type: 'run_started', payload: {}, at: T0 + 101 }], next);
      await store.startIteration({ run_id: 'r1', number: 2, agent: 'claude', started_at: T0 + 102, log_path: null }, next);
      await store.completeIteration('r1', 2, end({ completed_at: T0 + 103 }), next);
      await store.updateRunMeta('r1', { fresh: true }, T0 + 104, next);
      expect(await store.finishRun('r1', { status: 'completed', stop_reason: 'success_signal', now: T0 + 105 }, next)).toMatchObject({ status: 'completed', meta: { fresh: true } });
      await expect(store.appendEvent({ run_id: 'r1', seq: 3, type: 'x', payload: {}, at: T0 + 106 }, next)).rejects.toBeInstanceOf(OwnershipLostError);
    });

    it('claims only an idle run when asked, judging the lease by its own clock whatever the owner says the time is', async () => {
      // The owner's clock is an hour behind: its heartbeat times mean nothing to the store's lease.
      await newRun('r1', T0 - 3_600_000);
      expect(await store.heartbeat('r1', OWNER, T0 - 3_599_000)).toBe(true);
      const next: Owner = { pid: 5151, host: 'host-b' };
      const busy = (await store.claimRun('r1', next, T0, { ifIdleMs: 60_000 }).catch((e: unknown) => e)) as RunBusyError;
      expect(busy).toBeInstanceOf(RunBusyError);
      expect(busy.idleMs).toBeGreaterThanOrEqual(0);
      expect(busy.idleMs).toBeLessThan(60_000);
      expect((await store.getRun('r1'))?.owner_pid).toBe(4242);
      await new Promise((r) => setTimeout(r, 250));
      // A fenced write renews the lease too.
      await store.updateRunStatus('r1', 'waiting', T0, OWNER);
      await expect(store.claimRun('r1', next, T0, { ifIdleMs: 200 })).rejects.toBeInstanceOf(RunBusyError);
      await new Promise((r) => setTimeout(r, 250));
      const claim = await store.claimRun('r1', next, T0 + 1, { ifIdleMs: 200, status: 'paused' });
      expect(claim.run).toMatchObject({ owner_pid: 5151, status: 'paused' });
      expect(claim.previous?.pid).toBe(4242);
    });

    it('releases a run to the next claimer without ending it', async () => {
      await newRun('r1');
      await store.updateRunStatus('r1', 'waiting', T0 + 1);
      expect(await store.releaseRun('r1', { pid: 1, host: 'nobody' }, T0 + 2)).toBe(false);
      expect(await store.releaseRun('r1', OWNER, T0 + 500)).toBe(true);
      expect(await store.getRun('r1')).toMatchObject({ status: 'waiting', ended_at: null, owner_pid: null });
      expect(await store.heartbeat('r1', OWNER, T0 + 501)).toBe(false);
      expect((await store.runTotals('r1')).runtime_ms).toBe(500);
      const claim = await store.claimRun('r1', { pid: 5151, host: 'host-b' }, T0 + 600, { ifIdleMs: 60_000 });
      expect(claim.previous).toBeNull();
    });

    it('appends a batch of events in order, all or none', async () => {
      await newRun('a');
      expect(await store.appendEvents([])).toEqual([]);
      const rows = await store.appendEvents([1, 2, 3].map((seq) => ({ run_id: 'a', seq, type: `e${seq}`, payload: { seq }, at: T0 + seq, iteration: seq === 2 ? 1 : null })));
      expect(rows.map((r) => [r.seq, r.type, r.iteration])).toEqual([[1, 'e1', null], [2, 'e2', 1], [3, 'e3', null]]);
      const ids = (await store.listEventsAfterId(0, 10)).map((e) => e.id);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      await expect(store.appendEvents([4, 3].map((seq) => ({ run_id: 'a', seq, type: 'dup', payload: null, at: T0 + 9 })))).rejects.toBeInstanceOf(StoreError);
      expect((await store.listEvents('a')).map((e) => e.type)).toEqual(['e1', 'e2', 'e3']);
    });
  });
}
