// Rollback: make the workspace's files exactly those of a checkpoint, as a new commit (history is kept).
import { EXIT, UserError } from '../core/errors.js';
import { commitWorkspace } from './checkpoint.js';
import { git } from './git-exec.js';
import { WORKSPACE_PATHSPEC, uncommittedPaths } from './repo.js';

/** Rollback refused: uncommitted work would be destroyed. Lists the paths. */
export class DirtyWorkspaceError extends UserError {
  readonly paths: string[];
  constructor(dir: string, paths: string[]) {
    const shown = paths.slice(0, 10).join(', ') + (paths.length > 10 ? `, and ${paths.length - 10} more` : '');
    super(`${dir} has uncommitted changes that a rollback would destroy: ${shown}. Commit or stash them, or pass --force to discard them`, EXIT.failure);
    this.name = 'DirtyWorkspaceError';
    this.paths = paths;
  }
}

/** The checkpoint commit does not exist in this repository. */
export class UnknownCommitError extends UserError {
  constructor(dir: string, sha: string) {
    super(`commit ${sha} is not in the repository of ${dir} (was the history rewritten?)`, EXIT.failure);
    this.name = 'UnknownCommitError';
  }
}

/** What a rollback did. */
export interface RollbackResult {
  /** The checkpoint restored. */
  target: string;
  /** The commit recording the rollback; null when the files already matched the checkpoint. */
  commit: string | null;
  /** Uncommitted paths discarded (only with force). */
  discarded: string[];
}

/** Options of rollback: `force` discards uncommitted work; `message` is the rollback commit's message. */
export interface RollbackOptions {
  force: boolean;
  message: string;
}

/**
 * Restores every file under `dir` (.ringmaster/ and ignored files excepted) to its content at `sha`:
 * modified files are rewritten, files added since are deleted, files deleted since come back. The
 * result is committed on the current branch, so the later history stays reachable. Refuses with
 * DirtyWorkspaceError when there are uncommitted changes, unless `force`.
 */
export async function rollback(dir: string, sha: string, options: RollbackOptions): Promise<RollbackResult> {
  const exists = await git(dir, ['cat-file', '-e', `${sha}^{commit}`], { okExitCodes: [1, 128] });
  if (exists.exitCode !== 0) throw new UnknownCommitError(dir, sha);
  const dirty = await uncommittedPaths(dir);
  if (dirty.length > 0 && !options.force) throw new DirtyWorkspaceError(dir, dirty);
  if (dirty.length > 0) {
    await git(dir, ['clean', '-d', '--force', '--quiet', '--', ...WORKSPACE_PATHSPEC]);
  }
  await git(dir, ['restore', `--source=${sha}`, '--staged', '--worktree', '--no-overlay', '--', ...WORKSPACE_PATHSPEC]);
  const result = await commitWorkspace(dir, options.message);
  return { target: sha, commit: result.committed ? result.sha : null, discarded: dirty };
}

/** The commit message of a rollback. */
export function rollbackMessage(runId: string, iteration: number, sha: string): string {
  return `[ringmaster] rollback run ${runId} to iteration ${iteration} (${sha.slice(0, 12)})`;
}
