// The task program driven by runLoop directly (no store): a run resumed with a task in hand that the tracker
// already says is done (the process died between the tracker and the commit) commits that task's work and
// goes on; a resumed task already at its limit is blocked before anything runs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { resolveRun } from '../../src/spec/resolve.js';
import type { RunEvent, RunEventBody } from '../../src/runner/events.js';
import { abortableSleep, runLoop } from '../../src/runner/run-loop.js';
import { startAttempt } from '../../src/tasks/attempt.js';
import { openTaskFile } from '../../src/tasks/sources/open.js';
import { taskSettingsFromConfig } from '../../src/tasks/run-settings.js';
import { taskRunSpec } from '../../src/tasks/run-spec.js';
import { createTaskProgram } from '../../src/tasks/task-program.js';
import { sh } from '../git/git-repo.js';
import { tasksJsonl, useTaskWorkspaces, type TaskWorkspace } from './task-run-harness.js';

const workspace = useTaskWorkspaces();

async function resumeWith(ws: TaskWorkspace, attempt: ReturnType<typeof startAttempt>): Promise<{ events: RunEventBody[]; stop: string; message: string | null }> {
  const env = ws.env();
  const flags = { settings: [{ key: 'agent.command', flag: '--agent-command', raw: ws.agentCommand }, { key: 'loop.max_cost', flag: '--max-cost', raw: 'none' }] };
  const { spec, config } = resolveRun(ws.dir, env, flags);
  const source = await openTaskFile('tasks.jsonl', ws.dir);
  const runSpec = taskRunSpec(spec, config, flags, source.name);
  const program = createTaskProgram({ spec: runSpec, source, settings: taskSettingsFromConfig(config), env, state: { current: attempt, done: [], blocked: [], tasksStarted: 1 } });
  const events: RunEventBody[] = [];
  const summary = await runLoop(runSpec, { now: Date.now, newRunId: () => 'r1', sleep: abortableSleep, env, onEvent: (e) => events.push(e), signal: new AbortController().signal, program, logPath: (_id, n) => join(ws.agentDir, `log-${n}`) }, {
    runId: 'r1',
    state: { iteration: 3, waitedIterations: 0, consecutiveFailures: 0, consecutiveWaits: 0, priorRuntimeMs: 0, startedAtMs: 0, totalCostUsd: 0, costUnknown: true, totalUsage: { tokensIn: 0, tokensOut: 0, cacheRead: 0, cacheWrite: 0 } },
    lastSessionId: null,
  });
  return { events, stop: summary.stopReason, message: summary.message };
}

const ofType = <T extends RunEvent['type']>(events: RunEventBody[], type: T) => events.filter((e) => e.type === type) as Array<Extract<RunEventBody, { type: T }>>;

it('a task the tracker already says is done is committed as that task; the run goes on', { timeout: 60_000 }, async () => {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'first', priority: 2 }, { id: 'B', title: 'second', priority: 1 }) });
  const base = sh(ws.dir, ['rev-parse', 'HEAD']).trim();
  writeFileSync(join(ws.dir, 'a.txt'), 'a\n');
  writeFileSync(join(ws.dir, 'tasks.jsonl'), tasksJsonl({ id: 'A', title: 'first', priority: 2, status: 'done' }, { id: 'B', title: 'second', priority: 1 }));
  ws.script({ B: [{ say: '<promise>COMPLETE</promise>' }] });
  const { events, stop, message } = await resumeWith(ws, { ...startAttempt('r1', { id: 'A', title: 'first' }, base), iterations: 2 });
  expect([stop, message]).toEqual(['success_signal', 'every task is done (2 done and 0 blocked by this run)']);
  expect(ofType(events, 'warning').map((e) => e.message)).toEqual([expect.stringMatching(/^task A was done when the run stopped; its work is committed now \([0-9a-f]{40}\)$/)]);
  expect(ws.subjects()).toEqual(['[ringmaster] B: second', '[ringmaster] A: first', 'initial']);
  expect(ofType(events, 'task_started').map((e) => [e.task_id, e.resumed])).toEqual([['B', false]]);
});

it('a resumed task already at its limit is blocked before anything runs', { timeout: 60_000 }, async () => {
  const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'first', limits: { max_iterations: 2 } }) });
  const base = sh(ws.dir, ['rev-parse', 'HEAD']).trim();
  writeFileSync(join(ws.dir, 'a.txt'), 'half\n');
  const { events, stop } = await resumeWith(ws, { ...startAttempt('r1', { id: 'A', title: 'first' }, base), iterations: 2 });
  expect(stop).toBe('stalled');
  expect(ofType(events, 'task_started').map((e) => [e.task_id, e.resumed])).toEqual([['A', true]]);
  expect(ofType(events, 'task_blocked').map((e) => [e.task_id, e.reason, e.failed_branch])).toEqual([['A', 'max_iterations: 2 iterations used (limit 2)', 'ringmaster/failed/A']]);
  expect(ofType(events, 'iteration_started')).toEqual([]);
  expect(sh(ws.dir, ['show', 'ringmaster/failed/A:a.txt'])).toBe('half\n');
});
