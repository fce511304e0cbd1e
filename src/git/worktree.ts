// --worktree: run a loop in a fresh git worktree on branch ringmaster/<run-id>, next to the repository.
import { basename, dirname, join, relative } from 'node:path';
import { EXIT, UserError } from '../core/errors.js';
import { git } from './git-exec.js';
import { headSha, isGitRepo, repoRoot, uncommittedPaths } from './repo.js';

/** A worktree made for a run. */
export interface RunWorktree {
  /** Top directory of the new worktree. */
  path: string;
  branch: string;
  /** Where the agent works: the worktree path plus the workspace's place inside the repository. */
  workdir: string;
  /** The commit the branch starts from (the user's HEAD). */
  base: string;
  /** True when the user's checkout had uncommitted changes, which the worktree does not carry. */
  sourceDirty: boolean;
}

/** Branch name of a run's worktree. */
export function worktreeBranch(runId: string): string {
  return `ringmaster/${runId}`;
}

/**
 * Default place of a run's worktree: `<parent>/<repo>.ringmaster-worktrees/<run-id>`, a sibling of the
 * repository (not inside it, so the user's own test runners and linters never pick up its copies).
 */
export function defaultWorktreePath(root: string, runId: string): string {
  return join(dirname(root), `${basename(root)}.ringmaster-worktrees`, runId);
}

/** Creates the worktree of run `runId` for `workspace` from its HEAD. `path` overrides the default place. */
export async function createWorktree(workspace: string, runId: string, path?: string): Promise<RunWorktree> {
  if (!(await isGitRepo(workspace))) {
    throw new UserError(`--worktree needs a git repository, and ${workspace} is not in one: run 'git init' and commit once, or run without --worktree`, EXIT.usage);
  }
  const root = await repoRoot(workspace);
  const base = await headSha(workspace);
  if (base === null) {
    throw new UserError(`--worktree needs a commit to start from, and ${root} has none yet`, EXIT.usage);
  }
  const target = path ?? defaultWorktreePath(root, runId);
  const branch = worktreeBranch(runId);
  const sourceDirty = (await uncommittedPaths(workspace)).length > 0;
  await git(root, ['worktree', 'add', '--quiet', '-b', branch, target, base]);
  return { path: target, branch, workdir: join(target, relative(root, workspace)), base, sourceDirty };
}

/** Removes a run's worktree directory (the branch and its commits stay). */
export async function removeWorktree(repo: string, path: string): Promise<void> {
  await git(repo, ['worktree', 'remove', '--force', path]);
}
