// The library entry as users import it (`import { runLoop } from 'ringmaster'`, resolved through package.json
// "exports"), running a real loop without the CLI, store or lock, exactly like the README's example.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { planAgent, useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('work\n');

it("import { runLoop, resolveRun } from 'ringmaster' runs a loop and reports its events", async () => {
  const { runLoop, resolveRun, abortableSleep } = await import('ringmaster');
  const { spec } = resolveRun(ws.dir, {}, {
    prompt: 'Fix the tests. Print <promise>COMPLETE</promise> when green.',
    maxIterations: '4',
    settings: [{ key: 'agent.command', flag: '--agent-command', raw: planAgent('ok,complete') }],
  });
  const types: string[] = [];
  const summary = await runLoop(spec, {
    now: Date.now,
    newRunId: () => 'lib-run',
    sleep: abortableSleep,
    env: { ...process.env, RINGMASTER_HOME: join(ws.dir, 'home') },
    onEvent: (event) => types.push(event.type),
    signal: new AbortController().signal,
  });
  expect(summary).toMatchObject({ runId: 'lib-run', status: 'completed', stopReason: 'success_signal' });
  expect(summary.state.iteration).toBe(2);
  expect(types).toEqual([
    'run_started', 'iteration_started', 'iteration_completed', 'iteration_started', 'completion_signal_detected', 'iteration_completed', 'completed', 'run_finished',
  ]);
});

it("import { RunController, openStore } from 'ringmaster' records a run in a store, events numbered from 1", async () => {
  const { RunController, openStore, resolveRun } = await import('ringmaster');
  const env = { RINGMASTER_HOME: join(ws.dir, 'home') };
  const { spec } = resolveRun(ws.dir, {}, { prompt: 'go', maxIterations: '3', settings: [{ key: 'agent.command', flag: '--agent-command', raw: planAgent('ok,complete') }] });
  const store = await openStore({ env });
  try {
    const events: Array<[number, string]> = [];
    const controller = new RunController({ store, env, runId: 'ctl-run', spec, workspace: ws.dir, mode: 'create', onEvent: (e) => events.push([e.seq, e.type]) });
    const summary = await controller.run();
    expect(summary).toMatchObject({ runId: 'ctl-run', status: 'completed', stopReason: 'success_signal' });
    expect(events.map(([seq]) => seq)).toEqual(events.map((_, i) => i + 1));
    expect((await store.listEvents('ctl-run')).map((e) => [e.seq, e.type])).toEqual(events);
    expect((await store.listIterations('ctl-run')).map((r) => [r.number, r.status])).toEqual([[1, 'success'], [2, 'complete']]);
    expect(await store.getRun('ctl-run')).toMatchObject({ status: 'completed', stop_reason: 'success_signal', owner_pid: null });
  } finally {
    await store.close();
  }
});

it("import { prepareWorkflowRun, RunController } from 'ringmaster' runs a workflow and stores its metadata", async () => {
  const { prepareWorkflowRun, RunController, openStore, workflowMetaSchema } = await import('ringmaster');
  mkdirSync(join(ws.dir, '.ringmaster', 'workflows'), { recursive: true });
  writeFileSync(join(ws.dir, '.ringmaster', 'workflows', 'fix.yaml'), 'name: fix\nloop:\n  until: COMPLETE\n  max_iterations: 3\nprompt: "Fix: $USER_MESSAGE"\n');
  const env = { RINGMASTER_HOME: join(ws.dir, 'home') };
  const { spec, program } = prepareWorkflowRun({
    workspace: ws.dir,
    env,
    workflow: 'fix',
    message: 'the tests',
    flags: { settings: [{ key: 'agent.command', flag: '--agent-command', raw: planAgent('ok,complete') }] },
  });
  const store = await openStore({ env });
  try {
    const types: string[] = [];
    const summary = await new RunController({ store, env, runId: 'wf-run', spec, workspace: ws.dir, mode: 'create', program, onEvent: (e) => types.push(e.type) }).run();
    expect(summary).toMatchObject({ status: 'completed', stopReason: 'success_signal', message: 'Loop complete: fix (2 iterations)' });
    expect(types.filter((t) => ['workflow_started', 'step_started', 'loop_completed', 'step_completed'].includes(t))).toEqual(['workflow_started', 'step_started', 'loop_completed', 'step_completed']);
    const run = await store.getRun('wf-run');
    expect(run?.kind).toBe('workflow');
    expect(workflowMetaSchema.parse(run?.meta)).toMatchObject({ workflow: 'fix', iteration_count: 2, max_iterations: 3, user_message: 'the tests', current_step: null });
    expect(readFileSync(join(ws.dir, '.plan-agent-prompt-1'), 'utf8')).toBe('Fix: the tests');
  } finally {
    await store.close();
  }
});

it("the task pieces are importable from 'ringmaster': open a task file, pick the next task, read an answer", async () => {
  const { openTaskFile, explainSelection, parseTaskResult, TaskFileError } = await import('ringmaster');
  writeFileSync(join(ws.dir, 'tasks.jsonl'), '{"id":"A","title":"first","priority":1}\n{"id":"B","title":"second","priority":2}\n');
  const source = await openTaskFile('tasks.jsonl', ws.dir);
  const selection = explainSelection(await source.load(), { priorityOrder: source.priorityOrder });
  expect([selection.task?.id, selection.reason]).toEqual(['B', 'priority 2: the highest of the tasks that can run']);
  expect(parseTaskResult('<ringmaster-result>{"status":"blocked","blocker":"no key"}</ringmaster-result>')).toEqual({ kind: 'result', result: { status: 'blocked', blocker: 'no key' }, learnings: [] });
  writeFileSync(join(ws.dir, 'tasks.jsonl'), '{"id":"A"}\n');
  await expect(source.load()).rejects.toBeInstanceOf(TaskFileError);
});

it("a task run from the library: prepareTaskRun with LoopHooks callbacks, driven by a RunController", async () => {
  const { RunController, openStore, prepareTaskRun } = await import('ringmaster');
  writeFileSync(join(ws.dir, 'tasks.jsonl'), '{"id":"A","title":"first","priority":2}\n{"id":"B","title":"second","priority":1}\n');
  const env = { RINGMASTER_HOME: join(ws.dir, 'home'), RINGMASTER_LOOP_BACKOFF: '0s' };
  const seen: string[] = [];
  const { spec, program } = await prepareTaskRun({
    workspace: ws.dir,
    env,
    flags: { settings: [{ key: 'agent.command', flag: '--agent-command', raw: planAgent('complete') }] },
    callbacks: {
      onTaskStart: (task) => void seen.push(`start ${task.id}`),
      onIterationStart: (task, n) => void seen.push(`iteration ${task.id} ${n}`),
      onIterationEnd: (task, n) => void seen.push(`end ${task.id} ${n}`),
      onTaskEnd: (task, success) => void seen.push(`task end ${task.id} ${success}`),
    },
  });
  const store = await openStore({ env });
  try {
    const summary = await new RunController({ store, env, runId: 'lib-tasks', spec, workspace: ws.dir, mode: 'create', program }).run();
    expect(summary).toMatchObject({ status: 'completed', stopReason: 'success_signal', message: 'every task is done (2 done and 0 blocked by this run)' });
    expect(seen).toEqual(['start A', 'iteration A 1', 'end A 1', 'task end A true', 'start B', 'iteration B 1', 'end B 1', 'task end B true']);
    expect((await store.listIterations('lib-tasks')).map((r) => [r.number, r.unit_id, r.status])).toEqual([[1, 'A', 'complete'], [2, 'B', 'complete']]);
    expect(await store.getRun('lib-tasks')).toMatchObject({ kind: 'tasks', meta: { done: ['A', 'B'] } });
  } finally {
    await store.close();
  }
});
