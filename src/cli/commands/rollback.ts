// `ringmaster rollback <run> [--to N]`: restore the run's workspace to one of its checkpoints.
import { EXIT, UsageError } from '../../core/errors.js';
import { rollbackRun } from '../../manager/rollback-run.js';
import type { CliIO, Command } from '../command.js';
import { HISTORY_OPTIONS, openWorkspaceStore, parseHistoryArgs, requireRun, runIdArgument } from './history-common.js';

async function rollbackCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseHistoryArgs('rollback', args, { ...HISTORY_OPTIONS, to: { type: 'string' }, force: { type: 'boolean' } });
  const id = runIdArgument('rollback', positionals);
  let to: number | null = null;
  if (values.to !== undefined) {
    to = Number(values.to);
    if (!Number.isInteger(to) || to < 0) throw new UsageError(`--to: expected an iteration number, got '${values.to}'`);
  }
  const { workspace, store } = await openWorkspaceStore(values.cwd, io);
  try {
    const run = await requireRun(store, id, workspace);
    const result = await rollbackRun(store, io.env, run, { to, force: values.force === true });
    if (result.warning !== null) io.stderr.write(`WARNING: ${result.warning}\n`);
    if (values.json) {
      const out = { run_id: run.id, iteration: result.iteration, target_sha: result.targetSha, commit_sha: result.commitSha, workspace: result.workspace, discarded: result.discarded, warning: result.warning };
      io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return EXIT.success;
    }
    if (result.discarded.length > 0) io.stdout.write(`discarded uncommitted changes: ${result.discarded.join(', ')}\n`);
    const what = result.commitSha === null ? 'files already matched, no commit made' : `new commit ${result.commitSha.slice(0, 12)}`;
    io.stdout.write(`rolled back ${result.workspace} to run ${run.id} iteration ${result.iteration} (${result.targetSha.slice(0, 12)}): ${what}\n`);
    return EXIT.success;
  } finally {
    await store.close();
  }
}

/** The `rollback` command. */
export const rollbackCliCommand: Command = {
  name: 'rollback',
  usage: `Usage: ringmaster rollback <run> [--to N] [--force] [--cwd DIR] [--json]

Makes every file of the run's workspace (its worktree with --worktree) exactly what it was at a
checkpoint: the latest one, or the one of iteration N. The result is committed as
'[ringmaster] rollback run <id> to iteration <n> (<sha>)', so later commits stay in the history.
Files ignored by git and .ringmaster/ are not touched. Refuses while a run holds the workspace.

  --to N       the checkpoint of iteration N (default: the latest checkpoint)
  --force      discard uncommitted changes (refused without it, listing the files)
  --cwd DIR    workspace directory (default: the current directory)
  --json       print {"run_id", "iteration", "target_sha", "commit_sha", "workspace", "discarded"}
`,
  run: rollbackCommand,
};
