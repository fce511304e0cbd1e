// The task loop's state as stored in the run's metadata after every step: the setup, the task in hand and its
// attempt so far (the commit it started from, iterations, cost, failures, feedback), the tasks this run
// finished. `resume` rebuilds the program from it and continues the same task.
import { z } from 'zod';
import type { TaskAttempt } from './attempt.js';
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

/** The metadata of a task run (snake_case: `ringmaster show --json` prints it as `meta`). */
export const taskRunMetaSchema = storedSetupSchema.extend({
  current: attemptSchema.nullable(),
  done: z.array(z.string()),
  blocked: z.array(z.string()),
  tasks_started: z.number().int().nonnegative(),
});
/** The metadata of a task run. */
export type TaskRunMeta = z.infer<typeof taskRunMetaSchema>;

/** The metadata to store for `state` under `setup`. */
export function taskRunMeta(setup: StoredSetup, state: TaskRunState): TaskRunMeta {
  const a = state.current;
  return {
    ...setup,
    current:
      a === null
        ? null
        : {
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
          },
    done: state.done,
    blocked: state.blocked,
    tasks_started: state.tasksStarted,
  };
}

/** The state back from stored metadata of run `runId`. */
export function taskRunStateFrom(meta: TaskRunMeta, runId: string): TaskRunState {
  const a = meta.current;
  return {
    current:
      a === null
        ? null
        : {
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
          },
    done: meta.done,
    blocked: meta.blocked,
    tasksStarted: meta.tasks_started,
  };
}

/** A task run's progress as the history commands show it, from its stored metadata (null when unreadable). */
export interface TaskRunSummary {
  /** The task in hand and its iterations so far, or null. */
  current: { id: string; iterations: number } | null;
  done: string[];
  blocked: string[];
}

/** Reads the progress of a task run from its metadata. */
export function taskRunSummary(meta: unknown): TaskRunSummary | null {
  const parsed = taskRunMetaSchema.safeParse(meta);
  if (!parsed.success) return null;
  const { current, done, blocked } = parsed.data;
  return { current: current === null ? null : { id: current.task_id, iterations: current.iterations }, done, blocked };
}
