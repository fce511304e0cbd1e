// The task loop's state as stored in the run's metadata after every step: the setup, the task in hand and its
// attempt so far (the commit it started from, iterations, cost, failures, feedback), the tasks this run
// finished. `resume` rebuilds the program from it and continues the same task.
import { z } from 'zod';
import type { TaskAttempt } from './attempt.js';
import { progressEntrySchema } from './journal.js';
import { storedSetupSchema, type StoredSetup } from './run-settings.js';

/** What the run has done so far. */
export interface TaskRunState {
  /** The attempt at the task in hand, or null between tasks. */
  current: TaskAttempt | null;
  /** Ids of the tasks this run completed, in order. */
  done: string[];
  /** Ids of the tasks this run blocked, in order. */
  blocked: string[];
  /** Tasks this run started (max_tasks counts them). */
  tasksStarted: number;
}

/** The state of a run that has not started a task yet. */
export const EMPTY_TASK_RUN_STATE: TaskRunState = { current: null, done: [], blocked: [], tasksStarted: 0 };

const checkSchema = z.object({ type: z.string(), passed: z.boolean(), summary: z.string() });

const attemptSchema = z.object({
  task_id: z.string(),
  title: z.string(),
  base: z.string().nullable(),
  iterations: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  cost_unknown: z.boolean(),
  runtime_ms: z.number().nonnegative(),
  consecutive_failures: z.number().int().nonnegative(),
  failure_reasons: z.array(z.string()),
  failed_checks: z.array(checkSchema),
  learnings: z.array(z.string()),
  feedback: z.string(),
});

/** An attempt as stored. */
export type StoredAttempt = z.infer<typeof attemptSchema>;

/** A task of a parallel run in its own worktree (tasks.parallelism above 1), as stored. */
export const storedLaneSchema = z.object({
  attempt: attemptSchema,
  /** The worktree's top directory, its branch, and where the agent works in it. */
  worktree: z.object({ path: z.string(), branch: z.string(), workdir: z.string() }),
  /** running: the agent works on it; complete: its commit waits for its turn to merge. */
  phase: z.enum(['running', 'complete']),
  /** Its progress lines, written to progress.jsonl by the run when the task ends. */
  entries: z.array(progressEntrySchema),
});
/** A parallel task as stored. */
export type StoredLane = z.infer<typeof storedLaneSchema>;

/** The metadata of a task run (snake_case: `ringmaster show --json` prints it as `meta`). */
export const taskRunMetaSchema = storedSetupSchema.extend({
  current: attemptSchema.nullable(),
  done: z.array(z.string()),
  blocked: z.array(z.string()),
  tasks_started: z.number().int().nonnegative(),
  /** The tasks in hand of a parallel run, in the order they started (absent when tasks run one at a time). */
  lanes: z.array(storedLaneSchema).optional(),
});
/** The metadata of a task run. */
export type TaskRunMeta = z.infer<typeof taskRunMetaSchema>;

/** An attempt in its stored form. */
export function storeAttempt(a: TaskAttempt): StoredAttempt {
  return {
    task_id: a.taskId,
    title: a.title,
    base: a.base,
    iterations: a.iterations,
    cost_usd: a.costUsd,
    cost_unknown: a.costUnknown,
    runtime_ms: a.runtimeMs,
    consecutive_failures: a.consecutiveFailures,
    failure_reasons: a.failureReasons,
    failed_checks: a.failedChecks,
    learnings: a.learnings,
    feedback: a.feedback,
  };
}

/** An attempt of run `runId` back from its stored form. */
export function loadAttempt(a: StoredAttempt, runId: string): TaskAttempt {
  return {
    runId,
    taskId: a.task_id,
    title: a.title,
    base: a.base,
    iterations: a.iterations,
    costUsd: a.cost_usd,
    costUnknown: a.cost_unknown,
    runtimeMs: a.runtime_ms,
    consecutiveFailures: a.consecutive_failures,
    failureReasons: a.failure_reasons,
    failedChecks: a.failed_checks,
    learnings: a.learnings,
    feedback: a.feedback,
  };
}

/** The metadata to store for `state` under `setup`. */
export function taskRunMeta(setup: StoredSetup, state: TaskRunState): TaskRunMeta {
  return { ...setup, current: state.current === null ? null : storeAttempt(state.current), done: state.done, blocked: state.blocked, tasks_started: state.tasksStarted };
}

/** The state back from stored metadata of run `runId`. */
export function taskRunStateFrom(meta: TaskRunMeta, runId: string): TaskRunState {
  return { current: meta.current === null ? null : loadAttempt(meta.current, runId), done: meta.done, blocked: meta.blocked, tasksStarted: meta.tasks_started };
}

/** A task run's progress as the history commands show it, from its stored metadata (null when unreadable). */
export interface TaskRunSummary {
  /** The task in hand and its iterations so far, or null (a parallel run: the first of `inHand`). */
  current: { id: string; iterations: number } | null;
  /** Every task in hand (several in a parallel run), in the order they started. */
  inHand: Array<{ id: string; iterations: number }>;
  done: string[];
  blocked: string[];
}

/** Reads the progress of a task run from its metadata. */
export function taskRunSummary(meta: unknown): TaskRunSummary | null {
  const parsed = taskRunMetaSchema.safeParse(meta);
  if (!parsed.success) return null;
  const { current, done, blocked, lanes } = parsed.data;
  const inHand = [...(current === null ? [] : [current]), ...(lanes ?? []).map((l) => l.attempt)].map((a) => ({ id: a.task_id, iterations: a.iterations }));
  return { current: inHand[0] ?? null, inHand, done, blocked };
}
