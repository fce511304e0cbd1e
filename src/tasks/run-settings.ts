// What a task run is set up with beyond its RunSpec: where the tasks come from and the task loop's own
// settings (per-task limit defaults, max tasks, on_failure, checks, hooks, template). Resolved once from the
// config when the run starts and stored in the run's metadata, so `resume` (and a server restart) rebuilds
// the same task loop whatever the config says by then.
import { z } from 'zod';
import { HOOK_EVENTS, type HookCommands } from '../config/hooks.js';
import type { LoadedConfig } from '../config/load.js';
import type { TaskLimits } from './task.js';

/** Where the tasks of a run come from. */
export type TaskSourceRef =
  | { type: 'file'; path: string }
  | { type: 'command'; list: string[]; status: string[] | null; timeoutMs: number };

/** The task loop's own settings (config keys `tasks.*` and `hooks.*`). */
export interface TaskRunSettings {
  /** Per-task limits of a task that has none of its own. */
  defaults: TaskLimits;
  /** Tasks one run may start. */
  maxTasks: number;
  onFailure: 'continue' | 'stop';
  parallelism: number;
  rollbackFailedIterations: boolean;
  checkTimeoutMs: number;
  hookTimeoutMs: number;
  /** Task prompt template file; null = the built-in one. */
  template: string | null;
  hooks: HookCommands;
}

/** The task loop's settings from a loaded config. */
export function taskSettingsFromConfig(config: LoadedConfig): TaskRunSettings {
  const tasks = config.settings.tasks;
  return {
    defaults: { maxIterations: tasks.max_iterations_per_task, maxRuntimeMs: tasks.max_runtime_per_task, maxCostUsd: tasks.max_cost_per_task },
    maxTasks: tasks.max_tasks,
    onFailure: tasks.on_failure,
    parallelism: tasks.parallelism,
    rollbackFailedIterations: tasks.rollback_failed_iterations || config.settings.loop.discard_failed,
    checkTimeoutMs: tasks.check_timeout,
    hookTimeoutMs: tasks.hook_timeout,
    template: tasks.prompt_template,
    hooks: config.hooks,
  };
}

const nullableMs = z.number().int().nonnegative().nullable();
const hookSchema = z.object({ command: z.union([z.string(), z.array(z.string())]), source: z.string() });

/** The stored form of the settings and the source (snake_case, in the run's metadata). */
export const storedSetupSchema = z.object({
  source: z.discriminatedUnion('type', [
    z.object({ type: z.literal('file'), path: z.string() }),
    z.object({ type: z.literal('command'), list: z.array(z.string()).min(1), status: z.array(z.string()).nullable(), timeout_ms: z.number().int().positive() }),
  ]),
  settings: z.object({
    max_iterations_per_task: z.number().int().positive().nullable(),
    max_runtime_per_task_ms: nullableMs,
    max_cost_per_task: z.number().nonnegative().nullable(),
    max_tasks: z.number().int().positive(),
    on_failure: z.enum(['continue', 'stop']),
    parallelism: z.number().int().positive(),
    rollback_failed_iterations: z.boolean(),
    check_timeout_ms: z.number().int().nonnegative(),
    hook_timeout_ms: z.number().int().nonnegative(),
    prompt_template: z.string().nullable(),
    hooks: z.partialRecord(z.enum(HOOK_EVENTS), hookSchema),
  }),
});
/** The stored form of a task run's setup. */
export type StoredSetup = z.infer<typeof storedSetupSchema>;

/** The setup as stored in the run's metadata. */
export function storeSetup(source: TaskSourceRef, s: TaskRunSettings): StoredSetup {
  return {
    source: source.type === 'file' ? source : { type: 'command', list: source.list, status: source.status, timeout_ms: source.timeoutMs },
    settings: {
      max_iterations_per_task: s.defaults.maxIterations,
      max_runtime_per_task_ms: s.defaults.maxRuntimeMs,
      max_cost_per_task: s.defaults.maxCostUsd,
      max_tasks: s.maxTasks,
      on_failure: s.onFailure,
      parallelism: s.parallelism,
      rollback_failed_iterations: s.rollbackFailedIterations,
      check_timeout_ms: s.checkTimeoutMs,
      hook_timeout_ms: s.hookTimeoutMs,
      prompt_template: s.template,
      hooks: Object.fromEntries(Object.entries(s.hooks).filter(([, v]) => v !== undefined)),
    },
  };
}

/** The setup back from the run's metadata. */
export function loadSetup(stored: StoredSetup): { source: TaskSourceRef; settings: TaskRunSettings } {
  const s = stored.settings;
  const source: TaskSourceRef = stored.source.type === 'file' ? stored.source : { type: 'command', list: stored.source.list, status: stored.source.status, timeoutMs: stored.source.timeout_ms };
  return {
    source,
    settings: {
      defaults: { maxIterations: s.max_iterations_per_task, maxRuntimeMs: s.max_runtime_per_task_ms, maxCostUsd: s.max_cost_per_task },
      maxTasks: s.max_tasks,
      onFailure: s.on_failure,
      parallelism: s.parallelism,
      rollbackFailedIterations: s.rollback_failed_iterations,
      checkTimeoutMs: s.check_timeout_ms,
      hookTimeoutMs: s.hook_timeout_ms,
      template: s.prompt_template,
      hooks: s.hooks,
    },
  };
}
