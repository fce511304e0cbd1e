// Lifecycle hooks of the task loop (the task loop's lifecycle hooks: docs/tasks.md): library callbacks and shell commands from the
// config's `hooks:` section. A command gets the event as one JSON line on stdin (and RINGMASTER_HOOK_EVENT,
// RINGMASTER_RUN_ID, RINGMASTER_TASK_ID in its env); nothing is ever substituted into its text. A hook that
// fails, throws or outlives its timeout is reported (and killed), never stops the loop.
import type { HookCommands, HookEventName } from '../config/hooks.js';
import { execBounded, failureText } from '../os/exec.js';
import type { TaskResult } from './result.js';
import type { Task } from './task.js';

/** A tool call the agent made (docs/tasks.md "Hooks"). */
export interface TaskAction {
  tool: string;
  input: unknown;
}

/** Something odd about an iteration: no change to the workspace, or the same output as the previous one. */
export interface Anomaly {
  kind: 'stalled' | 'repeated_output';
  message: string;
}

/** The fields of a task that events carry. */
export interface TaskRef {
  id: string;
  title: string;
  status: string;
}

/** A lifecycle event, as hook commands receive it on stdin (snake_case, one JSON line). */
export type TaskHookEvent =
  | { event: 'task_start'; time: number; run_id: string; task: TaskRef }
  | { event: 'iteration_start'; time: number; run_id: string; task: TaskRef; iteration: number; run_iteration: number }
  | { event: 'action'; time: number; run_id: string; task: TaskRef; iteration: number; action: TaskAction }
  | { event: 'iteration_end'; time: number; run_id: string; task: TaskRef; iteration: number; outcome: string; result: TaskResult | null }
  | { event: 'task_end'; time: number; run_id: string; task: TaskRef; success: boolean; reason: string | null }
  | { event: 'anomaly'; time: number; run_id: string; task: TaskRef; iteration: number; anomaly: Anomaly };

/** Library callbacks (the task loop's lifecycle hooks: docs/tasks.md). May return a promise; a throw or rejection is reported, not fatal. */
export interface LoopHooks {
  onTaskStart?(task: Task): void | Promise<void>;
  onIterationStart?(task: Task, iteration: number): void | Promise<void>;
  onAction?(action: TaskAction, task: Task): void | Promise<void>;
  onIterationEnd?(task: Task, iteration: number, result: TaskResult | null): void | Promise<void>;
  onTaskEnd?(task: Task, success: boolean): void | Promise<void>;
  onAnomaly?(anomaly: Anomaly, task: Task): void | Promise<void>;
}

/** How hooks are run. */
export interface HookRunnerOptions {
  commands: HookCommands;
  callbacks: LoopHooks | null;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Receives one message per hook failure (e.g. a warning event). */
  report(message: string): void;
  /** Action events waiting for their hook beyond this many are dropped (reported once). Default 100. */
  maxQueuedActions?: number;
}

/** Runs hooks for events; `fire` waits for them, `queueAction` does not (tool calls are many). */
export interface HookRunner {
  fire(event: TaskHookEvent, task: Task): Promise<void>;
  queueAction(event: Extract<TaskHookEvent, { event: 'action' }>, task: Task): void;
  /** Waits for queued action hooks. */
  drain(): Promise<void>;
}

/** The argv of a hook command: a string runs through /bin/sh -c as written; a list runs directly. */
export function hookArgv(command: string | readonly string[]): string[] {
  return typeof command === 'string' ? ['/bin/sh', '-c', command] : [...command];
}

function callback(hooks: LoopHooks, event: TaskHookEvent, task: Task): void | Promise<void> {
  switch (event.event) {
    case 'task_start':
      return hooks.onTaskStart?.(task);
    case 'iteration_start':
      return hooks.onIterationStart?.(task, event.iteration);
    case 'action':
      return hooks.onAction?.(event.action, task);
    case 'iteration_end':
      return hooks.onIterationEnd?.(task, event.iteration, event.result);
    case 'task_end':
      return hooks.onTaskEnd?.(task, event.success);
    case 'anomaly':
      return hooks.onAnomaly?.(event.anomaly, task);
  }
}

/** Creates the hook runner of one task run. */
export function createHookRunner(options: HookRunnerOptions): HookRunner {
  let queue: Promise<void> = Promise.resolve();
  let queued = 0;
  let droppedReported = false;
  const maxQueued = options.maxQueuedActions ?? 100;

  const runCommand = async (name: HookEventName, event: TaskHookEvent): Promise<void> => {
    const hook = options.commands[name];
    if (!hook) return;
    const result = await execBounded({
      argv: hookArgv(hook.command),
      cwd: options.cwd,
      env: { ...options.env, RINGMASTER_HOOK_EVENT: name, RINGMASTER_RUN_ID: event.run_id, RINGMASTER_TASK_ID: event.task.id },
      stdin: `${JSON.stringify(event)}\n`,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      tailBytes: 2048,
    });
    if (result.reason === 'aborted') return;
    if (result.reason !== 'exited' || result.exitCode !== 0) options.report(failureText(`hook ${name}`, result, options.timeoutMs));
  };

  const fire = async (event: TaskHookEvent, task: Task): Promise<void> => {
    if (options.callbacks) {
      try {
        await callback(options.callbacks, event, task);
      } catch (error) {
        options.report(`hook callback for ${event.event} failed: ${(error as Error).message}`);
      }
    }
    await runCommand(event.event, event);
  };

  return {
    fire,
    queueAction(event, task) {
      if (!options.commands.action && !options.callbacks?.onAction) return;
      if (queued >= maxQueued) {
        if (!droppedReported) options.report(`hook action: more than ${maxQueued} tool calls waiting for the hook; later ones are skipped`);
        droppedReported = true;
        return;
      }
      queued++;
      queue = queue.then(() => fire(event, task)).finally(() => {
        queued--;
      });
    },
    drain: () => queue,
  };
}

/** The fields of a task that events carry. */
export function taskRef(task: Task): TaskRef {
  return { id: task.id, title: task.title, status: task.status };
}
