// What one iteration changed, as a git unified diff: computed from the trees change tracking stored on the iteration
// (before and after it, runner/change-tracking.ts), for GET /api/runs/:id/iterations/:n/diff and `ringmaster diff`.
import { GitError } from '../git/index.js';
import { treeDiff } from '../git/diff.js';
import type { RunRow, Store } from '../store/index.js';
import { ManagerError } from './errors.js';

/** The diff of iteration `n` of `run`; ManagerError `not_found` when it has no such iteration, no trees, or git no longer has them. */
export async function iterationDiff(store: Pick<Store, 'getIteration'>, run: RunRow, n: number): Promise<string> {
  const row = await store.getIteration(run.id, n);
  if (!row) throw new ManagerError('not_found', `run ${run.id} has no iteration ${n}`);
  if (row.tree_before === null || row.tree_after === null) {
    const why = row.status === 'running' ? 'it is still running' : 'change tracking did not snapshot it (not a git workspace, or loop.track_changes: false)';
    throw new ManagerError('not_found', `iteration ${n} of run ${run.id} has no recorded changes: ${why}`);
  }
  try {
    return await treeDiff(run.worktree ?? run.workspace, row.tree_before, row.tree_after);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    throw new ManagerError('not_found', `the trees of iteration ${n} of run ${run.id} cannot be read in ${run.worktree ?? run.workspace} (${error.message.trim().split('\n')[0] ?? ''})`);
  }
}
