// `ringmaster tasks run [FILE]`: a task loop (docs/tasks.md) in the terminal, with the run options of
// `ringmaster run`; the run is an ordinary run (runs, show, stats, pause, stop, resume).
import { UsageError } from '../../core/errors.js';
import { newRunId } from '../../core/ids.js';
import { placeInWorktree } from '../../manager/worktree-run.js';
import { firstTaskPrompt, prepareTaskRun, taskRunInWorktree } from '../../tasks/start.js';
import type { CliIO } from '../command.js';
import { runInTerminal } from '../run-session.js';
import { dryRun, parseRunArgs, runFlagsFrom, workspaceFrom } from './run.js';

/** Runs `tasks run`. */
export async function tasksRun(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseRunArgs(args, 'tasks', true);
  if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1]}' (see 'ringmaster tasks --help')`);
  if (values.verify !== undefined || values['verify-each'] === true) throw new UsageError("--verify is for 'ringmaster run': a task's own completion check is its verify gate (docs/tasks.md)");
  const workspace = workspaceFrom(values, io);
  let prepared = await prepareTaskRun({ workspace, env: io.env, file: positionals[0], flags: runFlagsFrom(values) });
  if (values['dry-run']) return dryRun(prepared.spec, io, await firstTaskPrompt(prepared));
  const runId = newRunId(Date.now(), Math.random);
  let worktree: { path: string; branch: string } | null = null;
  if (values.worktree) {
    const created = await placeInWorktree(workspace, runId, prepared.spec);
    worktree = { path: created.path, branch: created.branch };
    prepared = await taskRunInWorktree(prepared, workspace, io.env);
    if (!values.json) io.stdout.write(`Worktree: ${created.path} (branch ${created.branch})${created.sourceDirty ? ' — uncommitted changes of your checkout are not in it' : ''}\n`);
  }
  const { spec, program } = prepared;
  const { exitCode } = await runInTerminal(io, { workspace, runId, spec, json: values.json, verbose: values.verbose, worktree, mode: 'create', program });
  return exitCode;
}
