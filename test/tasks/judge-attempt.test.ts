// The verify gate and the accounting of one attempt at a task: every combination of what the agent said,
// what its process did and what the check found; limits; progress and learning lines; rebuild on resume.
import { describe, expect, it } from 'vitest';
import type { IterationResult } from '../../src/core/types.js';
import { detectAnomalies, textDigest } from '../../src/tasks/anomaly.js';
import { attemptFromProgress, attemptLimitReached, iterationEntry, learningEntry, recordIteration, startAttempt } from '../../src/tasks/attempt.js';
import type { CheckOutcome } from '../../src/tasks/checks.js';
import { judgeIteration, shouldRunCheck } from '../../src/tasks/judge.js';
import { parseTaskResult } from '../../src/tasks/result.js';
import type { Completion, Task } from '../../src/tasks/task.js';
import { makeTask } from './task-fixture.js';

function result(fields: Partial<IterationResult> = {}): IterationResult {
  return { exitCode: 0, exitSignal: null, successSignal: false, failureSignal: false, durationMs: 1000, usage: null, costUsd: 0.1, sessionId: null, model: null, errorKind: 'none', errorMessage: null, resetAtMs: null, ...fields };
}

const task = (completion: Completion = { type: 'signal' }): Task => makeTask('T-1', { title: 'the task', status: 'in_progress', completion, line: 1 });

const testTask = task({ type: 'test', command: 'npm test', timeoutMs: null });
const failedCheck: CheckOutcome = { type: 'test', passed: false, summary: "test command 'npm test' exited 1", output: '1 failing\n', interrupted: false };
const passedCheck: CheckOutcome = { type: 'test', passed: true, summary: "test command 'npm test' exited 0", output: '', interrupted: false };
const answer = (json: string) => parseTaskResult(`<ringmaster-result>${json}</ringmaster-result>`);
const none = parseTaskResult('');

describe('judgeIteration: signal completion', () => {
  it('the plain signal or a structured complete completes; nothing claimed continues', () => {
    expect(judgeIteration(task(), result({ successSignal: true }), none, null)).toMatchObject({ kind: 'complete', said: 'signal', result: { successSignal: true } });
    expect(judgeIteration(task(), result(), answer('{"status":"complete","artifacts":["a.ts"]}'), null)).toMatchObject({ kind: 'complete', said: 'complete: a.ts', result: { successSignal: true } });
    expect(judgeIteration(task(), result(), answer('{"status":"continue","reason":"half"}'), null)).toMatchObject({ kind: 'continue', note: 'half', result: { successSignal: false } });
    expect(judgeIteration(task(), result(), none, null)).toMatchObject({ kind: 'continue', said: null, note: null });
  });

  it('a structured answer outranks the plain signal; failed and blocked are taken as said', () => {
    expect(judgeIteration(task(), result({ successSignal: true }), answer('{"status":"continue"}'), null)).toMatchObject({ kind: 'continue', result: { successSignal: false } });
    expect(judgeIteration(task(), result(), answer('{"status":"failed","error":"no disk"}'), null)).toMatchObject({
      kind: 'failure',
      result: { errorKind: 'failure_signal', errorMessage: 'the agent reported a failure: no disk' },
      failureReason: 'the agent reported a failure: no disk',
    });
    expect(judgeIteration(task(), result(), answer('{"status":"blocked","blocker":"need a key"}'), null)).toMatchObject({ kind: 'blocked', blocker: 'the agent is blocked: need a key', note: 'blocked: need a key' });
  });

  it('a crashed agent is a failure with its message; waits and interrupts are the runner’s', () => {
    expect(judgeIteration(task(), result({ exitCode: 1, errorKind: 'exit_nonzero', errorMessage: 'boom' }), none, null)).toMatchObject({ kind: 'failure', note: 'boom', result: { errorKind: 'exit_nonzero' } });
    expect(judgeIteration(task(), result({ exitCode: 1, errorKind: 'usage_limit', errorMessage: 'limit' }), none, null)).toMatchObject({ kind: 'waiting', result: { errorKind: 'usage_limit' } });
    expect(judgeIteration(task(), result({ exitCode: null, errorKind: 'interrupted' }), none, null)).toMatchObject({ kind: 'interrupted' });
  });

  it('a malformed result block is a warning, and the plain signal still counts', () => {
    const j = judgeIteration(task(), result({ successSignal: true }), parseTaskResult('<ringmaster-result>{x</ringmaster-result>'), null);
    expect(j.kind).toBe('complete');
    expect(j.warning?.startsWith('task T-1: the ringmaster-result block is not valid JSON (')).toBe(true);
  });
});

describe('the verify gate', () => {
  it('runs the check after an iteration that did not fail', () => {
    expect(shouldRunCheck(task(), result({ successSignal: true }), none)).toBe(false);
    expect(shouldRunCheck(testTask, result(), none)).toBe(true);
    expect(shouldRunCheck(testTask, result({ exitCode: 1, errorKind: 'exit_nonzero' }), none)).toBe(false);
    expect(shouldRunCheck(testTask, result({ exitCode: 1, successSignal: true }), none)).toBe(true);
    expect(shouldRunCheck(testTask, result(), answer('{"status":"blocked"}'))).toBe(false);
    expect(shouldRunCheck(testTask, result({ errorKind: 'rate_limit', exitCode: 1 }), none)).toBe(false);
  });

  it('a claimed completion with a failing check is a failure; the check output goes to the next iteration', () => {
    const j = judgeIteration(testTask, result({ successSignal: true }), none, failedCheck);
    expect(j).toMatchObject({
      kind: 'failure',
      result: { successSignal: false, errorKind: 'verify_failed', errorMessage: "claimed complete, but test command 'npm test' exited 1" },
      feedback: "test command 'npm test' exited 1. The end of its output:\n```\n1 failing\n```",
    });
  });

  it('a passing check completes the task even without a claim; a failing one without a claim continues', () => {
    expect(judgeIteration(testTask, result(), none, passedCheck)).toMatchObject({ kind: 'complete', note: "test command 'npm test' exited 0", result: { successSignal: true } });
    expect(judgeIteration(testTask, result(), answer('{"status":"continue","reason":"2 tests left"}'), failedCheck)).toMatchObject({
      kind: 'continue',
      note: "2 tests left; test command 'npm test' exited 1",
      feedback: "test command 'npm test' exited 1. The end of its output:\n```\n1 failing\n```",
    });
  });

  it('an interrupted check is no verdict', () => {
    expect(judgeIteration(testTask, result({ successSignal: true }), none, { ...failedCheck, interrupted: true })).toMatchObject({ kind: 'interrupted' });
  });
});

describe('attempt accounting', () => {
  it('counts iterations, cost and time, and stops at the task limits', () => {
    let attempt = startAttempt('r1', task(), 'abc');
    const check = { type: 'test', passed: false, summary: 'exited 1' };
    attempt = recordIteration(attempt, judgeIteration(testTask, result({ successSignal: true }), none, failedCheck), check);
    attempt = recordIteration(attempt, judgeIteration(task(), result({ exitCode: 1, errorKind: 'usage_limit' }), none, null), null);
    attempt = recordIteration(attempt, judgeIteration(task(), result({ costUsd: null }), answer('{"status":"continue","learnings":["use pnpm"]}'), null), null);
    expect(attempt).toMatchObject({ iterations: 2, costUsd: 0.2, costUnknown: true, runtimeMs: 3000, failedChecks: [check], learnings: ['use pnpm'], feedback: '' });
    expect(attempt.failureReasons).toEqual(["claimed complete, but test command 'npm test' exited 1"]);
    expect(attemptLimitReached(attempt, { maxIterations: 3, maxRuntimeMs: null, maxCostUsd: null })).toBeNull();
    expect(attemptLimitReached(attempt, { maxIterations: 2, maxRuntimeMs: null, maxCostUsd: null })).toBe('max_iterations: 2 iterations used (limit 2)');
    expect(attemptLimitReached(attempt, { maxIterations: null, maxRuntimeMs: null, maxCostUsd: 0.15 })).toBe('max_cost: $0.2000 spent (limit $0.15)');
    expect(attemptLimitReached(attempt, { maxIterations: null, maxRuntimeMs: 2000, maxCostUsd: null })).toBe('max_runtime: 3s used (limit 2s)');
    expect(learningEntry(attempt, 'blocked', 'T')).toEqual({
      time: 'T',
      run_id: 'r1',
      task_id: 'T-1',
      title: 'the task',
      status: 'blocked',
      iterations: 2,
      cost_usd: 0.2,
      cost_unknown: true,
      duration_ms: 3000,
      failure_reasons: ["claimed complete, but test command 'npm test' exited 1"],
      failed_checks: [check],
      learnings: ['use pnpm'],
    });
  });

  it('is rebuilt from progress.jsonl after a resume', () => {
    const check = { type: 'test', passed: false, summary: 'exited 1' };
    let attempt = startAttempt('r1', task(), 'abc');
    const entries = [
      { time: 'T', run_id: 'r1', task_id: 'T-1', event: 'task_started' as const, title: 'the task', attempt_base: 'abc' },
    ];
    const judged = [
      [judgeIteration(testTask, result({ successSignal: true }), none, failedCheck), check],
      [judgeIteration(task(), result(), none, null), null],
    ] as const;
    const progress = [...entries, ...judged.map(([j, c], i) => {
      attempt = recordIteration(attempt, j, c);
      return iterationEntry(attempt, j, c, i + 5, 'T');
    })];
    expect(progress[1]).toEqual({ time: 'T', run_id: 'r1', task_id: 'T-1', event: 'iteration', iteration: 1, run_iteration: 5, outcome: 'failure', result: 'signal', note: "claimed complete, but test command 'npm test' exited 1", duration_ms: 1000, cost_usd: 0.1, check });
    expect(attemptFromProgress(progress, 'r1', 'T-1')).toEqual({ ...attempt, feedback: '' });
    expect(attemptFromProgress(progress, 'r2', 'T-1')).toBeNull();
    expect(attemptFromProgress([...progress, { time: 'T', run_id: 'r1', task_id: 'T-1', event: 'task_completed', iterations: 2, cost_usd: 0.2, duration_ms: 2000 }], 'r1', 'T-1')).toBeNull();
  });
});

describe('anomalies', () => {
  it('stalled when no file changed; repeated output when the text is the same as before', () => {
    const same = textDigest('working  on it\n');
    expect(same).toBe(textDigest('working on it'));
    expect(textDigest('  \n')).toBeNull();
    expect(detectAnomalies(2, 'tree1', { textDigest: same, filesTree: 'tree1' }, { textDigest: same, filesTree: 'tree1' })).toEqual([
      { kind: 'stalled', message: 'iteration 2 changed no file in the workspace' },
      { kind: 'repeated_output', message: 'iteration 2 printed the same text as the iteration before it' },
    ]);
    expect(detectAnomalies(1, 'tree1', { textDigest: same, filesTree: 'tree2' }, null)).toEqual([]);
  });
});
