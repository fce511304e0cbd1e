// Parallel task runs (tasks.parallelism: 2) through the built CLI with the scripted task agent in real git
// repositories: tasks at once in their own worktrees (proved without timing: each agent waits for a file the other
// writes), merged back in the order they started, a conflicting pair, dependencies, the run's budget, stop and
// kill -9 with resume. Every iteration is an ordinary iteration of the one run.
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { findTagged, runTagMatcher } from '../../src/os/process-tag.js';
import type { RunEvent } from '../../src/runner/events.js';
import { killGroup } from '../helpers/crash.js';
import { BIN } from '../helpers/cli.js';
import { alive } from '../helpers/proc.js';
import { sh } from '../git/git-repo.js';
import { events, iterations, ofType, tasksJsonl, TASK_CLAUDE_BIN, useTaskWorkspaces, type AgentStep, type TaskWorkspace } from './task-run-harness.js';

const workspace = useTaskWorkspaces();
const COMPLETE = '<promise>COMPLETE</promise>';
const PARALLEL = { RINGMASTER_TASKS_PARALLELISM: '2' };

/** Waits (polling, bounded only by the test timeout) until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 25));
}

/** The first step of two tasks that must run at once: each writes the other's gate, then waits at its own. */
function meeting(ws: TaskWorkspace, me: string, other: string, step: AgentStep): AgentStep {
  return { ...step, write: { ...step.write, [join(ws.agentDir, `gate-${other}-1`)]: '' }, gate: true };
}

/** A `tasks run --json` in the background (its own process group), with its run id once it is known. */
interface Background {
  pid: number;
  runId: () => string;
  stdout: () => string;
  closed: Promise<number | null>;
}

function startRun(ws: TaskWorkspace, args: string[] = [], extra: Record<string, string> = {}): Background {
  const child = spawn(process.execPath, [BIN, 'tasks', 'run', '--agent-command', ws.agentCommand, '--json', ...args], { cwd: ws.dir, env: ws.env({ ...PARALLEL, ...extra }), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.resume();
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { pid: child.pid ?? 0, runId: () => (JSON.parse(out.split('\n')[0] ?? '{}') as { run_id: string }).run_id, stdout: () => out, closed };
}

/** The subject of a branch's last commit, or null while the branch does not exist. */
function tipSubject(dir: string, branch: string): string | null {
  const out = sh(dir, ['for-each-ref', '--format=%(subject)', `refs/heads/${branch}`]).trim();
  return out === '' ? null : out;
}

function branches(dir: string): string[] {
  return sh(dir, ['branch', '--format=%(refname:short)']).trim().split('\n').filter((b) => b !== '').sort();
}

/** Index of the first event matching. */
function at(all: RunEvent[], match: (e: RunEvent) => boolean): number {
  return all.findIndex(match);
}

/** Two tasks that meet (run at once); A needs a second iteration, held until the test opens its gate, so that B completes first. */
function twoTasks(): TaskWorkspace {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'first', priority: 2 }, { id: 'B', title: 'second', priority: 1 }), 'README.md': 'hello\n' });
  ws.script({
    A: [meeting(ws, 'A', 'B', { write: { 'a1.txt': 'a1\n' }, say: 'part 1' }), { write: { 'a2.txt': 'a2\n' }, gate: true, say: COMPLETE }],
    B: [meeting(ws, 'B', 'A', { write: { 'b.txt': 'b\n' }, say: COMPLETE })],
  });
  return ws;
}

/** Starts twoTasks' run and waits until B is complete on its branch while A's iteration 2 waits at its gate. */
async function bCompleteAWaiting(ws: TaskWorkspace): Promise<Background> {
  const run = startRun(ws);
  await until(() => run.stdout() !== '' && ws.calls().some((c) => c.task === 'A' && c.iteration === 2) && tipSubject(ws.dir, `ringmaster/${run.runId()}-B`) === '[ringmaster] B: second');
  return run;
}

/** What every finished two-task run leaves: both merged in start order, one merge commit each, journals whole. */
function expectMergedInOrder(ws: TaskWorkspace, runId: string): void {
  const first = sh(ws.dir, ['log', '--first-parent', '--format=%s', 'HEAD']).trim().split('\n');
  expect(first).toEqual([
    '[ringmaster] B: second',
    '[ringmaster] A: first',
    `[ringmaster] B: second (started on ringmaster/${runId}-B)`,
    `[ringmaster] A: first (started on ringmaster/${runId}-A)`,
    'initial',
  ]);
  // Each task's commit is a merge of its branch: its work in the second parent, tracker and journals in the merge.
  expect(sh(ws.dir, ['log', '-1', '--format=%P', 'HEAD']).trim().split(' ')).toHaveLength(2);
  expect(sh(ws.dir, ['log', '-1', '--format=%s', 'HEAD^2']).trim()).toBe('[ringmaster] B: second');
  expect(sh(ws.dir, ['log', '-1', '--format=%s', 'HEAD~1^2']).trim()).toBe('[ringmaster] A: first');
  expect(sh(ws.dir, ['show', '--name-only', '--format=', 'HEAD~1^2']).trim().split('\n').sort()).toEqual(['a1.txt', 'a2.txt']);
  expect(sh(ws.dir, ['status', '--porcelain']).trim()).toBe('');
  expect(['a1.txt', 'a2.txt', 'b.txt'].map((f) => ws.read(f))).toEqual(['a1\n', 'a2\n', 'b\n']);
  expect(ws.read('tasks.jsonl')).toBe(tasksJsonl({ id: 'A', title: 'first', priority: 2, status: 'done' }, { id: 'B', title: 'second', priority: 1, status: 'done' }));
  // Worktrees removed, merged branches deleted.
  expect(branches(ws.dir)).toEqual(['main']);
  expect(sh(ws.dir, ['worktree', 'list', '--porcelain']).match(/^worktree /gm)).toHaveLength(1);
}

it('two independent tasks run at once in their own worktrees; B completes first but merges after A, in the order they started', { timeout: 90_000 }, async () => {
  const ws = twoTasks();
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
    A: [meeting(ws, 'A', 'B', { write: { 'shared.txt': 'by A\n' }, say: COMPLETE })],
    B: [meeting(ws, 'B', 'A', { write: { 'shared.txt': 'by B\n', 'b-only.txt': 'b\n' }, say: COMPLETE })],
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
    A: [meeting(ws, 'A', 'B', { cost: 0.6, say: 'part' }), { hang: true }],
    B: [meeting(ws, 'B', 'A', { cost: 0.6, say: 'part' }), { hang: true }],
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
});

/** Two tasks that meet, then each hold their second iteration at a gate (both agents running at once). */
function bothHeld(): TaskWorkspace {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'first', priority: 2 }, { id: 'B', title: 'second', priority: 1 }) });
  ws.script({
    A: [meeting(ws, 'A', 'B', { write: { 'a1.txt': 'a1\n' }, say: 'part 1' }), { write: { 'a2.txt': 'a2\n' }, gate: true, say: COMPLETE }],
    B: [meeting(ws, 'B', 'A', { write: { 'b1.txt': 'b1\n' }, say: 'part 1' }), { write: { 'b2.txt': 'b2\n' }, gate: true, say: COMPLETE }],
  });
  return ws;
}

it('ringmaster stop stops every task agent of the run; resume continues both tasks in their worktrees', { timeout: 90_000 }, async () => {
  const ws = bothHeld();
  const run = startRun(ws);
  await until(() => ws.calls().filter((c) => c.iteration === 2).length === 2);
  const runId = run.runId();
  expect((await ws.cli(['stop', runId])).code).toBe(0);
  expect(await run.closed).toBe(130);
  const all = events(run.stdout());
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'stopped', stop_reason: 'user_stop', iterations: 4 });
  expect(iterations(all).filter((i) => i[3] === 'interrupted').map((i) => [i[1], i[2]]).sort()).toEqual([['A', 2], ['B', 2]]);
  expect(ws.calls().filter((c) => alive(c.pid))).toEqual([]);
  expect(findTagged(runTagMatcher(runId))).toEqual([]);
  // The worktrees are kept with the work so far for resume.
  expect(['A', 'B'].map((t) => existsSync(`${ws.dir}.ringmaster-worktrees/${runId}-${t}/${t.toLowerCase()}2.txt`))).toEqual([true, true]);

  ws.openGate('A', 2);
  ws.openGate('B', 2);
  const resumed = await ws.cli(['resume', runId, '--json']);
  expect(resumed.stderr).toBe('');
  expect(resumed.code).toBe(0);
  const again = events(resumed.stdout);
  expect(ofType(again, 'task_started').map((e) => [e.task_id, e.resumed, e.tasks_started])).toEqual([['A', true, 2], ['B', true, 2]]);
  // The interrupted iterations did not count: each task goes on with its iteration 2.
  expect(iterations(again).sort((x, y) => x[0] - y[0])).toEqual([[5, 'A', 2, 'complete', 'none'], [6, 'B', 2, 'complete', 'none']]);
  expect(ofType(again, 'task_completed').map((e) => [e.task_id, e.iterations])).toEqual([['A', 2], ['B', 2]]);
  expect(again.at(-1)).toMatchObject({ stop_reason: 'success_signal', iterations: 6 });
  expect(['a1.txt', 'a2.txt', 'b1.txt', 'b2.txt'].map((f) => ws.read(f))).toEqual(['a1\n', 'a2\n', 'b1\n', 'b2\n']);
  expect(ws.jsonl('progress.jsonl').map((p) => [p.task_id, p.event, p.run_iteration ?? null])).toEqual([
    ['A', 'task_started', null], ['A', 'iteration', 1], ['A', 'iteration', 5], ['A', 'task_completed', null],
    ['B', 'task_started', null], ['B', 'iteration', 2], ['B', 'iteration', 6], ['B', 'task_completed', null],
  ]);
  expect(branches(ws.dir)).toEqual(['main']);
});

it('kill -9 of ringmaster with one task running and one complete waiting to merge; resume kills the orphaned agent, continues and merges in order', { timeout: 90_000 }, async () => {
  const ws = twoTasks();
  const run = await bCompleteAWaiting(ws);
  const runId = run.runId();
  const orphan = ws.calls().find((c) => c.task === 'A' && c.iteration === 2)?.pid ?? 0;
  killGroup(run.pid);
  await run.closed;
  // The agent has its own process group: it outlived ringmaster.
  expect(alive(orphan)).toBe(true);
  expect((await ws.cli(['runs'])).stdout).toContain(`${runId}  orphaned  tasks (A, B)`);

  ws.openGate('A', 2);
  const resumed = await ws.cli(['resume', runId, '--json']);
  expect(resumed.stderr).toBe('');
  expect(resumed.code).toBe(0);
  expect(alive(orphan)).toBe(false);
  const all = events(resumed.stdout);
  expect(all[0]).toMatchObject({ type: 'run_started', kind: 'tasks', resumed: true });
  // B was complete: it is not started again; A goes on with its iteration 2 (the interrupted one did not count).
  expect(ofType(all, 'task_started').map((e) => [e.task_id, e.resumed])).toEqual([['A', true]]);
  expect(iterations(all)).toEqual([[4, 'A', 2, 'complete', 'none']]);
  expect(ofType(all, 'task_completed').map((e) => [e.task_id, e.iterations])).toEqual([['A', 2], ['B', 1]]);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', stop_reason: 'success_signal', iterations: 4 });
  expectMergedInOrder(ws, runId);
  const show = JSON.parse((await ws.cli(['show', runId, '--json'])).stdout) as { iterations: Array<{ number: number; unit_id: string; status: string }> };
  expect(show.iterations.map((i) => [i.number, i.unit_id, i.status])).toEqual([[1, 'A', 'success'], [2, 'B', 'complete'], [3, 'A', 'interrupted'], [4, 'A', 'complete']]);
  expect(ws.jsonl('progress.jsonl').map((p) => [p.task_id, p.event, p.run_iteration ?? null])).toEqual([
    ['A', 'task_started', null], ['A', 'iteration', 1], ['A', 'iteration', 4], ['A', 'task_completed', null],
    ['B', 'task_started', null], ['B', 'iteration', 2], ['B', 'task_completed', null],
  ]);
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

it('pause lets the running iteration of each task end, then no agent runs until the run is resumed', { timeout: 90_000 }, async () => {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'first', priority: 2 }, { id: 'B', title: 'second', priority: 1 }, { id: 'C', title: 'third', priority: 0 }) });
  ws.script({
    A: [meeting(ws, 'A', 'B', { say: 'part 1' }), { write: { 'a.txt': 'a\n' }, gate: true, say: COMPLETE }],
    B: [meeting(ws, 'B', 'A', { say: 'part 1' }), { write: { 'b.txt': 'b\n' }, gate: true, say: COMPLETE }],
    C: [{ write: { 'c.txt': 'c\n' }, say: COMPLETE }],
  });
  const run = startRun(ws);
  await until(() => ws.calls().filter((c) => c.iteration === 2).length === 2);
  const runId = run.runId();
  expect((await ws.cli(['pause', runId])).code).toBe(0);
  ws.openGate('A', 2);
  ws.openGate('B', 2);
  await until(() => run.stdout().includes('"type":"paused"'));
  // Both running iterations ended (their tasks merged); C was not started; no agent runs while paused.
  expect(ws.calls().map((c) => `${c.task}${c.iteration}`).sort()).toEqual(['A1', 'A2', 'B1', 'B2']);
  expect(ws.calls().filter((c) => alive(c.pid))).toEqual([]);
  expect(ws.subjects().slice(0, 2)).toEqual(['[ringmaster] B: second', '[ringmaster] A: first']);
  expect((await ws.cli(['resume', runId])).code).toBe(0);
  expect(await run.closed).toBe(0);
  const all = events(run.stdout());
  expect(ofType(all, 'paused').map((e) => e.after_iteration)).toEqual([4]);
  expect(at(all, (e) => e.type === 'task_started' && e.task_id === 'C')).toBeGreaterThan(at(all, (e) => e.type === 'resumed'));
  expect(ofType(all, 'task_completed').map((e) => e.task_id)).toEqual(['A', 'B', 'C']);
});

it('kill -9 with two agents running: resume kills both orphans (one found by its pid file, the other by its tag) and goes on', { timeout: 90_000 }, async () => {
  const ws = bothHeld();
  const run = startRun(ws);
  await until(() => ws.calls().filter((c) => c.iteration === 2).length === 2);
  const runId = run.runId();
  const orphans = ws.calls().filter((c) => c.iteration === 2).map((c) => c.pid);
  killGroup(run.pid);
  await run.closed;
  expect(orphans.map(alive)).toEqual([true, true]);
  ws.openGate('A', 2);
  ws.openGate('B', 2);
  const resumed = await ws.cli(['resume', runId, '--json']);
  expect(resumed.code).toBe(0);
  expect(orphans.map(alive)).toEqual([false, false]);
  const all = events(resumed.stdout);
  expect(ofType(all, 'task_started').map((e) => [e.task_id, e.resumed])).toEqual([['A', true], ['B', true]]);
  expect(iterations(all).sort((x, y) => x[0] - y[0])).toEqual([[5, 'A', 2, 'complete', 'none'], [6, 'B', 2, 'complete', 'none']]);
  expect(ofType(all, 'task_completed').map((e) => e.task_id)).toEqual(['A', 'B']);
  expect(findTagged(runTagMatcher(runId))).toEqual([]);
  const show = JSON.parse((await ws.cli(['show', runId, '--json'])).stdout) as { iterations: Array<{ number: number; status: string }> };
  expect(show.iterations.map((i) => [i.number, i.status])).toEqual([[1, 'success'], [2, 'success'], [3, 'interrupted'], [4, 'interrupted'], [5, 'complete'], [6, 'complete']]);
});
