// Starting a task run, for the CLI and the library alike: resolve the configuration and the run options,
// find the task list, and build the run's spec and its task program.
import { join, relative } from 'node:path';
import { getAdapter } from '../agents/registry.js';
import { UsageError } from '../core/errors.js';
import { resolveRun, type RunFlags } from '../spec/resolve.js';
import type { RunSpec } from '../spec/run-spec.js';
import { composeTaskPrompt } from './compose-task-prompt.js';
import type { LoopHooks } from './hooks.js';
import { effectiveLimits } from './limits.js';
import { explainSelection } from './pick.js';
import { openTaskSourceRef, resolveTaskSourceRef } from './sources/resolve.js';
import { taskSettingsFromConfig, type TaskRunSettings, type TaskSourceRef } from './run-settings.js';
import { taskRunSpec } from './run-spec.js';
import type { TaskSource } from './sources/source.js';
import { createTaskLoop, type TaskLoopProgram } from './task-loop.js';

/** What `prepareTaskRun` needs. */
export interface TaskRunRequest {
  workspace: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The task file (default: tasks.command, tasks.file, or the first of tasks.jsonl, prd.json, TODO.md). */
  file?: string | undefined;
  /** The run options, as `ringmaster run` takes them (default: none). */
  flags?: RunFlags;
  /** Library callbacks (the task loop's lifecycle hooks: docs/tasks.md). */
  callbacks?: LoopHooks | null;
}

/** A task run ready to go: its spec and program, and what they were made from. */
export interface PreparedTaskRun {
  spec: RunSpec;
  /** One task at a time, or parallel tasks in worktrees (tasks.parallelism above 1 in a git repository with a commit). */
  program: TaskLoopProgram;
  source: TaskSource;
  sourceRef: TaskSourceRef;
  settings: TaskRunSettings;
}

/** Resolves a task run (a broken task list or an unknown agent is a UserError before anything starts). */
export async function prepareTaskRun(r: TaskRunRequest): Promise<PreparedTaskRun> {
  const flags = r.flags ?? { settings: [] };
  const { spec: resolved, config } = resolveRun(r.workspace, r.env, flags);
  const settings = taskSettingsFromConfig(config);
  const sourceRef = resolveTaskSourceRef(r.workspace, config, r.file);
  const source = await openTaskSourceRef(sourceRef, r.workspace, r.env);
  const spec = taskRunSpec(resolved, config, flags, source.name);
  getAdapter({ name: spec.agent.name, command: spec.agent.command });
  await source.load();
  const program = await createTaskLoop({ spec, source, sourceRef, settings, env: r.env, callbacks: r.callbacks ?? null });
  return { spec, program, source, sourceRef, settings };
}

/**
 * The same run moved into a worktree: `spec.workspace` already points into it (placeInWorktree); the task
 * file is read from the worktree's copy. `workspace` is where the run was started.
 */
export async function taskRunInWorktree(prepared: PreparedTaskRun, workspace: string, env: Readonly<Record<string, string | undefined>>, callbacks: LoopHooks | null = null): Promise<PreparedTaskRun> {
  const { spec, settings } = prepared;
  let sourceRef = prepared.sourceRef;
  if (sourceRef.type === 'file') {
    const rel = relative(workspace, sourceRef.path);
    if (!rel.startsWith('..')) sourceRef = { type: 'file', path: join(spec.workspace, rel) };
  }
  const source = await openTaskSourceRef(sourceRef, spec.workspace, env);
  return { spec, settings, source, sourceRef, program: await createTaskLoop({ spec, source, sourceRef, settings, env, callbacks }) };
}

/** The prompt the first iteration of a prepared run would get (`--dry-run`). */
export async function firstTaskPrompt(prepared: PreparedTaskRun): Promise<string> {
  const { spec, source, settings } = prepared;
  const selection = explainSelection(await source.load(), { priorityOrder: source.priorityOrder });
  if (selection.task === null) throw new UsageError(`no task to run: ${selection.reason}`);
  const task = selection.task;
  const maxIterations = effectiveLimits(task.limits, settings.defaults).maxIterations;
  return composeTaskPrompt({ spec, template: settings.template, tracker: source.name, task, iteration: 1, maxIterations, feedback: '' });
}
