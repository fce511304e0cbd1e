// Parallel task runs (tasks.parallelism: 2) through the built CLI with the scripted task agent in real git
// repositories: tasks at once in their own worktrees (proved without timing: each agent waits for a file the other
// writes), merged back in the order they started, a conflicting pair, dependencies, the run's budget, on_failure,
// and the fallback outside git. Every iteration is an ordinary iteration of the one run.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { findTagged, runTagMatcher } from '../../src/os/process-tag.js';
import { alive } from '../helpers/proc.js';
import { sh } from '../git/git-repo.js';
import { at, bCompleteAWaiting, branches, COMPLETE, expectMergedInOrder, meeting, PARALLEL, startRun, tipSubject, twoTasks, until } from './parallel-harness.js';
import { events, iterations, ofType, tasksJsonl, TASK_CLAUDE_BIN, useTaskWorkspaces } from './task-run-harness.js';

const workspace = useTaskWorkspaces();

it('two independent tasks run at once in their own worktrees; B completes first but merges after A, in the order they started', { timeout: 90_000 }, async () => {
  const ws = twoTasks(workspace);
  const run = await bCompleteAWaiting(ws);
  const runId = run.runId();
  // B is complete on its branch, yet not merged: A started first and is still running.
  expect(sh(ws.dir, ['log', '--format=%s', 'HEAD']).trim().split('\n')).not.toContain('[ringmaster] B: second');
  ws.openGate('A', 2);
  expect(await run.closed).toBe(0);
  const all = events(run.stdout());
  expect(ofType(all, 'task_started').map((e) => [e.task_id, e.resumed, e.tasks_started, e.branch, e.worktree])).toEqual([
    ['A', false, 1, `ringmaster/${runId}-A`, `${ws.dir}.ringmaster-worktrees/${runId}-A`],
    ['B', false, 2, `ringmaster/${runId}-B`, `${ws.dir}.ringmaster-worktrees/${runId}-B`],
  ]);
  // Iterations are numbered as they start; B's only iteration completed before A's second.
  expect(iterations(all).sort((x, y) => x[0] - y[0])).toEqual([[1, 'A', 1, 'success', 'none'], [2, 'B', 1, 'complete', 'none'], [3, 'A', 2, 'complete', 'none']]);
  expect(at(all, (e) => e.type === 'iteration_completed' && e.iteration === 2)).toBeLessThan(at(all, (e) => e.type === 'iteration_completed' && e.iteration === 3));
  expect(ofType(all, 'task_completed').map((e) => [e.task_id, e.iterations, e.commit_sha?.length])).toEqual([['A', 2, 40], ['B', 1, 40]]);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', stop_reason: 'success_signal', iterations: 3, message: 'every task is done (2 done and 0 blocked by this run)' });
  // Each agent worked in its own worktree, never in the workspace.
  const cwd = Object.fromEntries(ws.calls().map((c) => [`${c.task}${c.iteration}`, c.cwd]));
  expect(cwd).toEqual({ A1: `${ws.dir}.ringmaster-worktrees/${runId}-A`, A2: `${ws.dir}.ringmaster-worktrees/${runId}-A`, B1: `${ws.dir}.ringmaster-worktrees/${runId}-B` });
  expectMergedInOrder(ws, runId);
  // progress.jsonl: each task's lines together, written by the run when the task ended.
  expect(ws.jsonl('progress.jsonl').map((p) => [p.task_id, p.event, p.iteration ?? null, p.run_iteration ?? null])).toEqual([
    ['A', 'task_started', null, null], ['A', 'iteration', 1, 1], ['A', 'iteration', 2, 3], ['A', 'task_completed', null, null],
    ['B', 'task_started', null, null], ['B', 'iteration', 1, 2], ['B', 'task_completed', null, null],
  ]);
  expect(ws.jsonl('learning.jsonl').map((l) => [l.task_id, l.status, l.iterations])).toEqual([['A', 'done', 2], ['B', 'done', 1]]);
  // A's second prompt had its first iteration's note, which was not in progress.jsonl yet.
  expect(ws.prompt('A', 2)).toContain('## Progress so far on this task\n- iteration 1: continue\n');
  // The run, its iterations and tasks as `show` tells them.
  const show = JSON.parse((await ws.cli(['show', runId, '--json'])).stdout) as { run: { status: string; kind: string; meta: { done: string[]; lanes: unknown[] } }; iterations: Array<{ number: number; unit_id: string; status: string }> };
  expect(show.run).toMatchObject({ status: 'completed', kind: 'tasks', meta: { done: ['A', 'B'], lanes: [] } });
  expect(show.iterations.map((i) => [i.number, i.unit_id, i.status])).toEqual([[1, 'A', 'success'], [2, 'B', 'complete'], [3, 'A', 'complete']]);
  expect(existsSync(join(ws.dir, 'progress.jsonl'))).toBe(true);
});

it('a conflicting pair: the task started first merges, the other is blocked with its branch kept', { timeout: 90_000 }, async () => {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'left', priority: 2 }, { id: 'B', title: 'right', priority: 1 }), 'shared.txt': 'original\n' });
  ws.script({
    A: [meeting(ws, 'B', { write: { 'shared.txt': 'by A\n' }, say: COMPLETE })],
    B: [meeting(ws, 'A', { write: { 'shared.txt': 'by B\n', 'b-only.txt': 'b\n' }, say: COMPLETE })],
  });
  const r = await ws.cli(['tasks', 'run', '--agent-command', ws.agentCommand, '--json'], PARALLEL);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(2);
  const all = events(r.stdout);
  const runId = all[0]?.run_id ?? '';
  const branch = `ringmaster/${runId}-B`;
  const reason = `merge conflict in shared.txt with the work merged since the task started; its work is kept on branch ${branch}`;
  expect(ofType(all, 'task_completed').map((e) => e.task_id)).toEqual(['A']);
  expect(ofType(all, 'task_blocked').map((e) => [e.task_id, e.reason, e.failed_branch, e.rolled_back_to, e.iterations])).toEqual([['B', reason, branch, null, 1]]);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', stop_reason: 'stalled', message: 'no task can run (blocked: B); 1 done and 1 blocked by this run' });
  // The workspace has A's work only; B's is on its branch, whole.
  expect(ws.read('shared.txt')).toBe('by A\n');
  expect(existsSync(join(ws.dir, 'b-only.txt'))).toBe(false);
  expect(branches(ws.dir)).toEqual(['main', branch]);
  expect(tipSubject(ws.dir, branch)).toBe('[ringmaster] B: right');
  expect([sh(ws.dir, ['show', `${branch}:shared.txt`]), sh(ws.dir, ['show', `${branch}:b-only.txt`])]).toEqual(['by B\n', 'b\n']);
  expect(ws.read('tasks.jsonl')).toBe(tasksJsonl({ id: 'A', title: 'left', priority: 2, status: 'done' }, { id: 'B', title: 'right', priority: 1, status: 'blocked', blocker: reason }));
  expect(sh(ws.dir, ['log', '--first-parent', '--format=%s', 'HEAD']).trim().split('\n')).toEqual([
    `[ringmaster] B: right (blocked: ${reason})`,
    '[ringmaster] A: left',
    `[ringmaster] B: right (started on ${branch})`,
    `[ringmaster] A: left (started on ringmaster/${runId}-A)`,
    'initial',
  ]);
  expect(sh(ws.dir, ['status', '--porcelain']).trim()).toBe('');
  expect(sh(ws.dir, ['worktree', 'list', '--porcelain']).match(/^worktree /gm)).toHaveLength(1);
  expect(ws.jsonl('progress.jsonl').filter((p) => p.task_id === 'B').map((p) => [p.event, p.failed_branch ?? null])).toEqual([['task_started', null], ['iteration', null], ['task_blocked', branch]]);
  expect(ws.jsonl('learning.jsonl').map((l) => [l.task_id, l.status])).toEqual([['A', 'done'], ['B', 'blocked']]);
});

it('a dependent task waits for its dependency to be merged, not just complete', { timeout: 90_000 }, async () => {
  const ws = workspace({
    'tasks.jsonl': tasksJsonl({ id: 'B', title: 'slow', priority: 3 }, { id: 'A', title: 'quick', priority: 2 }, { id: 'C', title: 'needs A', priority: 1, dependsOn: ['A'] }),
  });
  ws.script({ B: [{ write: { 'b.txt': 'b\n' }, gate: true, say: COMPLETE }], A: [{ write: { 'a.txt': 'a\n' }, say: COMPLETE }], C: [{ write: { 'c.txt': 'c\n' }, say: COMPLETE }] });
  const run = startRun(ws);
  // A is complete on its branch; it merges after B (started first), which waits at its gate: C cannot start, though a slot is free.
  await until(() => run.stdout() !== '' && tipSubject(ws.dir, `ringmaster/${run.runId()}-A`) === '[ringmaster] A: quick');
  expect(ws.calls().map((c) => c.task).sort()).toEqual(['A', 'B']);
  expect(ws.read('tasks.jsonl')).toContain('{"id":"A","title":"quick","priority":2,"status":"in_progress"}');
  ws.openGate('B', 1);
  expect(await run.closed).toBe(0);
  const all = events(run.stdout());
  expect(ofType(all, 'task_started').map((e) => e.task_id)).toEqual(['B', 'A', 'C']);
  expect(ofType(all, 'task_completed').map((e) => e.task_id)).toEqual(['B', 'A', 'C']);
  expect(at(all, (e) => e.type === 'task_started' && e.task_id === 'C')).toBeGreaterThan(at(all, (e) => e.type === 'task_completed' && e.task_id === 'A'));
  // C's worktree started from the commit with A (and B) merged.
  const base = ofType(all, 'task_started').find((e) => e.task_id === 'C')?.base ?? '';
  expect([sh(ws.dir, ['show', `${base}:a.txt`]), sh(ws.dir, ['show', `${base}:b.txt`])]).toEqual(['a\n', 'b\n']);
  expect(all.at(-1)).toMatchObject({ stop_reason: 'success_signal', message: 'every task is done (3 done and 0 blocked by this run)' });
});

it("the run's budget holds across parallel tasks: their costs add up, and reaching it stops them all", { timeout: 90_000 }, async () => {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'costly', priority: 2 }, { id: 'B', title: 'costly too', priority: 1 }) });
  ws.script({
    A: [meeting(ws, 'B', { cost: 0.6, say: 'part' }), { hang: true }],
    B: [meeting(ws, 'A', { cost: 0.6, say: 'part' }), { hang: true }],
  });
  const r = await ws.cli(['tasks', 'run', '--agent', 'claude', '--max-cost', '1', '--json'], { ...PARALLEL, PATH: `${TASK_CLAUDE_BIN}:${process.env.PATH ?? ''}` });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(2);
  const all = events(r.stdout);
  const runId = all[0]?.run_id ?? '';
  // Each task's first iteration cost $0.60: whichever ended first had its next iteration started, which the budget then stopped.
  const done = iterations(all).sort((x, y) => x[0] - y[0]);
  expect(done.slice(0, 2)).toEqual([[1, 'A', 1, 'success', 'none'], [2, 'B', 1, 'success', 'none']]);
  expect(done[2]).toEqual([3, expect.stringMatching(/^[AB]$/), 2, 'interrupted', 'interrupted']);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', stop_reason: 'max_cost', cost_usd: 1.2, iterations: 3 });
  expect(ofType(all, 'task_completed')).toEqual([]);
  expect(ofType(all, 'task_blocked')).toEqual([]);
  // No agent is left running; both tasks are kept in progress, in their worktrees, for a later run.
  expect(ws.calls().filter((c) => alive(c.pid))).toEqual([]);
  expect(findTagged(runTagMatcher(runId))).toEqual([]);
  expect(ws.read('tasks.jsonl')).toBe(tasksJsonl({ id: 'A', title: 'costly', priority: 2, status: 'in_progress' }, { id: 'B', title: 'costly too', priority: 1, status: 'in_progress' }));
  const show = JSON.parse((await ws.cli(['show', runId, '--json'])).stdout) as { run: { meta: { lanes: Array<{ attempt: { task_id: string; iterations: number; cost_usd: number }; phase: string }> } } };
  expect(show.run.meta.lanes.map((l) => [l.attempt.task_id, l.attempt.iterations, l.attempt.cost_usd, l.phase])).toEqual([['A', 1, 0.6, 'running'], ['B', 1, 0.6, 'running']]);
  expect((await ws.cli(['runs'])).stdout).toContain(`${runId}  completed  tasks (A, B)`);
  expect((await ws.cli(['show', runId])).stdout).toContain('tasks done: -   blocked: -   in hand: A (1 iteration so far), B (1 iteration so far)\n');
});

it("the run's budget stops agents that spend it together while they work: both iterations end with max_cost", { timeout: 90_000 }, async () => {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'costly', priority: 2 }, { id: 'B', title: 'costly too', priority: 1 }) });
  // Each agent reports $0.60 of tokens (150,000 input tokens at $4 per million) early in its turn, then works on
  // forever: neither reaches the $1 budget alone, both together do.
  const spend = { usage: { model: 'claude-opus-5-5', input_tokens: 150_000, output_tokens: 0 }, hang: true };
  ws.script({ A: [spend], B: [spend] });
  const r = await ws.cli(['tasks', 'run', '--agent', 'claude', '--max-cost', '1', '--json'], { ...PARALLEL, PATH: `${TASK_CLAUDE_BIN}:${process.env.PATH ?? ''}` });
  expect(r.code).toBe(2);
  const all = events(r.stdout);
  const runId = all[0]?.run_id ?? '';
  expect(iterations(all).sort((x, y) => x[0] - y[0])).toEqual([[1, 'A', 1, 'failure', 'max_cost'], [2, 'B', 1, 'failure', 'max_cost']]);
  expect(ofType(all, 'warning').map((e) => e.message)).toEqual([expect.stringMatching(/^max cost \$1\.00 reached while iterations [12], [12] ran \(\$1\.2000 spent\): stopping the agent$/)]);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'max_cost', cost_usd: 1.2, iterations: 2 });
  expect(ws.calls().filter((c) => alive(c.pid))).toEqual([]);
  expect(findTagged(runTagMatcher(runId))).toEqual([]);
  expect(ws.read('tasks.jsonl')).toBe(tasksJsonl({ id: 'A', title: 'costly', priority: 2, status: 'in_progress' }, { id: 'B', title: 'costly too', priority: 1, status: 'in_progress' }));
});

it('tasks.on_failure: stop: a blocked task stops the run, and the other task\'s agent with it', { timeout: 90_000 }, async () => {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'gives up', priority: 2 }, { id: 'B', title: 'goes on', priority: 1 }) });
  ws.script({
    // A gives up once B runs (B lets it through); B never ends by itself.
    A: [{ gate: true, say: '<ringmaster-result>{"status": "blocked", "blocker": "needs an API key"}</ringmaster-result>' }],
    B: [{ write: { 'b1.txt': 'b1\n', [join(ws.agentDir, 'gate-A-1')]: '' }, hang: true }],
  });
  const r = await ws.cli(['tasks', 'run', '--agent-command', ws.agentCommand, '--json'], { ...PARALLEL, RINGMASTER_TASKS_ON_FAILURE: 'stop' });
  expect(r.code).toBe(1);
  const all = events(r.stdout);
  const runId = all[0]?.run_id ?? '';
  expect(ofType(all, 'task_blocked').map((e) => [e.task_id, e.reason, e.failed_branch])).toEqual([['A', 'the agent is blocked: needs an API key', null]]);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'failed', stop_reason: 'failure_threshold', message: 'task A is blocked (the agent is blocked: needs an API key) and tasks.on_failure is stop' });
  // B's iteration, running when A was blocked, was stopped.
  expect(iterations(all).sort((x, y) => x[0] - y[0])).toEqual([[1, 'A', 1, 'success', 'none'], [2, 'B', 1, 'interrupted', 'interrupted']]);
  expect(ws.calls().filter((c) => alive(c.pid))).toEqual([]);
  expect(findTagged(runTagMatcher(runId))).toEqual([]);
  expect(ws.read('tasks.jsonl')).toBe(tasksJsonl({ id: 'A', title: 'gives up', priority: 2, status: 'blocked', blocker: 'the agent is blocked: needs an API key' }, { id: 'B', title: 'goes on', priority: 1, status: 'in_progress' }));
  const show = JSON.parse((await ws.cli(['show', runId, '--json'])).stdout) as { run: { meta: { blocked: string[]; lanes: Array<{ attempt: { task_id: string }; phase: string }> } } };
  expect(show.run.meta.blocked).toEqual(['A']);
  expect(show.run.meta.lanes.map((l) => [l.attempt.task_id, l.phase])).toEqual([['B', 'running']]);
});

it('outside a git repository parallelism falls back to one task at a time, and says why', { timeout: 60_000 }, async () => {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'one' }, { id: 'B', title: 'two' }) });
  rmSync(join(ws.dir, '.git'), { recursive: true, force: true });
  ws.script({ A: [{ say: COMPLETE }], B: [{ say: COMPLETE }] });
  const r = await ws.cli(['tasks', 'run', '--agent-command', ws.agentCommand, '--json'], PARALLEL);
  expect(r.code).toBe(0);
  const all = events(r.stdout);
  expect(ofType(all, 'warning').map((e) => e.message)).toContain(`tasks.parallelism is 2, but parallel tasks each work in a git worktree of ${ws.dir} and it is not a git repository: tasks run one at a time`);
  expect(iterations(all)).toEqual([[1, 'A', 1, 'complete', 'none'], [2, 'B', 1, 'complete', 'none']]);
  expect(ofType(all, 'task_started').map((e) => e.worktree)).toEqual([undefined, undefined]);
});
