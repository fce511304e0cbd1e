// The task of a task loop (docs/tasks.md): its schema as written in tasks.jsonl, and the normalised form every
// source (tasks.jsonl, prd.json, markdown checklist, command) produces. Pure: no I/O.
import { z } from 'zod';
import { parseDuration } from '../core/duration.js';

/** Lifecycle of a task in its tracker. */
export const TASK_STATUSES = ['pending', 'in_progress', 'blocked', 'done'] as const;
/** Lifecycle of a task in its tracker. */
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** A command as written in a task or the config: one string (split without a shell) or an argv list. */
export const commandSchema = z.union([z.string().trim().min(1, 'expected a command'), z.array(z.string()).min(1, 'expected a command (an argv list)')]);

const checkTimeout = z.union([z.number().positive(), z.string()]).optional();

/** How a task's completion is detected (four ways: docs/tasks.md). */
export const completionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('signal') }),
  z.strictObject({ type: z.literal('test'), command: commandSchema, timeout: checkTimeout }),
  z.strictObject({ type: z.literal('file_exists'), path: z.string().trim().min(1, 'expected a path') }),
  z.strictObject({ type: z.literal('validate'), script: z.string().trim().min(1, 'expected a script path'), timeout: checkTimeout }),
]);
/** How a task's completion is detected, as written. */
export type CompletionSpec = z.infer<typeof completionSchema>;

const seconds = z.union([z.number().nonnegative(), z.string()]);

/** Per-task limits as written: `max_runtime` in seconds or a duration ('30m'), `max_cost` in USD. */
export const taskLimitsSchema = z.strictObject({
  max_iterations: z.number().int().min(1).optional(),
  max_runtime: seconds.optional(),
  max_cost: z.number().nonnegative().optional(),
});

const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'expected a date like 2025-01-31 or 2025-01-31T12:00:00Z');

/** One line of tasks.jsonl (unknown fields are allowed and left alone). */
export const taskLineSchema = z.object({
  id: z.union([z.string().trim().min(1, 'expected a non-empty id'), z.number().int()]).transform(String),
  title: z.string().trim().min(1, 'expected a non-empty title'),
  description: z.string().optional(),
  status: z.enum(TASK_STATUSES).optional(),
  priority: z.number().optional(),
  createdAt: isoDate.optional(),
  dependsOn: z.array(z.union([z.string(), z.number().int()]).transform(String)).optional(),
  completion: completionSchema.optional(),
  limits: taskLimitsSchema.optional(),
  acceptance: z.array(z.string()).optional(),
  blocker: z.string().optional(),
});
/** One line of tasks.jsonl as parsed. */
export type TaskLine = z.infer<typeof taskLineSchema>;

/** Per-task limits; null = the default of the task loop applies. Durations in ms. */
export interface TaskLimits {
  maxIterations: number | null;
  maxRuntimeMs: number | null;
  maxCostUsd: number | null;
}

/** A check command: argv (never run through a shell), with an optional timeout. */
export type Completion =
  | { type: 'signal' }
  | { type: 'test'; command: string[] | string; timeoutMs: number | null }
  | { type: 'file_exists'; path: string }
  | { type: 'validate'; script: string; timeoutMs: number | null };

/** A task as every source delivers it. */
export interface Task {
  id: string;
  title: string;
  description: string;
  status: TaskStatus;
  /** As written in the source (null: none, runs after every task that has one); see the source's `priorityOrder`. */
  priority: number | null;
  /** ISO date, or null when the source has none (file order decides then). */
  createdAt: string | null;
  dependsOn: string[];
  completion: Completion;
  limits: TaskLimits;
  acceptance: string[];
  /** Why the task is blocked (written by Ringmaster when it blocks a task). */
  blocker: string | null;
  /** Position in the source (0-based): the last tie-breaker of selection. */
  order: number;
  /** 1-based line of the task in its file, null for a command source. */
  line: number | null;
}

/** Parses a duration given in seconds (number) or as text ('30m'); null when invalid. */
export function secondsOrDuration(raw: number | string): number | null {
  return typeof raw === 'number' ? Math.round(raw * 1000) : parseDuration(raw);
}

/** Turns a validated completion into its normalised form; a bad duration is reported as a problem. */
export function normaliseCompletion(spec: CompletionSpec | undefined): { ok: true; value: Completion } | { ok: false; field: string; problem: string } {
  if (!spec || spec.type === 'signal') return { ok: true, value: { type: 'signal' } };
  if (spec.type === 'file_exists') return { ok: true, value: spec };
  const timeoutMs = spec.timeout === undefined ? null : secondsOrDuration(spec.timeout);
  if (timeoutMs === null && spec.timeout !== undefined) return { ok: false, field: 'completion.timeout', problem: `expected seconds or a duration like 5m, got ${JSON.stringify(spec.timeout)}` };
  return spec.type === 'test' ? { ok: true, value: { type: 'test', command: spec.command, timeoutMs } } : { ok: true, value: { type: 'validate', script: spec.script, timeoutMs } };
}

/** Turns written limits into TaskLimits; a bad duration is reported as a problem. */
export function normaliseLimits(spec: z.infer<typeof taskLimitsSchema> | undefined): { ok: true; value: TaskLimits } | { ok: false; field: string; problem: string } {
  const runtime = spec?.max_runtime === undefined ? null : secondsOrDuration(spec.max_runtime);
  if (spec?.max_runtime !== undefined && runtime === null) {
    return { ok: false, field: 'limits.max_runtime', problem: `expected seconds or a duration like 30m, got ${JSON.stringify(spec.max_runtime)}` };
  }
  return { ok: true, value: { maxIterations: spec?.max_iterations ?? null, maxRuntimeMs: runtime, maxCostUsd: spec?.max_cost ?? null } };
}

/** A one-line description of how a task's completion is checked, for prompts and `tasks show`. */
export function describeCompletion(completion: Completion): string {
  switch (completion.type) {
    case 'signal':
      return 'the agent signals completion';
    case 'test':
      return `the test command exits 0: ${Array.isArray(completion.command) ? JSON.stringify(completion.command) : completion.command}`;
    case 'file_exists':
      return `the file ${completion.path} exists`;
    case 'validate':
      return `the validation script exits 0: ${completion.script}`;
  }
}

/** A task that failed validation: the field and what is wrong with it. */
export interface TaskProblem {
  path: ReadonlyArray<PropertyKey>;
  problem: string;
}

/** Validates one task object in the tasks.jsonl schema and normalises it. */
export function taskFromObject(data: unknown, order: number, line: number | null): { ok: true; task: Task } | { ok: false; problem: TaskProblem } {
  const parsed = taskLineSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, problem: { path: issue?.path ?? [], problem: issue?.message ?? 'invalid task' } };
  }
  const t = parsed.data;
  const completion = normaliseCompletion(t.completion);
  if (!completion.ok) return { ok: false, problem: { path: completion.field.split('.'), problem: completion.problem } };
  const limits = normaliseLimits(t.limits);
  if (!limits.ok) return { ok: false, problem: { path: limits.field.split('.'), problem: limits.problem } };
  return {
    ok: true,
    task: {
      id: t.id,
      title: t.title,
      description: t.description ?? '',
      status: t.status ?? 'pending',
      priority: t.priority ?? null,
      createdAt: t.createdAt ?? null,
      dependsOn: t.dependsOn ?? [],
      completion: completion.value,
      limits: limits.value,
      acceptance: t.acceptance ?? [],
      blocker: t.blocker ?? null,
      order,
      line,
    },
  };
}
