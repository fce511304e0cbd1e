// Lifecycle hooks of a real task run: shell commands from ringmaster.yml get each event as JSON on stdin
// (task_start, iteration_start, action for each tool call, iteration_end, task_end, anomaly), a failing
// hook is a warning and never stops the loop; the library callbacks see the same events in order.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { commitFiles, events, ofType, tasksJsonl, TASK_CLAUDE_BIN, useTaskWorkspaces } from './task-run-harness.js';

const workspace = useTaskWorkspaces();
const COMPLETE = '<promise>COMPLETE</promise>';

it('shell hooks get every lifecycle event as JSON; a failing hook is reported and the run goes on', { timeout: 60_000 }, async () => {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'first', priority: 2 }, { id: 'B', title: 'second', priority: 1 }) });
  const log = join(ws.agentDir, 'hooks.jsonl');
  const hook = `cat >> ${log}`;
  commitFiles(ws.dir, {
    'ringmaster.yml': [
      'hooks:',
      `  task_start: ${hook}`,
      `  iteration_start: ${hook}`,
      `  action: ${hook}`,
      `  iteration_end: ${hook}; echo "hook says no" >&2; exit 3`,
      `  task_end: ["sh", "-c", ${JSON.stringify(hook)}]`,
      `  anomaly: ${hook}`,
      '',
    ].join('\n'),
  });
  ws.script({
    A: [{ write: { 'x.txt': 'x\n' }, tool: true, say: 'step one' }, { say: 'step one' }, { say: COMPLETE }],
    B: [{ say: '<ringmaster-result>{"status":"blocked","blocker":"no"}</ringmaster-result>' }],
  });
  const r = await ws.cli(['tasks', 'run', '--agent', 'claude', '--json'], { PATH: `${TASK_CLAUDE_BIN}:${process.env.PATH ?? ''}` });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(2);
  const all = events(r.stdout);
  expect(ofType(all, 'warning').map((e) => e.message)).toEqual(Array(4).fill('hook iteration_end exited 3: hook says no'));
  const seen = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; run_id: string; task: { id: string; status: string }; iteration?: number; [k: string]: unknown });
  expect(seen.map((e) => [e.event, e.task.id, e.iteration ?? null])).toEqual([
    ['task_start', 'A', null],
    ['iteration_start', 'A', 1], ['action', 'A', 1], ['iteration_end', 'A', 1],
    ['iteration_start', 'A', 2], ['iteration_end', 'A', 2], ['anomaly', 'A', 2], ['anomaly', 'A', 2],
    ['iteration_start', 'A', 3], ['iteration_end', 'A', 3],
    ['task_end', 'A', null],
    ['task_start', 'B', null],
    ['iteration_start', 'B', 1], ['iteration_end', 'B', 1], ['anomaly', 'B', 1],
    ['task_end', 'B', null],
  ]);
  const runId = all[0]?.run_id;
  expect(seen.every((e) => e.run_id === runId)).toBe(true);
  expect(seen[0]).toEqual({ event: 'task_start', time: expect.any(Number) as number, run_id: runId, task: { id: 'A', title: 'first', status: 'in_progress' } });
  expect(seen[2]).toMatchObject({ action: { tool: 'Write', input: { file_path: 'x.txt', content: 'x\n' } } });
  expect(seen[3]).toMatchObject({ outcome: 'continue', result: null });
  expect([seen[6]?.anomaly, seen[7]?.anomaly]).toEqual([
    { kind: 'stalled', message: 'iteration 2 changed no file in the workspace' },
    { kind: 'repeated_output', message: 'iteration 2 printed the same text as the iteration before it' },
  ]);
  expect(seen[9]).toMatchObject({ outcome: 'complete' });
  expect(seen[10]).toMatchObject({ success: true, reason: null, task: { status: 'done' } });
  expect(seen[13]).toMatchObject({ outcome: 'blocked', result: { status: 'blocked', blocker: 'no' } });
  expect(seen[15]).toMatchObject({ success: false, reason: 'the agent is blocked: no', task: { status: 'blocked' } });
  expect(ofType(all, 'task_anomaly').map((e) => [e.task_id, e.iteration, e.kind])).toEqual([['A', 2, 'stalled'], ['A', 2, 'repeated_output'], ['B', 4, 'stalled']]);
  // The claude format reports cost: the task's total is the sum of its iterations.
  expect(ofType(all, 'task_completed')).toEqual([expect.objectContaining({ task_id: 'A', iterations: 3, cost_usd: 0.03, cost_unknown: false })]);
});
