// Task limits end to end: a task at its limit is blocked, rolled back (its attempt kept on
// ringmaster/failed/<id>) while the next task completes; tasks.on_failure: stop; the failure threshold
// counted per task; per-iteration rollback; per-task and run cost limits; tasks.max_tasks.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sh } from '../git/git-repo.js';
import { events, iterations, ofType, tasksJsonl, TASK_CLAUDE_BIN, useTaskWorkspaces } from './task-run-harness.js';

const workspace = useTaskWorkspaces();
const COMPLETE = '<promise>COMPLETE</promise>';

describe('a task at its limit', () => {
  it('is blocked and rolled back, its attempt kept on a branch, while the next task completes', { timeout: 60_000 }, async () => {
    const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'never done', priority: 2, limits: { max_iterations: 2 } }, { id: 'B', title: 'easy', priority: 1 }) });
    const base = sh(ws.dir, ['rev-parse', 'HEAD']).trim();
    ws.script({ A: [{ write: { 'a1.txt': 'first try\n' } }, { write: { 'a2.txt': 'second try\n' } }], B: [{ write: { 'b.txt': 'b\n' }, say: COMPLETE }] });
    const r = await ws.cli(['tasks', 'run', '--agent-command', ws.agentCommand, '--json']);
    expect(r.code).toBe(2);
    const all = events(r.stdout);
    expect(iterations(all)).toEqual([[1, 'A', 1, 'success', 'none'], [2, 'A', 2, 'success', 'none'], [3, 'B', 1, 'complete', 'none']]);
    expect(ofType(all, 'task_blocked')).toEqual([
      expect.objectContaining({ task_id: 'A', reason: 'max_iterations: 2 iterations used (limit 2)', iterations: 2, failed_branch: 'ringmaster/failed/A', rolled_back_to: base }),
    ]);
    expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'stalled', message: 'no task can run (blocked: A); 1 done and 1 blocked by this run' });
    // The workspace went back to the commit before A; A's work is on its branch.
    expect([existsSync(join(ws.dir, 'a1.txt')), existsSync(join(ws.dir, 'a2.txt')), ws.read('b.txt')]).toEqual([false, false, 'b\n']);
    expect(sh(ws.dir, ['show', 'ringmaster/failed/A:a2.txt'])).toBe('second try\n');
    expect(ws.subjects('ringmaster/failed/A')).toEqual(['[ringmaster] A: never done (failed attempt: max_iterations: 2 iterations used (limit 2))', 'initial']);
    expect(ws.subjects()).toEqual(['[ringmaster] B: easy', '[ringmaster] A: never done (blocked: max_iterations: 2 iterations used (limit 2))', 'initial']);
    expect(ws.read('tasks.jsonl')).toBe(
      tasksJsonl(
        { id: 'A', title: 'never done', priority: 2, limits: { max_iterations: 2 }, status: 'blocked', blocker: 'max_iterations: 2 iterations used (limit 2)' },
        { id: 'B', title: 'easy', priority: 1, status: 'done' },
      ),
    );
    // progress.jsonl keeps the blocked attempt's history; learning.jsonl has a line per task.
    expect(ws.jsonl('progress.jsonl').map((p) => [p.task_id, p.event, p.iteration ?? null])).toEqual([
      ['A', 'task_started', null], ['A', 'iteration', 1], ['A', 'iteration', 2], ['A', 'task_blocked', null],
      ['B', 'task_started', null], ['B', 'iteration', 1], ['B', 'task_completed', null],
    ]);
    expect(ws.jsonl('progress.jsonl')[3]).toMatchObject({ reason: 'max_iterations: 2 iterations used (limit 2)', iterations: 2, failed_branch: 'ringmaster/failed/A' });
    expect(ws.jsonl('learning.jsonl').map((l) => [l.task_id, l.status, l.iterations])).toEqual([['A', 'blocked', 2], ['B', 'done', 1]]);
    // The blocked task is in `ringmaster tasks` with its reason.
    expect((await ws.cli(['tasks'])).stdout).toContain('A   blocked         2     2     ?  never done (blocked: max_iterations: 2 iterations used (limit 2))');
  });

  it('stops the run with tasks.on_failure: stop; an agent that says blocked blocks its task at once', { timeout: 60_000 }, async () => {
    const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'needs a key', priority: 2 }, { id: 'B', title: 'later', priority: 1 }) });
    ws.script({ A: [{ write: { 'half.txt': 'x\n' }, say: '<ringmaster-result>{"status":"blocked","blocker":"no API key"}</ringmaster-result>' }] });
    const r = await ws.cli(['tasks', 'run', '--agent-command', ws.agentCommand, '--json'], { RINGMASTER_TASKS_ON_FAILURE: 'stop' });
    expect(r.code).toBe(1);
    const all = events(r.stdout);
    expect(iterations(all)).toEqual([[1, 'A', 1, 'success', 'none']]);
    expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'failed', stop_reason: 'failure_threshold', message: 'task A is blocked (the agent is blocked: no API key) and tasks.on_failure is stop' });
    expect(ws.read('tasks.jsonl')).toBe(tasksJsonl({ id: 'A', title: 'needs a key', priority: 2, status: 'blocked', blocker: 'the agent is blocked: no API key' }, { id: 'B', title: 'later', priority: 1 }));
    expect(existsSync(join(ws.dir, 'half.txt'))).toBe(false);
    expect(ws.calls().map((c) => c.task)).toEqual(['A']);
  });

  it('counts consecutive failures per task: the threshold blocks the task, not the run; a failed iteration can be rolled back', { timeout: 60_000 }, async () => {
    const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'flaky', priority: 3 }, { id: 'B', title: 'broken', priority: 2 }, { id: 'C', title: 'fine', priority: 1 }) });
    ws.script({
      A: [{ write: { 'junk.txt': 'junk\n' }, say: 'oops', exit: 1 }, { write: { 'a.txt': 'a\n' }, say: COMPLETE }],
      B: [{ say: 'crash', exit: 1 }],
      C: [{ say: COMPLETE }],
    });
    const r = await ws.cli(['tasks', 'run', '--agent-command', ws.agentCommand, '--failure-threshold', '2', '--json'], { RINGMASTER_TASKS_ROLLBACK_FAILED_ITERATIONS: 'true' });
    expect(r.code).toBe(2);
    const all = events(r.stdout);
    expect(iterations(all)).toEqual([
      [1, 'A', 1, 'failure', 'exit_nonzero'], [2, 'A', 2, 'complete', 'none'],
      [3, 'B', 1, 'failure', 'exit_nonzero'], [4, 'B', 2, 'failure', 'exit_nonzero'],
      [5, 'C', 1, 'complete', 'none'],
    ]);
    expect(ofType(all, 'iteration_completed').map((e) => e.consecutive_failures)).toEqual([1, 0, 1, 2, 0]);
    expect(ofType(all, 'task_blocked').map((e) => [e.task_id, e.reason])).toEqual([['B', 'failure_threshold: 2 consecutive failed iterations (limit 2)']]);
    // junk.txt of A's failed iteration was discarded before A's next iteration; A's commit has only its own work.
    expect(sh(ws.dir, ['show', '--name-only', '--format=', 'HEAD~2']).trim().split('\n').sort()).toEqual(['a.txt', 'learning.jsonl', 'progress.jsonl', 'tasks.jsonl']);
    expect(existsSync(join(ws.dir, 'junk.txt'))).toBe(false);
    expect(ws.prompt('A', 2)).toContain('- iteration 1: failure — oops (its file changes were discarded)\n');
    expect(all.at(-1)).toMatchObject({ stop_reason: 'stalled', message: 'no task can run (blocked: B); 2 done and 1 blocked by this run' });
  });
});

describe('cost and task limits', () => {
  it('blocks a task at its own cost limit; the run stops at its budget with the task in hand kept in progress', { timeout: 60_000 }, async () => {
    const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'costly', priority: 2, limits: { max_cost: 0.5 } }, { id: 'B', title: 'also costly', priority: 1 }) });
    ws.script({ A: [{ write: { 'a.txt': 'a\n' }, cost: 0.3 }], B: [{ write: { 'b.txt': 'b\n' }, cost: 0.3 }] });
    const env = { PATH: `${TASK_CLAUDE_BIN}:${process.env.PATH ?? ''}` };
    const r = await ws.cli(['tasks', 'run', '--agent', 'claude', '--max-cost', '1', '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    const all = events(r.stdout);
    expect(iterations(all)).toEqual([[1, 'A', 1, 'success', 'none'], [2, 'A', 2, 'success', 'none'], [3, 'B', 1, 'success', 'none'], [4, 'B', 2, 'success', 'none']]);
    expect(ofType(all, 'task_blocked').map((e) => [e.task_id, e.reason, e.cost_usd])).toEqual([['A', 'max_cost: $0.6000 spent (limit $0.5)', 0.6]]);
    expect(all.at(-1)).toMatchObject({ type: 'run_finished', stop_reason: 'max_cost', cost_usd: 1.2 });
    expect(ws.read('tasks.jsonl')).toContain('{"id":"B","title":"also costly","priority":1,"status":"in_progress"}');
    const show = JSON.parse((await ws.cli(['show', all[0]?.run_id ?? '', '--json'])).stdout) as { run: { meta: { current: Record<string, unknown> | null } } };
    expect(show.run.meta.current).toMatchObject({ task_id: 'B', iterations: 2, cost_usd: 0.6 });
    const stats = await ws.cli(['stats']);
    expect(stats.stdout).toContain(`cost per task:\nRUN            TASK  ITER     COST\n${all[0]?.run_id ?? ''}  A        2  $0.6000\n${all[0]?.run_id ?? ''}  B        2  $0.6000\n`);
  });

  it('starts at most tasks.max_tasks tasks, also when they run in parallel', { timeout: 60_000 }, async () => {
    const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'one' }, { id: 'B', title: 'two' }, { id: 'C', title: 'three' }) });
    ws.script({ A: [{ say: COMPLETE }], B: [{ say: COMPLETE }], C: [{ say: COMPLETE }] });
    const r = await ws.cli(['tasks', 'run', '--agent-command', ws.agentCommand, '--max-cost', 'none', '--json'], { RINGMASTER_TASKS_MAX_TASKS: '2', RINGMASTER_TASKS_PARALLELISM: '2' });
    expect(r.code).toBe(2);
    const all = events(r.stdout);
    expect(ofType(all, 'warning')).toEqual([]);
    expect(ofType(all, 'task_started').map((e) => [e.task_id, e.tasks_started, e.max_tasks, e.branch !== undefined])).toEqual([['A', 1, 2, true], ['B', 2, 2, true]]);
    expect(ofType(all, 'task_completed').map((e) => e.task_id)).toEqual(['A', 'B']);
    expect(all.at(-1)).toMatchObject({ stop_reason: 'max_iterations', message: 'reached max tasks: 2 tasks started (tasks.max_tasks); 2 done and 0 blocked by this run' });
  });
});
