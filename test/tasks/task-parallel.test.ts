// Parallel task runs (tasks.parallelism: 2) through the built CLI with the scripted task agent in real git
// repositories: tasks at once in their own worktrees (proved without timing: each agent waits for a file the other
// writes), merged back in the order they started, a conflicting pair, dependencies, the run's budget, stop and
// kill -9 with resume. Every iteration is an ordinary iteration of the one run.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
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
  try {
    return sh(dir, ['log', '-1', '--format=%s', `refs/heads/${branch}`]).trim();
  } catch {
    return null;
  }
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
