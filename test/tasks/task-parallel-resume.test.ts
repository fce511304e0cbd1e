// Parallel task runs (tasks.parallelism: 2) stopped, paused, killed and resumed, through the built CLI (and the
// server) with the scripted task agent in real git repositories: every task's agent is stopped with the run, none is
// left behind by a kill -9 once the run is resumed, and no iteration is lost or task counted twice.
import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { findTagged, runTagMatcher } from '../../src/os/process-tag.js';
import { killGroup } from '../helpers/crash.js';
import { alive } from '../helpers/proc.js';
import { startTestServer } from '../server/harness.js';
import { at, bCompleteAWaiting, bothHeld, branches, COMPLETE, expectMergedInOrder, meeting, mergedSubjects, startRun, stoppedWhileBothHeld, twoTasks, until } from './parallel-harness.js';
import { events, iterations, ofType, tasksJsonl, useTaskWorkspaces } from './task-run-harness.js';

const workspace = useTaskWorkspaces();

it('ringmaster stop stops every task agent of the run; resume continues both tasks in their worktrees', { timeout: 90_000 }, async () => {
  const { ws, runId, stdout } = await stoppedWhileBothHeld(workspace);
  const all = events(stdout);
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

it('pause lets the running iteration of each task end, then no agent runs until the run is resumed', { timeout: 90_000 }, async () => {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'first', priority: 2 }, { id: 'B', title: 'second', priority: 1 }, { id: 'C', title: 'third', priority: 0 }) });
  ws.script({
    A: [meeting(ws, 'B', { say: 'part 1' }), { write: { 'a.txt': 'a\n' }, gate: true, say: COMPLETE }],
    B: [meeting(ws, 'A', { say: 'part 1' }), { write: { 'b.txt': 'b\n' }, gate: true, say: COMPLETE }],
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
  expect(mergedSubjects(ws).slice(0, 2)).toEqual(['[ringmaster] B: second', '[ringmaster] A: first']);
  expect((await ws.cli(['resume', runId])).code).toBe(0);
  expect(await run.closed).toBe(0);
  const all = events(run.stdout());
  expect(ofType(all, 'paused').map((e) => e.after_iteration)).toEqual([4]);
  expect(at(all, (e) => e.type === 'task_started' && e.task_id === 'C')).toBeGreaterThan(at(all, (e) => e.type === 'resumed'));
  expect(ofType(all, 'task_completed').map((e) => e.task_id)).toEqual(['A', 'B', 'C']);
});

it('kill -9 of ringmaster with one task running and one complete waiting to merge; resume kills the orphaned agent, continues and merges in order', { timeout: 90_000 }, async () => {
  const ws = twoTasks(workspace);
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

it('kill -9 with two agents running: resume kills both orphans (one found by its pid file, the other by its tag) and goes on', { timeout: 90_000 }, async () => {
  const ws = bothHeld(workspace);
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

it('a stopped parallel run resumed through the server continues both tasks', { timeout: 90_000 }, async () => {
  const { ws, runId } = await stoppedWhileBothHeld(workspace);
  ws.openGate('A', 2);
  ws.openGate('B', 2);
  const t = await startTestServer({ home: ws.home });
  try {
    expect((await t.request(`/api/runs/${runId}/resume`, { method: 'POST' })).body).toMatchObject({ answer: 'accepted' });
    let status = '';
    while (!['completed', 'failed', 'stopped'].includes(status)) {
      await new Promise((r) => setTimeout(r, 50));
      status = ((await t.request(`/api/runs/${runId}`)).body as { run: { status: string } }).run.status;
    }
    expect(status).toBe('completed');
    const units = ((await t.request(`/api/runs/${runId}`)).body as { units: Array<{ id: string; status: string | null; iterations: number }> }).units;
    expect(units.map((u) => [u.id, u.status, u.iterations])).toEqual([['A', 'done', 3], ['B', 'done', 3]]);
  } finally {
    await t.stop();
  }
  expect(mergedSubjects(ws).slice(0, 2)).toEqual(['[ringmaster] B: second', '[ringmaster] A: first']);
  expect(['a2.txt', 'b2.txt'].map((f) => ws.read(f))).toEqual(['a2\n', 'b2\n']);
});
