// `ringmaster rollback <run> [--to N]`: restore the run's workspace to one of its checkpoints.
import { hostname } from 'node:os';
import { EXIT, UserError, UsageError } from '../../core/errors.js';
import { isGitRepo } from '../../git/repo.js';
import { rollback, rollbackMessage } from '../../git/rollback.js';
import { LockHeldError, acquireLock } from '../../runner/lock.js';
import { appendEventBodies } from '../../runner/standalone-events.js';
import { dataDir, workspaceLockPath } from '../../store/paths.js';
import type { CheckpointRow } from '../../store/rows.js';
import type { CliIO, Command } from '../command.js';
import { HISTORY_OPTIONS, openWorkspaceStore, parseHistoryArgs, requireRun, runIdArgument } from './history-common.js';

/** Checkpoints that name a commit to go back to. */
function restorable(rows: CheckpointRow[]): CheckpointRow[] {
  return rows.filter((c) => c.commit_sha !== null && (c.state === 'committed' || c.state === 'unchanged'));
}

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
    const dir = run.worktree ?? run.workspace;
    if (!(await isGitRepo(dir))) throw new UserError(`${dir} is not a git repository: run ${run.id} has no checkpoints to roll back to`, EXIT.failure);
    const candidates = restorable(await store.listCheckpoints(run.id));
    if (candidates.length === 0) throw new UserError(`run ${run.id} has no checkpoints to roll back to`, EXIT.failure);
    const target = to === null ? candidates.at(-1) : candidates.filter((c) => c.iteration === to).at(-1);
    if (!target || target.commit_sha === null) {
      const list = [...new Set(candidates.map((c) => c.iteration))].join(', ');
      throw new UserError(`run ${run.id} has no checkpoint at iteration ${to}; its checkpoints are at iterations ${list}`, EXIT.failure);
    }
    const lock = await acquireLock(workspaceLockPath(dataDir(io.env), run.workspace), run.id).catch((error: unknown) => {
      if (error instanceof LockHeldError) {
        throw new LockHeldError(error.lockPath, error.holder, hostname(), `stop it ('ringmaster stop ${error.holder.run_id}') before rolling back`);
      }
      throw error;
    });
    try {
      const message = rollbackMessage(run.id, target.iteration, target.commit_sha);
      const result = await rollback(dir, target.commit_sha, { force: values.force === true, message });
      const now = Date.now();
      await store.recordCheckpoint({ run_id: run.id, iteration: target.iteration, commit_sha: result.commit ?? result.target, state: 'rollback', message, created_at: now });
      await appendEventBodies(store, run.id, [
        { type: 'rollback', time: now, to_iteration: target.iteration, target_sha: result.target, commit_sha: result.commit, discarded: result.discarded },
      ]);
      if (values.json) {
        const out = { run_id: run.id, iteration: target.iteration, target_sha: result.target, commit_sha: result.commit, workspace: dir, discarded: result.discarded };
        io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        return EXIT.success;
      }
      if (result.discarded.length > 0) io.stdout.write(`discarded uncommitted changes: ${result.discarded.join(', ')}\n`);
      const what = result.commit === null ? 'files already matched, no commit made' : `new commit ${result.commit.slice(0, 12)}`;
      io.stdout.write(`rolled back ${dir} to run ${run.id} iteration ${target.iteration} (${result.target.slice(0, 12)}): ${what}\n`);
      return EXIT.success;
    } finally {
      await lock.release();
    }
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
