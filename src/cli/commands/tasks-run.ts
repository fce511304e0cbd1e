// `ringmaster tasks run [FILE]`: a task loop (seed 003) in the terminal, with the run options of
// `ringmaster run`; the run is an ordinary run (runs, show, stats, pause, stop, resume).
import { join, relative } from 'node:path';
import { getAdapter } from '../../agents/registry.js';
import { UsageError } from '../../core/errors.js';
import { newRunId } from '../../core/ids.js';
import { resolveRun } from '../../config/resolve.js';
import { placeInWorktree } from '../../manager/worktree-run.js';
import type { RunSpec } from '../../runner/spec.js';
import { composeTaskPrompt } from '../../tasks/compose-task-prompt.js';
import { effectiveLimits } from '../../tasks/limits.js';
import { explainSelection } from '../../tasks/pick.js';
import { openTaskSourceRef, resolveTaskSourceRef } from '../../tasks/resolve-source.js';
import { taskSettingsFromConfig, type TaskRunSettings, type TaskSourceRef } from '../../tasks/run-settings.js';
import { taskRunSpec } from '../../tasks/run-spec.js';
import type { TaskSource } from '../../tasks/source.js';
import { createTaskProgram } from '../../tasks/task-program.js';
import type { CliIO } from '../command.js';
import { runInTerminal } from '../run-session.js';
import { dryRun, parseRunArgs, runFlagsFrom, workspaceFrom } from './run.js';

/** A source as stored with the run, its file moved into the worktree the run works in. */
function intoWorktree(ref: TaskSourceRef, workspace: string, workdir: string): TaskSourceRef {
  if (ref.type !== 'file') return ref;
  const rel = relative(workspace, ref.path);
  return rel.startsWith('..') ? ref : { type: 'file', path: join(workdir, rel) };
}

/** The prompt the first iteration would get, for --dry-run. */
async function firstPrompt(spec: RunSpec, source: TaskSource, settings: TaskRunSettings): Promise<string> {
  const selection = explainSelection(await source.load(), { priorityOrder: source.priorityOrder });
  if (selection.task === null) throw new UsageError(`no task to run: ${selection.reason}`);
  const task = selection.task;
  const maxIterations = effectiveLimits(task.limits, settings.defaults).maxIterations;
  return composeTaskPrompt({ spec, template: settings.template, tracker: source.name, task, iteration: 1, maxIterations, feedback: '' });
}

/** Runs `tasks run`. */
export async function tasksRun(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseRunArgs(args, 'tasks', true);
  if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1]}' (see 'ringmaster tasks --help')`);
  const workspace = workspaceFrom(values, io);
  const flags = runFlagsFrom(values);
  const { spec: resolved, config } = resolveRun(workspace, io.env, flags);
  const settings = taskSettingsFromConfig(config);
  let ref = resolveTaskSourceRef(workspace, config, positionals[0]);
  const source = await openTaskSourceRef(ref, workspace, io.env);
  const spec = taskRunSpec(resolved, config, flags, source.name);
  getAdapter({ name: spec.agent.name, command: spec.agent.command });
  if (values['dry-run']) return dryRun(spec, io, await firstPrompt(spec, source, settings));
  await source.load(); // a broken task list is a usage error before anything starts
  const runId = newRunId(Date.now(), Math.random);
  let worktree: { path: string; branch: string } | null = null;
  let runSource = source;
  if (values.worktree) {
    const created = await placeInWorktree(workspace, runId, spec);
    worktree = { path: created.path, branch: created.branch };
    ref = intoWorktree(ref, workspace, spec.workspace);
    runSource = await openTaskSourceRef(ref, spec.workspace, io.env);
    if (!values.json) io.stdout.write(`Worktree: ${created.path} (branch ${created.branch})${created.sourceDirty ? ' — uncommitted changes of your checkout are not in it' : ''}\n`);
  }
  const program = createTaskProgram({ spec, source: runSource, sourceRef: ref, settings, env: io.env });
  const { exitCode } = await runInTerminal(io, { workspace, runId, spec, json: values.json, verbose: values.verbose, worktree, mode: 'create', program });
  return exitCode;
}
