// A task run killed with kill -9 in the middle of a task (ringmaster's process group and the agent's), or
// stopped with `ringmaster stop`, then `ringmaster resume`: the same task goes on from its attempt so far
// (the interrupted iteration does not count), then the rest; one commit per task, journals whole.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { readAgentPid } from '../../src/runner/leftover.js';
import { agentPidPath } from '../../src/store/paths.js';
import { killGroup } from '../helpers/crash.js';
import { BIN } from '../helpers/cli.js';
import { until } from '../helpers/until.js';
import { sh } from '../git/git-repo.js';
import { startTestServer } from '../server/harness.js';
import { events, iterations, ofType, tasksJsonl, useTaskWorkspaces, type TaskWorkspace } from './task-run-harness.js';

const workspace = useTaskWorkspaces();
const COMPLETE = '<promise>COMPLETE</promise>';

/** Starts `tasks run --json` in its own process group; resolves with the run id and the child once A's iteration 2 waits at its gate. */
async function startAtGate(ws: TaskWorkspace): Promise<{ runId: string; pid: number; closed: Promise<number | null>; stdout: () => string }> {
  const child = spawn(process.execPath, [BIN, 'tasks', 'run', '--agent-command', ws.agentCommand, '--json'], { cwd: ws.dir, env: ws.env(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.resume();
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await until("task A's iteration 2", () => ws.calls().some((c) => c.task === 'A' && c.iteration === 2));
  const runId = (JSON.parse(out.split('\n')[0] ?? '{}') as { run_id: string }).run_id;
  return { runId, pid: child.pid ?? 0, closed, stdout: () => out };
}

function setup(): TaskWorkspace {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'two parts', priority: 2 }, { id: 'B', title: 'after', priority: 1 }) });
  ws.script({
    A: [{ write: { 'a1.txt': 'part 1\n' }, say: 'part 1 written' }, { write: { 'a2.txt': 'part 2\n' }, gate: true, say: COMPLETE }],
    B: [{ write: { 'b.txt': 'b\n' }, say: COMPLETE }],
  });
  return ws;
}

async function resumeAndCheck(ws: TaskWorkspace, runId: string): Promise<void> {
  ws.openGate('A', 2);
  const resumed = await ws.cli(['resume', runId, '--json']);
  expect(resumed.stderr).toBe('');
  expect(resumed.code).toBe(0);
  const all = events(resumed.stdout);
  expect(all[0]).toMatchObject({ type: 'run_started', kind: 'tasks', resumed: true });
  expect(ofType(all, 'task_started').map((e) => [e.task_id, e.resumed, e.tasks_started])).toEqual([['A', true, 1], ['B', false, 2]]);
  // The interrupted iteration did not count: A goes on with its iteration 2.
  expect(iterations(all)).toEqual([[3, 'A', 2, 'complete', 'none'], [4, 'B', 1, 'complete', 'none']]);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', stop_reason: 'success_signal', iterations: 4, message: 'every task is done (2 done and 0 blocked by this run)' });
  const show = JSON.parse((await ws.cli(['show', runId, '--json'])).stdout) as { run: { status: string; owner_pid: number | null }; iterations: Array<{ number: number; unit_id: string; status: string }> };
  expect(show.run).toMatchObject({ status: 'completed', owner_pid: null });
  expect(show.iterations.map((i) => [i.number, i.unit_id, i.status])).toEqual([[1, 'A', 'success'], [2, 'A', 'interrupted'], [3, 'A', 'complete'], [4, 'B', 'complete']]);
  expect(ws.subjects()).toEqual(['[ringmaster] B: after', '[ringmaster] A: two parts', 'initial']);
  expect(sh(ws.dir, ['show', '--name-only', '--format=', 'HEAD~1']).trim().split('\n').sort()).toEqual(['a1.txt', 'a2.txt', 'learning.jsonl', 'progress.jsonl', 'tasks.jsonl']);
  expect(ws.read('tasks.jsonl')).toBe(tasksJsonl({ id: 'A', title: 'two parts', priority: 2, status: 'done' }, { id: 'B', title: 'after', priority: 1, status: 'done' }));
  expect(ws.jsonl('progress.jsonl').map((p) => [p.task_id, p.event, p.iteration ?? null, p.run_iteration ?? null])).toEqual([
    ['A', 'task_started', null, null], ['A', 'iteration', 1, 1], ['A', 'iteration', 2, 3], ['A', 'task_completed', null, null],
    ['B', 'task_started', null, null], ['B', 'iteration', 1, 4], ['B', 'task_completed', null, null],
  ]);
  expect(ws.jsonl('learning.jsonl').map((l) => [l.task_id, l.iterations])).toEqual([['A', 2], ['B', 1]]);
  // The resumed A was given its earlier progress.
  expect(ws.prompt('A', 2)).toContain('## Progress so far on this task\n- iteration 1: continue\n');
}

it('kill -9 in the middle of a task, then resume: the same task continues, then the next', { timeout: 90_000 }, async () => {
  const ws = setup();
  const run = await startAtGate(ws);
  // The agent.pid line is `<pid> <start time> <boot id>`: its first field is the agent's process group.
  const agentPid = readAgentPid(agentPidPath(ws.home, run.runId))?.pid ?? 0;
  expect(agentPid).toBeGreaterThan(1);
  killGroup(run.pid);
  killGroup(agentPid);
  await run.closed;
  expect(existsSync(`${ws.dir}/a1.txt`)).toBe(true);
  const before = JSON.parse((await ws.cli(['runs', '--json'])).stdout) as Array<{ id: string; status: string; kind: string }>;
  expect(before).toEqual([expect.objectContaining({ id: run.runId, status: 'orphaned', kind: 'tasks' })]);
  expect((await ws.cli(['runs'])).stdout).toContain(`${run.runId}  orphaned  tasks (A)  -`);
  await resumeAndCheck(ws, run.runId);
});

it('ringmaster stop in the middle of a task, then resume: the same task continues', { timeout: 90_000 }, async () => {
  const ws = setup();
  const run = await startAtGate(ws);
  const stop = await ws.cli(['stop', run.runId]);
  expect(stop.code).toBe(0);
  expect(await run.closed).toBe(130);
  const all = events(run.stdout());
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'stopped', stop_reason: 'user_stop', iterations: 2 });
  expect(ws.read('tasks.jsonl')).toContain('"status":"in_progress"');
  await resumeAndCheck(ws, run.runId);
});

it('a stopped task run resumed through the server (POST /api/runs/:id/resume) continues the same task', { timeout: 90_000 }, async () => {
  const ws = setup();
  const run = await startAtGate(ws);
  expect((await ws.cli(['stop', run.runId])).code).toBe(0);
  expect(await run.closed).toBe(130);
  ws.openGate('A', 2);
  const t = await startTestServer({ home: ws.home });
  try {
    expect((await t.request(`/api/runs/${run.runId}/resume`, { method: 'POST' })).body).toMatchObject({ answer: 'accepted' });
    let status = '';
    while (!['completed', 'failed', 'stopped'].includes(status)) {
      await new Promise((r) => setTimeout(r, 50));
      status = ((await t.request(`/api/runs/${run.runId}`)).body as { run: { status: string } }).run.status;
    }
    expect(status).toBe('completed');
    // The API lists the tasks with their status, iterations and cost.
    const units = ((await t.request(`/api/runs/${run.runId}`)).body as { units: Array<{ id: string; title: string | null; status: string | null; iterations: number }> }).units;
    expect(units.map((u) => [u.id, u.title, u.status, u.iterations])).toEqual([
      ['A', 'two parts', 'done', 3],
      ['B', 'after', 'done', 1],
    ]);
  } finally {
    await t.stop();
  }
  const rows = await ws.cli(['show', run.runId, '--json']);
  const shown = JSON.parse(rows.stdout) as { run: { stop_reason: string; meta: { done: string[] } }; iterations: Array<{ number: number; unit_id: string; status: string }> };
  expect(shown.run).toMatchObject({ stop_reason: 'success_signal', meta: { done: ['A', 'B'] } });
  expect(shown.iterations.map((i) => [i.number, i.unit_id, i.status])).toEqual([[1, 'A', 'success'], [2, 'A', 'interrupted'], [3, 'A', 'complete'], [4, 'B', 'complete']]);
  expect(ws.subjects()).toEqual(['[ringmaster] B: after', '[ringmaster] A: two parts', 'initial']);
});
