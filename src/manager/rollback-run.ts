// Rolling a run's workspace back to one of its checkpoints (CLI `rollback`, POST /api/runs/:id/rollback): refused
// while a run holds the workspace; the result is a new commit, recorded as a checkpoint and an event.
import { hostname } from 'node:os';
import { EXIT, UserError } from '../core/errors.js';
import { isGitRepo } from '../git/repo.js';
import { rollback, rollbackMessage } from '../git/rollback.js';
import { killLeftoversOfStaleLock } from '../runner/leftover.js';
import { LockHeldError, acquireLock } from '../runner/lock.js';
import { appendEventBodies } from '../runner/standalone-events.js';
import type { RunEvent } from '../runner/events.js';
import type { CheckpointRow, RunRow, Store } from '../store/index.js';
import { dataDir, workspaceLockPath } from '../store/paths.js';

/** What a rollback did. */
export interface RunRollback {
  runId: string;
  iteration: number;
  targetSha: string;
  commitSha: string | null;
  workspace: string;
  discarded: string[];
  event: RunEvent | null;
  /** What was killed first: the agent a dead run left running in the workspace (its lock was taken over). */
  warning: string | null;
}

/** Checkpoints that name a commit to go back to. */
function restorable(rows: CheckpointRow[]): CheckpointRow[] {
  return rows.filter((c) => c.commit_sha !== null && (c.state === 'committed' || c.state === 'unchanged'));
}

/** Restores the run's workspace (or worktree) to the checkpoint of iteration `to` (default: the latest). */
export async function rollbackRun(store: Store, env: Readonly<Record<string, string | undefined>>, run: RunRow, options: { to: number | null; force: boolean }): Promise<RunRollback> {
  const dir = run.worktree ?? run.workspace;
  if (!(await isGitRepo(dir))) throw new UserError(`${dir} is not a git repository: run ${run.id} has no checkpoints to roll back to`, EXIT.usage);
  const candidates = restorable(await store.listCheckpoints(run.id));
  if (candidates.length === 0) throw new UserError(`run ${run.id} has no checkpoints to roll back to`, EXIT.usage);
  const target = options.to === null ? candidates.at(-1) : candidates.filter((c) => c.iteration === options.to).at(-1);
  if (!target || target.commit_sha === null) {
    const list = [...new Set(candidates.map((c) => c.iteration))].join(', ');
    throw new UserError(`run ${run.id} has no checkpoint at iteration ${options.to}; its checkpoints are at iterations ${list}`, EXIT.usage);
  }
  const lock = await acquireLock(workspaceLockPath(dataDir(env), run.workspace), run.id).catch((error: unknown) => {
    if (error instanceof LockHeldError) {
      throw new LockHeldError(error.lockPath, error.holder, hostname(), `stop it ('ringmaster stop ${error.holder.run_id}') before rolling back`);
    }
    throw error;
  });
  try {
    // An agent a dead run left running would go on editing what is rolled back.
    const warning = killLeftoversOfStaleLock(dataDir(env), lock.takenOver, null);
    const message = rollbackMessage(run.id, target.iteration, target.commit_sha);
    const result = await rollback(dir, target.commit_sha, { force: options.force, message });
    const now = Date.now();
    await store.recordCheckpoint({ run_id: run.id, iteration: target.iteration, commit_sha: result.commit ?? result.target, state: 'rollback', message, created_at: now });
    const [event] = await appendEventBodies(store, run.id, [
      { type: 'rollback', time: now, to_iteration: target.iteration, target_sha: result.target, commit_sha: result.commit, discarded: result.discarded },
    ]);
    return { runId: run.id, iteration: target.iteration, targetSha: result.target, commitSha: result.commit, workspace: dir, discarded: result.discarded, event: event ?? null, warning };
  } finally {
    await lock.release();
  }
}
