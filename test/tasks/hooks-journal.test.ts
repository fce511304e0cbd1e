// Lifecycle hooks (commands with the event on stdin, library callbacks; failures reported, never fatal)
// and the progress.jsonl / learning.jsonl journals.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHookRunner, hookArgv, taskRef, type LoopHooks, type TaskHookEvent } from '../../src/tasks/hooks.js';
import {
  LEARNING_FILE,
  PROGRESS_FILE,
  appendEntries,
  learningEntrySchema,
  learningNotes,
  progressEntrySchema,
  progressNotes,
  readEntries,
  totalsByTask,
  type LearningEntry,
  type ProgressEntry,
} from '../../src/tasks/journal.js';
import type { Task } from '../../src/tasks/task.js';
import { useWorkspace } from '../helpers/cli.js';
import { makeTask } from './task-fixture.js';

const ws = useWorkspace('unused\n');

const TASK: Task = makeTask('RALPH-001', { title: 'first', status: 'in_progress', line: 1 });

const start: TaskHookEvent = { event: 'task_start', time: 1000, run_id: 'r1', task: taskRef(TASK) };

describe('hooks', () => {
  it('a shell command gets the event as one JSON line on stdin and its name in the env', async () => {
    const reports: string[] = [];
    const runner = createHookRunner({
      commands: { task_start: { command: 'cat > event.json; echo "$RINGMASTER_HOOK_EVENT $RINGMASTER_RUN_ID $RINGMASTER_TASK_ID" > env.txt', source: 'ringmaster.yml' } },
      callbacks: null,
      cwd: ws.dir,
      env: process.env,
      timeoutMs: 10_000,
      report: (m) => reports.push(m),
    });
    await runner.fire(start, TASK);
    expect(readFileSync(join(ws.dir, 'event.json'), 'utf8')).toBe('{"event":"task_start","time":1000,"run_id":"r1","task":{"id":"RALPH-001","title":"first","status":"in_progress"}}\n');
    expect(readFileSync(join(ws.dir, 'env.txt'), 'utf8')).toBe('task_start r1 RALPH-001\n');
    expect(reports).toEqual([]);
    expect(hookArgv('echo hi')).toEqual(['/bin/sh', '-c', 'echo hi']);
    expect(hookArgv(['notify', '--x'])).toEqual(['notify', '--x']);
  });

  it('a failing, hanging or missing hook and a throwing callback are reported; the caller goes on', async () => {
    const reports: string[] = [];
    const calls: string[] = [];
    const callbacks: LoopHooks = {
      onTaskStart: (task) => {
        calls.push(`start ${task.id}`);
        throw new Error('callback broke');
      },
      onTaskEnd: async (task, success) => {
        await Promise.resolve();
        calls.push(`end ${task.id} ${success}`);
      },
    };
    const runner = createHookRunner({
      commands: {
        task_start: { command: 'echo oops >&2; exit 3', source: 'x' },
        task_end: { command: 'sleep 30', source: 'x' },
        anomaly: { command: ['/no/such/hook'], source: 'x' },
      },
      callbacks,
      cwd: ws.dir,
      env: process.env,
      timeoutMs: 1000,
      report: (m) => reports.push(m),
    });
    await runner.fire(start, TASK);
    await runner.fire({ event: 'task_end', time: 2, run_id: 'r1', task: taskRef(TASK), success: true, reason: null }, TASK);
    await runner.fire({ event: 'anomaly', time: 3, run_id: 'r1', task: taskRef(TASK), iteration: 2, anomaly: { kind: 'stalled', message: 'no file changed' } }, TASK);
    expect(calls).toEqual(['start RALPH-001', 'end RALPH-001 true']);
    expect(reports).toEqual([
      'hook callback for task_start failed: callback broke',
      'hook task_start exited 3: oops',
      'hook task_end timed out after 1s (killed)',
      'hook anomaly could not start: command not found: /no/such/hook',
    ]);
  });

  it('action hooks are queued in order and bounded', async () => {
    const reports: string[] = [];
    const seen: string[] = [];
    const runner = createHookRunner({
      commands: { action: { command: 'cat >> actions.jsonl', source: 'x' } },
      callbacks: { onAction: (action) => void seen.push(action.tool) },
      cwd: ws.dir,
      env: process.env,
      timeoutMs: 10_000,
      report: (m) => reports.push(m),
      maxQueuedActions: 3,
    });
    for (const tool of ['Read', 'Edit', 'Bash', 'Write', 'Grep']) {
      runner.queueAction({ event: 'action', time: 1, run_id: 'r1', task: taskRef(TASK), iteration: 1, action: { tool, input: { n: 1 } } }, TASK);
    }
    await runner.drain();
    expect(seen).toEqual(['Read', 'Edit', 'Bash']);
    expect(readFileSync(join(ws.dir, 'actions.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { action: { tool: string } }).action.tool)).toEqual(['Read', 'Edit', 'Bash']);
    expect(reports).toEqual(['hook action: more than 3 tool calls waiting for the hook; later ones are skipped']);
  });
});

const iteration = (task: string, n: number, outcome: string, cost: number | null, note: string | null): ProgressEntry => ({
  time: '2025-01-01T00:00:00.000Z',
  run_id: 'r1',
  task_id: task,
  event: 'iteration',
  iteration: n,
  run_iteration: n,
  outcome,
  result: null,
  note,
  duration_ms: 1000,
  cost_usd: cost,
  check: null,
});

describe('journals', () => {
  it('append and read back; a broken line is skipped and counted', async () => {
    const path = join(ws.dir, PROGRESS_FILE);
    writeFileSync(path, '{"not":"an entry"}');
    await appendEntries(path, [iteration('A', 1, 'failure', 0.5, 'test command exited 1'), iteration('A', 2, 'complete', null, null), iteration('B', 1, 'success', 0.25, 'continue: half')]);
    const { entries, skipped } = await readEntries(path, progressEntrySchema);
    expect(skipped).toBe(1);
    expect(entries.map((e) => e.task_id)).toEqual(['A', 'A', 'B']);
    expect(readFileSync(path, 'utf8').split('\n')[1]).toBe(
      '{"time":"2025-01-01T00:00:00.000Z","run_id":"r1","task_id":"A","event":"iteration","iteration":1,"run_iteration":1,"outcome":"failure","result":null,"note":"test command exited 1","duration_ms":1000,"cost_usd":0.5,"check":null}',
    );
    expect(totalsByTask(entries)).toEqual(
      new Map([
        ['A', { iterations: 2, costUsd: 0.5, costUnknown: true }],
        ['B', { iterations: 1, costUsd: 0.25, costUnknown: false }],
      ]),
    );
    expect(progressNotes(entries, 'A')).toBe('- iteration 1: failure — test command exited 1\n- iteration 2: complete');
    expect(await readEntries(join(ws.dir, 'none.jsonl'), progressEntrySchema)).toEqual({ entries: [], skipped: 0 });
  });

  it('notes are bounded: the last N, each line cut', () => {
    const many = Array.from({ length: 25 }, (_, i) => iteration('A', i + 1, 'success', 0, 'x'.repeat(1000)));
    const notes = progressNotes(many, 'A').split('\n');
    expect(notes).toHaveLength(21);
    expect(notes[0]).toBe('- (5 earlier notes not shown)');
    expect(notes[1]?.startsWith('- iteration 6: success — xxx')).toBe(true);
    expect(notes[1]?.length).toBe('- iteration 6: '.length + 500);
    expect(notes[1]?.endsWith('x…')).toBe(true);
  });

  it('learnings: one line per finished task', async () => {
    const path = join(ws.dir, LEARNING_FILE);
    const done: LearningEntry = {
      time: 't',
      run_id: 'r1',
      task_id: 'A',
      title: 'first',
      status: 'done',
      iterations: 3,
      cost_usd: 0.5,
      cost_unknown: false,
      duration_ms: 10,
      failure_reasons: ['exit_nonzero: exit code 1'],
      failed_checks: [{ type: 'test', passed: false, summary: "test command 'npm test' exited 1" }],
      learnings: ['run npm ci first'],
    };
    await appendEntries(path, [done, { ...done, task_id: 'B', title: 'second', status: 'blocked', iterations: 1, failure_reasons: [], failed_checks: [], learnings: [] }]);
    const { entries } = await readEntries(path, learningEntrySchema);
    expect(learningNotes(entries)).toBe(
      "- A (first): done in 3 iterations. failed checks: test command 'npm test' exited 1. failures: exit_nonzero: exit code 1. learned: run npm ci first\n- B (second): blocked after 1 iteration",
    );
  });
});
