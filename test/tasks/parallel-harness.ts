// Helpers of the parallel task-run tests (tasks.parallelism: 2): tasks that must run at once (each agent waits for a
// file the other writes), a run in the background with its run id, and what a finished two-task run leaves in git.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { RunEvent } from '../../src/runner/events.js';
import { BIN } from '../helpers/cli.js';
import { until as pollUntil } from '../helpers/until.js';
import { sh } from '../git/git-repo.js';
import { tasksJsonl, type AgentStep, type TaskWorkspace } from './task-run-harness.js';

/** The completion signal. */
export const COMPLETE = '<promise>COMPLETE</promise>';
/** The env of a run with two tasks at once. */
export const PARALLEL = { RINGMASTER_TASKS_PARALLELISM: '2' };

/** Waits (polling, bounded only by the test timeout) until `condition` holds. */
export async function until(condition: () => boolean): Promise<void> {
  await pollUntil('the condition', condition, Number.POSITIVE_INFINITY);
}

/** A first step of two tasks that must run at once: it writes the gate of the `other` task, then waits at its own. */
export function meeting(ws: TaskWorkspace, other: string, step: AgentStep): AgentStep {
  return { ...step, write: { ...step.write, [join(ws.agentDir, `gate-${other}-1`)]: '' }, gate: true };
}

/** A `tasks run --json` in the background (its own process group), with its run id once it is known. */
export interface Background {
  pid: number;
  runId: () => string;
  stdout: () => string;
  closed: Promise<number | null>;
}

export function startRun(ws: TaskWorkspace, args: string[] = [], extra: Record<string, string> = {}): Background {
  const child = spawn(process.execPath, [BIN, 'tasks', 'run', '--agent-command', ws.agentCommand, '--json', ...args], { cwd: ws.dir, env: ws.env({ ...PARALLEL, ...extra }), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.resume();
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { pid: child.pid ?? 0, runId: () => (JSON.parse(out.split('\n')[0] ?? '{}') as { run_id: string }).run_id, stdout: () => out, closed };
}

/** The subject of a branch's last commit, or null while the branch does not exist. */
export function tipSubject(dir: string, branch: string): string | null {
  const out = sh(dir, ['for-each-ref', '--format=%(subject)', `refs/heads/${branch}`]).trim();
  return out === '' ? null : out;
}

/** The repository's branches, sorted. */
export function branches(dir: string): string[] {
  return sh(dir, ['branch', '--format=%(refname:short)']).trim().split('\n').filter((b) => b !== '').sort();
}

/** Index of the first event matching. */
export function at(all: RunEvent[], match: (e: RunEvent) => boolean): number {
  return all.findIndex(match);
}

/** Two tasks that meet (run at once); A needs a second iteration, held until the test opens its gate, so that B completes first. */
export function twoTasks(workspace: (files: Record<string, string>) => TaskWorkspace): TaskWorkspace {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'first', priority: 2 }, { id: 'B', title: 'second', priority: 1 }), 'README.md': 'hello\n' });
  ws.script({
    A: [meeting(ws, 'B', { write: { 'a1.txt': 'a1\n' }, say: 'part 1' }), { write: { 'a2.txt': 'a2\n' }, gate: true, say: COMPLETE }],
    B: [meeting(ws, 'A', { write: { 'b.txt': 'b\n' }, say: COMPLETE })],
  });
  return ws;
}

/** Starts twoTasks' run and waits until B is complete on its branch while A's iteration 2 waits at its gate. */
export async function bCompleteAWaiting(ws: TaskWorkspace): Promise<Background> {
  const run = startRun(ws);
  await until(() => run.stdout() !== '' && ws.calls().some((c) => c.task === 'A' && c.iteration === 2) && tipSubject(ws.dir, `ringmaster/${run.runId()}-B`) === '[ringmaster] B: second');
  return run;
}

/** What every finished two-task run leaves: both merged in start order, one merge commit each, journals whole. */
/**
 * Subjects of the commits on the workspace's branch itself (its merges, not the tasks' own commits), newest first:
 * a task's commit on its branch may be younger than the other task's merge (or share its second), so `git log`
 * by date could list it between the merges.
 */
export function mergedSubjects(ws: TaskWorkspace): string[] {
  return sh(ws.dir, ['log', '--first-parent', '--format=%s', 'HEAD']).trim().split('\n');
}

export function expectMergedInOrder(ws: TaskWorkspace, runId: string): void {
  const first = mergedSubjects(ws);
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

/** Two tasks that meet, then each hold their second iteration at a gate (both agents running at once). */
export function bothHeld(workspace: (files: Record<string, string>) => TaskWorkspace): TaskWorkspace {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'first', priority: 2 }, { id: 'B', title: 'second', priority: 1 }) });
  ws.script({
    A: [meeting(ws, 'B', { write: { 'a1.txt': 'a1\n' }, say: 'part 1' }), { write: { 'a2.txt': 'a2\n' }, gate: true, say: COMPLETE }],
    B: [meeting(ws, 'A', { write: { 'b1.txt': 'b1\n' }, say: 'part 1' }), { write: { 'b2.txt': 'b2\n' }, gate: true, say: COMPLETE }],
  });
  return ws;
}

/** bothHeld's run, stopped with `ringmaster stop` while both agents wait at their second iteration's gate. */
export async function stoppedWhileBothHeld(workspace: (files: Record<string, string>) => TaskWorkspace): Promise<{ ws: TaskWorkspace; runId: string; stdout: string }> {
  const ws = bothHeld(workspace);
  const run = startRun(ws);
  await until(() => ws.calls().filter((c) => c.iteration === 2).length === 2);
  const runId = run.runId();
  expect((await ws.cli(['stop', runId])).code).toBe(0);
  expect(await run.closed).toBe(130);
  return { ws, runId, stdout: run.stdout() };
}
