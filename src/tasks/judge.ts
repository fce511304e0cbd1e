// The verdict on one task iteration: what the agent said (structured result or plain signal), what its
// completion check said, and the verify gate between them: when a task has a check, a claimed completion
// counts only if the check passes; otherwise the iteration is a failure and the check's output goes to the
// next iteration. Pure: the check is run by the caller (when `shouldRunCheck` says so) and passed in.
import { isWait } from '../core/error-policy.js';
import type { IterationResult } from '../core/types.js';
import { checkFeedback, type CheckOutcome } from './checks.js';
import { describeTaskResult, type ParsedTaskResult } from './result.js';
import type { Task } from './task.js';

/** What a task iteration came to. `waiting`/`interrupted` are the runner's (usage limits, stops). */
export type TaskIterationKind = 'complete' | 'continue' | 'failure' | 'blocked' | 'waiting' | 'interrupted';

/** The judged iteration. */
export interface TaskJudgement {
  kind: TaskIterationKind;
  /** The result as the task loop judges it (what the runner records and decides on). */
  result: IterationResult;
  /** The agent's answer in words ('complete: a.ts', 'signal'), or null when it gave none. */
  said: string | null;
  /** One line for progress.jsonl and the next prompt's progress notes. */
  note: string | null;
  /** What the next iteration must know (a failed check with the end of its output); '' for nothing. */
  feedback: string;
  /** For learning.jsonl: why the iteration failed. */
  failureReason: string | null;
  /** The agent's own learnings, if it gave any. */
  learnings: string[];
  /** Why the task is blocked (kind `blocked`). */
  blocker: string | null;
  /** Something to warn about (a malformed result block). */
  warning: string | null;
}

function agentFailed(result: IterationResult): boolean {
  return result.failureSignal || result.exitCode !== 0 || result.errorKind !== 'none';
}

/** True when the task's check should run after this iteration (it has one, and the agent neither failed nor gave up). */
export function shouldRunCheck(task: Task, result: IterationResult, answer: ParsedTaskResult): boolean {
  if (task.completion.type === 'signal') return false;
  if (result.errorKind === 'interrupted' || isWait(result.errorKind)) return false;
  if (answer.kind === 'result') return answer.result.status === 'complete' || answer.result.status === 'continue';
  return result.successSignal || !agentFailed(result);
}

/** Judges one iteration of `task`; `check` is the check's outcome when `shouldRunCheck` said to run it. */
export function judgeIteration(task: Task, result: IterationResult, answer: ParsedTaskResult, check: CheckOutcome | null): TaskJudgement {
  const structured = answer.kind === 'result' ? answer.result : null;
  const said = structured ? describeTaskResult(structured) : result.successSignal ? 'signal' : null;
  const base = {
    said,
    learnings: answer.kind === 'result' ? answer.learnings : [],
    warning: answer.kind === 'invalid' ? `task ${task.id}: ${answer.problem}; the plain signals count instead` : null,
    blocker: null,
    failureReason: null,
    feedback: '',
  };
  const failure = (message: string, feedback = '', kind: IterationResult['errorKind'] = 'failure_signal'): TaskJudgement => ({
    ...base,
    kind: 'failure',
    result: { ...result, successSignal: false, errorKind: result.errorKind === 'none' ? kind : result.errorKind, errorMessage: message },
    note: message,
    failureReason: message,
    feedback,
  });

  if (result.errorKind === 'interrupted' || (check?.interrupted ?? false)) {
    return { ...base, kind: 'interrupted', result: { ...result, successSignal: false, errorKind: 'interrupted', errorMessage: result.errorMessage ?? 'interrupted' }, note: 'interrupted' };
  }
  if (isWait(result.errorKind) && !result.successSignal && !structured) {
    return { ...base, kind: 'waiting', result, note: result.errorMessage };
  }
  if (structured?.status === 'blocked') {
    return { ...base, kind: 'blocked', result: { ...result, successSignal: false }, note: `blocked: ${structured.blocker}`, blocker: `the agent is blocked: ${structured.blocker}` };
  }
  if (structured?.status === 'failed') return failure(`the agent reported a failure: ${structured.error}`);

  const claimed = structured ? structured.status === 'complete' : result.successSignal;
  if (!claimed && agentFailed(result) && !check) return failure(result.errorMessage ?? `exit code ${result.exitCode ?? result.exitSignal ?? '?'}`);
  const reason = structured?.status === 'continue' && structured.reason !== '' ? structured.reason : null;

  if (!check) {
    if (claimed) return { ...base, kind: 'complete', result: { ...result, successSignal: true }, note: null };
    return { ...base, kind: 'continue', result: { ...result, successSignal: false }, note: reason };
  }
  if (check.passed) return { ...base, kind: 'complete', result: { ...result, successSignal: true, failureSignal: false, errorKind: 'none', errorMessage: null }, note: check.summary };
  // The verify gate: a claimed completion the check rejects is a failed iteration (verify_failed).
  if (claimed) return failure(`claimed complete, but ${check.summary}`, checkFeedback(check), 'verify_failed');
  return { ...base, kind: 'continue', result: { ...result, successSignal: false }, note: [reason, check.summary].filter((x) => x !== null).join('; '), feedback: checkFeedback(check) };
}
