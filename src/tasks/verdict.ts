// One task iteration judged, for both task programs (one task at a time, and parallel tasks in worktrees): the
// agent's answer, the completion check and the verify gate, the attempt's totals, the per-iteration rollback,
// the progress line, the iteration_end and anomaly hooks; then whether the task is complete or must be blocked.
import { isRunFatal } from '../core/error-policy.js';
import type { ProgramContext, SettledIteration } from '../runner/program.js';
import { restoreWorkingState, snapshotWorkingState, type WorkingSnapshot } from '../git/snapshot.js';
import { detectAnomalies, textDigest, type IterationTrace } from './anomaly.js';
import { attemptLimitReached, iterationEntry, recordIteration, type TaskAttempt } from './attempt.js';
import { runCheck } from './checks.js';
import { taskRef, type HookRunner } from './hooks.js';
import type { ProgressEntry } from './journal.js';
import { judgeIteration, shouldRunCheck, type TaskJudgement } from './judge.js';
import { parseTaskResult } from './result.js';
import type { TaskRunSettings } from './run-settings.js';
import type { Task, TaskLimits } from './task.js';

/** A task being worked on, as a task program keeps it between iterations. */
export interface TaskInProgress {
  task: Task;
  attempt: TaskAttempt;
  limits: TaskLimits;
  /** The working state when the iteration started (per-iteration rollback, stalled detection). */
  snapshot: WorkingSnapshot | null;
  previousTrace: IterationTrace | null;
}

/** Where and with what an iteration is judged. */
export interface VerdictDeps {
  /** The directory the agent worked in: the check runs there, snapshots are taken there. */
  workdir: string;
  git: boolean;
  env: Readonly<Record<string, string | undefined>>;
  settings: Pick<TaskRunSettings, 'checkTimeoutMs' | 'rollbackFailedIterations'>;
  hooks: HookRunner | null;
  /** Records the iteration's progress line (progress.jsonl, or a parallel task's lines until its task ends). */
  record(entry: Extract<ProgressEntry, { event: 'iteration' }>): Promise<void>;
}


/** Judges the iteration just settled of the task `current` (its attempt and trace are updated). */
export async function judgeTaskIteration(ctx: ProgramContext, d: VerdictDeps, current: TaskInProgress, settled: SettledIteration): Promise<TaskJudgement> {
  const { task } = current;
  const answer = parseTaskResult(settled.text);
  const check = shouldRunCheck(task, settled.result, answer)
    ? await runCheck(task, { workspace: d.workdir, env: d.env, defaultTimeoutMs: d.settings.checkTimeoutMs, signal: ctx.signal })
    : null;
  const judged = judgeIteration(task, settled.result, answer, check);
  if (judged.warning) ctx.emit({ type: 'warning', time: ctx.now(), message: judged.warning });
  const record = check ? { type: check.type, passed: check.passed, summary: check.summary } : null;
  if (check && !check.interrupted) {
    ctx.emit({ type: 'task_check', time: ctx.now(), task_id: task.id, iteration: settled.iteration, check_type: check.type, passed: check.passed, summary: check.summary });
  }
  const attempt = recordIteration(current.attempt, judged, record);
  current.attempt = attempt;
  const trace: IterationTrace = { textDigest: textDigest(settled.text), filesTree: d.git ? (await snapshotWorkingState(d.workdir)).files : null };
  const entry = iterationEntry(attempt, judged, record, settled.iteration, new Date(ctx.now()).toISOString());
  if (judged.kind === 'failure' && d.settings.rollbackFailedIterations && (settled.changes || current.snapshot)) {
    // From the runner's snapshots when it tracks changes (the attempt is then kept under a ref), else from the task's own.
    if (settled.changes) await settled.changes.discard(ctx.runId, settled.iteration);
    else if (current.snapshot) await restoreWorkingState(d.workdir, current.snapshot);
    entry.note = `${entry.note ?? 'failed'} (its file changes were discarded)`;
  }
  await d.record(entry);
  await d.hooks?.drain();
  const ref = taskRef(task);
  const result = judged.kind === 'waiting' || judged.kind === 'interrupted' ? null : answer.kind === 'result' ? answer.result : null;
  const unitIteration = settled.step.unit?.iteration ?? attempt.iterations;
  await d.hooks?.fire({ event: 'iteration_end', time: ctx.now(), run_id: ctx.runId, task: ref, iteration: unitIteration, outcome: judged.kind, result }, task);
  // A completing iteration that changed nothing is a check that the work was done, not a stall.
  if (judged.kind !== 'waiting' && judged.kind !== 'interrupted' && judged.kind !== 'complete') {
    for (const anomaly of detectAnomalies(unitIteration, current.snapshot?.files ?? null, trace, current.previousTrace)) {
      ctx.emit({ type: 'task_anomaly', time: ctx.now(), task_id: task.id, iteration: settled.iteration, kind: anomaly.kind, message: anomaly.message });
      await d.hooks?.fire({ event: 'anomaly', time: ctx.now(), run_id: ctx.runId, task: ref, iteration: unitIteration, anomaly }, task);
    }
    current.previousTrace = trace;
  }
  return judged;
}

/** What the judged iteration means for its task: nothing yet (go on), complete, or blocked with a reason. */
export type TaskTurn = { kind: 'go_on' } | { kind: 'complete' } | { kind: 'block'; reason: string };

/** The task's turn after `judged`: complete, blocked (the agent said so, a limit, the failure threshold), or go on. */
export function taskTurn(judged: TaskJudgement, current: TaskInProgress, failureThreshold: number): TaskTurn {
  if (judged.kind === 'waiting' || judged.kind === 'interrupted' || isRunFatal(judged.result.errorKind)) return { kind: 'go_on' };
  if (judged.kind === 'complete') return { kind: 'complete' };
  const reason = judged.kind === 'blocked' ? (judged.blocker ?? 'the agent is blocked') : (attemptLimitReached(current.attempt, current.limits) ?? failureThresholdReached(current.attempt, failureThreshold));
  return reason === null ? { kind: 'go_on' } : { kind: 'block', reason };
}

/** The run's failure threshold, applied to the task's own consecutive failures (reaching it blocks the task). */
export function failureThresholdReached(attempt: TaskAttempt, threshold: number): string | null {
  if (attempt.consecutiveFailures < threshold) return null;
  return `failure_threshold: ${attempt.consecutiveFailures} consecutive failed iterations (limit ${threshold})`;
}
