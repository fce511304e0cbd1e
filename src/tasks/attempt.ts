// One attempt at a task within a run: its iterations, cost, time, failures and learnings, turned into
// progress.jsonl and learning.jsonl lines, and checked against the task's limits. Rebuilt after a resume
// from the run's progress.jsonl lines. Pure: times come in as values.
import type { CheckRecord, LearningEntry, ProgressEntry } from './journal.js';
import type { TaskJudgement } from './judge.js';
import { taskLimitReached, type TaskUsage } from './limits.js';
import type { Task, TaskLimits } from './task.js';

/** The running totals of one attempt at a task. */
export interface TaskAttempt {
  runId: string;
  taskId: string;
  title: string;
  /** The commit the task started from (rollback target), null outside git. */
  base: string | null;
  /** Iterations that count (waits for a usage limit do not). */
  iterations: number;
  costUsd: number;
  costUnknown: boolean;
  /** Time the agent spent on the task (sum of its iterations). */
  runtimeMs: number;
  /** Failed iterations in a row (the run's failure threshold blocks the task when reached). */
  consecutiveFailures: number;
  failureReasons: string[];
  failedChecks: CheckRecord[];
  learnings: string[];
  /** What the next iteration must know ('' for nothing). */
  feedback: string;
}

/** A fresh attempt at `task`. */
export function startAttempt(runId: string, task: Pick<Task, 'id' | 'title'>, base: string | null): TaskAttempt {
  return { runId, taskId: task.id, title: task.title, base, iterations: 0, costUsd: 0, costUnknown: false, runtimeMs: 0, consecutiveFailures: 0, failureReasons: [], failedChecks: [], learnings: [], feedback: '' };
}

/** The attempt after one more judged iteration. */
export function recordIteration(attempt: TaskAttempt, judged: TaskJudgement, check: CheckRecord | null): TaskAttempt {
  const counts = judged.kind !== 'waiting' && judged.kind !== 'interrupted';
  const cost = judged.result.costUsd;
  return {
    ...attempt,
    iterations: attempt.iterations + (counts ? 1 : 0),
    costUsd: attempt.costUsd + (cost ?? 0),
    costUnknown: attempt.costUnknown || cost === null,
    runtimeMs: attempt.runtimeMs + judged.result.durationMs,
    consecutiveFailures: judged.kind === 'failure' ? attempt.consecutiveFailures + 1 : counts ? 0 : attempt.consecutiveFailures,
    failureReasons: judged.failureReason ? [...attempt.failureReasons, judged.failureReason] : attempt.failureReasons,
    failedChecks: check && !check.passed ? [...attempt.failedChecks, check] : attempt.failedChecks,
    learnings: [...attempt.learnings, ...judged.learnings],
    feedback: judged.kind === 'interrupted' || judged.kind === 'waiting' ? attempt.feedback : judged.feedback,
  };
}

/** What the attempt has used, for the limits. */
export function attemptUsage(attempt: TaskAttempt): TaskUsage {
  return { iterations: attempt.iterations, runtimeMs: attempt.runtimeMs, costUsd: attempt.costUsd };
}

/** The per-task limit the attempt has reached, in words, or null. */
export function attemptLimitReached(attempt: TaskAttempt, limits: TaskLimits): string | null {
  return taskLimitReached(attemptUsage(attempt), limits);
}

/** The progress.jsonl line of one task iteration. */
export function iterationEntry(attempt: TaskAttempt, judged: TaskJudgement, check: CheckRecord | null, runIteration: number, time: string): Extract<ProgressEntry, { event: 'iteration' }> {
  return {
    time,
    run_id: attempt.runId,
    task_id: attempt.taskId,
    event: 'iteration',
    iteration: attempt.iterations,
    run_iteration: runIteration,
    outcome: judged.kind,
    result: judged.said,
    note: judged.note,
    duration_ms: judged.result.durationMs,
    cost_usd: judged.result.costUsd,
    check,
  };
}

/** The learning.jsonl line of a finished attempt. */
export function learningEntry(attempt: TaskAttempt, status: 'done' | 'blocked', time: string): LearningEntry {
  return {
    time,
    run_id: attempt.runId,
    task_id: attempt.taskId,
    title: attempt.title,
    status,
    iterations: attempt.iterations,
    cost_usd: attempt.costUnknown && attempt.costUsd === 0 ? null : attempt.costUsd,
    cost_unknown: attempt.costUnknown,
    duration_ms: attempt.runtimeMs,
    failure_reasons: attempt.failureReasons,
    failed_checks: attempt.failedChecks,
    learnings: attempt.learnings,
  };
}

/**
 * Rebuilds the attempt at `taskId` in run `runId` from progress.jsonl (after a resume): the iterations since
 * its last task_started line in that run. Feedback of a failed check is not kept in the file: the next
 * iteration after a resume runs without it. Null when the run never started the task.
 */
export function attemptFromProgress(entries: readonly ProgressEntry[], runId: string, taskId: string): TaskAttempt | null {
  let attempt: TaskAttempt | null = null;
  for (const e of entries) {
    if (e.run_id !== runId || e.task_id !== taskId) continue;
    if (e.event === 'task_started') attempt = startAttempt(runId, { id: taskId, title: e.title }, e.attempt_base);
    else if (e.event === 'task_completed' || e.event === 'task_blocked') attempt = null;
    else if (attempt !== null) {
      const a: TaskAttempt = attempt;
      const counts = e.outcome !== 'waiting' && e.outcome !== 'interrupted';
      attempt = {
        ...a,
        iterations: a.iterations + (counts ? 1 : 0),
        costUsd: a.costUsd + (e.cost_usd ?? 0),
        costUnknown: a.costUnknown || e.cost_usd === null,
        runtimeMs: a.runtimeMs + e.duration_ms,
        consecutiveFailures: e.outcome === 'failure' ? a.consecutiveFailures + 1 : counts ? 0 : a.consecutiveFailures,
        failureReasons: e.outcome === 'failure' && e.note ? [...a.failureReasons, e.note] : a.failureReasons,
        failedChecks: e.check && !e.check.passed ? [...a.failedChecks, e.check] : a.failedChecks,
      };
    }
  }
  return attempt;
}
