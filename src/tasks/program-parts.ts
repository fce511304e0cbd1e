// What both task programs (one task at a time, and parallel tasks in worktrees) do alike: their hook runner, the
// task list read with the run's own verdicts, how the run ends when no task can start, and their error boundary.
import { UserError } from '../core/errors.js';
import type { AgentActivity } from '../runner/events.js';
import type { ProgramContext, ProgramStop } from '../runner/program.js';
import { createHookRunner, taskRef, type HookRunner, type LoopHooks } from './hooks.js';
import { storeSetup, type StoredSetup, type TaskRunSettings } from './run-settings.js';
import type { TaskProgramOptions } from './program-options.js';
import type { TaskRunState } from './run-state.js';
import type { TaskSource } from './sources/source.js';
import type { Task } from './task.js';

/** The hook runner of a task run (commands of the config, library callbacks), reporting failures as warnings. */
export function taskHookRunner(ctx: ProgramContext, settings: TaskRunSettings, callbacks: LoopHooks | null, env: Readonly<Record<string, string | undefined>>): HookRunner {
  return createHookRunner({
    commands: settings.hooks,
    callbacks,
    cwd: ctx.workspace,
    env,
    timeoutMs: settings.hookTimeoutMs,
    signal: ctx.signal,
    report: (message) => ctx.emit({ type: 'warning', time: ctx.now(), message }),
  });
}

/** The setup a task run stores for resume (its source and settings); a command source must come with its sourceRef. */
export function taskRunSetup(options: TaskProgramOptions): StoredSetup {
  const ref = options.sourceRef ?? (options.source.path === null ? null : { type: 'file' as const, path: options.source.path });
  if (ref === null) throw new UserError('a task program over a command source needs its sourceRef (the commands), so that the run can be resumed');
  return storeSetup(ref, options.settings);
}

/** Queues the `action` hook of a tool call the agent made in iteration `iteration` of `task` (other activity is not an action). */
export function queueToolCall(hooks: HookRunner | null, activity: AgentActivity, runId: string, task: Task, iteration: number): void {
  if (activity.kind !== 'tool_call' || !hooks) return;
  let input: unknown = activity.input;
  try {
    input = JSON.parse(activity.input);
  } catch {
    // not JSON: passed on as text
  }
  hooks.queueAction({ event: 'action', time: activity.time, run_id: runId, task: taskRef(task), iteration, action: { tool: activity.name, input } }, task);
}

/** The tasks, with this run's own verdicts over a source that may not record them (a command without a status command). */
export async function loadWithVerdicts(source: TaskSource, state: TaskRunState, signal: AbortSignal): Promise<Task[]> {
  const tasks = await source.load(signal);
  const done = new Set(state.done);
  const blocked = new Set(state.blocked);
  return tasks.map((t) => (done.has(t.id) ? { ...t, status: 'done' as const } : blocked.has(t.id) ? { ...t, status: 'blocked' as const } : t));
}

/** What the run has done, in words: `2 done and 1 blocked by this run`. */
function tally(state: TaskRunState): string {
  return `${state.done.length} done and ${state.blocked.length} blocked by this run`;
}

/** How the run ends when no task can start: every task done, none can run (blocked or waiting for blocked ones). */
export function noTaskStop(tasks: readonly Task[], state: TaskRunState): ProgramStop {
  if (tasks.every((t) => t.status === 'done')) {
    return { kind: 'stop', reason: 'success_signal', status: 'completed', message: tasks.length === 0 ? 'the task list is empty: nothing to do' : `every task is done (${tally(state)})` };
  }
  const blocked = tasks.filter((t) => t.status === 'blocked').map((t) => t.id);
  const waiting = tasks.filter((t) => t.status === 'pending' || t.status === 'in_progress').map((t) => t.id);
  const detail = [blocked.length > 0 ? `blocked: ${blocked.join(', ')}` : null, waiting.length > 0 ? `waiting for them: ${waiting.join(', ')}` : null].filter((x) => x !== null).join('; ');
  return { kind: 'stop', reason: 'stalled', status: 'completed', message: `no task can run (${detail}); ${tally(state)}` };
}

/** How the run ends when it has started tasks.max_tasks tasks. */
export function maxTasksStop(state: TaskRunState): ProgramStop {
  return { kind: 'stop', reason: 'max_iterations', status: 'completed', message: `reached max tasks: ${state.tasksStarted} tasks started (tasks.max_tasks); ${tally(state)}` };
}

/** The stop of a run whose task is blocked while tasks.on_failure is stop. */
export function onFailureStop(taskId: string, reason: string): ProgramStop {
  return { kind: 'stop', reason: 'failure_threshold', status: 'failed', message: `task ${taskId} is blocked (${reason}) and tasks.on_failure is stop` };
}

/** Errors of the task loop's bookkeeping (git, files) as the user's to see: the run ends with the message. */
export function asUserError(error: unknown): UserError {
  if (error instanceof UserError) return error;
  return new UserError(`task loop: ${(error as Error).message}`, 1, { cause: error });
}

/** The ISO time of now, for journal lines. */
export function isoNow(ctx: Pick<ProgramContext, 'now'>): string {
  return new Date(ctx.now()).toISOString();
}
