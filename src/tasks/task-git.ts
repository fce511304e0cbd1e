// Git for task loops: one commit per completed task (`[ringmaster] RALPH-001: title`); a blocked task rolled
// back to the commit before it started, its attempt kept on `ringmaster/failed/<task-id>`; and for
// `parallelism: N`, a worktree per task whose result merges back into the workspace as one commit.
import { existsSync, realpathSync } from 'node:fs';
import { commitWorkspace, type CheckpointResult } from '../git/checkpoint.js';
import { git } from '../git/git-exec.js';
import { headSha, identityEnv, repoRoot } from '../git/repo.js';
import { createWorktree, defaultWorktreePath, removeWorktree, worktreeBranch, type RunWorktree } from '../git/worktree.js';
import type { Task } from './task.js';

/** The subject line of a task's commit. */
export function taskCommitMessage(task: Pick<Task, 'id' | 'title'>, note?: string): string {
  const title = task.title.replace(/\s+/g, ' ').trim();
  return `[ringmaster] ${task.id}: ${title}${note ? ` (${note})` : ''}`;
}

/** A task id as a branch name component (git's ref rules: no spaces, `..`, `~^:?*[\`, trailing `.lock`...). */
export function branchSafe(id: string): string {
  const safe = id
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.-]+|[.-]+$/g, '')
    .replace(/\.lock$/i, '-lock');
  return safe === '' ? 'task' : safe;
}

/** The branch that keeps a blocked task's failed attempt. */
export function failedBranch(id: string): string {
  return `ringmaster/failed/${branchSafe(id)}`;
}

/** True when the branch exists. */
export async function branchExists(dir: string, branch: string): Promise<boolean> {
  const out = await git(dir, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { okExitCodes: [1] });
  return out.exitCode === 0;
}

/**
 * Starts a task: commits whatever is uncommitted (so a later rollback can never destroy work that was not
 * the task's) and returns the commit the task starts from (null in a repository without commits).
 */
export async function beginTask(dir: string, task: Pick<Task, 'id' | 'title'>): Promise<string | null> {
  const saved = await commitWorkspace(dir, `[ringmaster] ${task.id}: changes made before the task started`);
  return saved.sha;
}

/** Commits a completed task's work (tracker, progress and learning files included) as one commit. */
export function commitTask(dir: string, task: Pick<Task, 'id' | 'title'>): Promise<CheckpointResult> {
  return commitWorkspace(dir, taskCommitMessage(task));
}

/** What abandoning a task did. */
export interface AbandonResult {
  /** The branch keeping the failed attempt; null when the attempt changed nothing. */
  branch: string | null;
  /** The commit with the failed attempt (the branch's tip), or null. */
  attempt: string | null;
}

/**
 * Rolls the workspace back to `base` (the commit before the task), keeping the failed attempt: its files
 * are committed, a branch `ringmaster/failed/<task-id>` (or `-2`, `-3`... when taken) points at that
 * commit, and the current branch moves back to `base` (`git reset --keep`: local changes outside the
 * workspace are kept, never overwritten).
 */
export async function abandonTask(dir: string, task: Pick<Task, 'id' | 'title'>, base: string, reason: string): Promise<AbandonResult> {
  const saved = await commitWorkspace(dir, taskCommitMessage(task, `failed attempt: ${reason.replace(/\s+/g, ' ').slice(0, 200)}`));
  const attempt = saved.sha;
  if (attempt === null || attempt === base) return { branch: null, attempt: null };
  let branch = failedBranch(task.id);
  for (let n = 2; await branchExists(dir, branch); n++) branch = `${failedBranch(task.id)}-${n}`;
  await git(dir, ['branch', branch, attempt]);
  await git(dir, ['reset', '--quiet', '--keep', base]);
  return { branch, attempt };
}

/** A task's own worktree (parallel task runs). */
export interface TaskWorktree extends RunWorktree {
  taskId: string;
}

/** The name of a task's worktree and branch (`<run-id>-<task-id>`, then `-2`, `-3`... when taken). */
async function freeWorktreeName(workspace: string, runId: string, task: Pick<Task, 'id'>): Promise<string> {
  const root = await repoRoot(workspace);
  const name = `${runId}-${branchSafe(task.id)}`;
  let candidate = name;
  for (let n = 2; (await branchExists(workspace, worktreeBranch(candidate))) || existsSync(defaultWorktreePath(root, candidate)); n++) candidate = `${name}-${n}`;
  return candidate;
}

/** The branch a task's worktree will get (what createTaskWorktree will create now). */
export async function taskWorktreeBranch(workspace: string, runId: string, task: Pick<Task, 'id'>): Promise<string> {
  return worktreeBranch(await freeWorktreeName(workspace, runId, task));
}

/** Creates a worktree for task `task` of run `runId` on branch `ringmaster/<run-id>-<task-id>` (or `-2`...), from HEAD. */
export async function createTaskWorktree(workspace: string, runId: string, task: Pick<Task, 'id'>): Promise<TaskWorktree> {
  const wt = await createWorktree(workspace, await freeWorktreeName(workspace, runId, task));
  return { ...wt, taskId: task.id };
}

/**
 * A task's worktree again after the run stopped (resume): reused when it is still there; else made again
 * from its branch (its commits; uncommitted work is gone with the directory), or from `base` when the branch is gone too.
 */
export async function reopenTaskWorktree(workspace: string, wt: { path: string; branch: string }, base: string): Promise<'reused' | 'from_branch' | 'from_base'> {
  const top = existsSync(wt.path) ? await git(wt.path, ['rev-parse', '--show-toplevel'], { okExitCodes: [128] }) : null;
  if (top !== null && top.exitCode === 0 && realpathSync(top.stdout.trim()) === realpathSync(wt.path)) return 'reused';
  const root = await repoRoot(workspace);
  await git(root, ['worktree', 'prune']);
  if (await branchExists(root, wt.branch)) {
    await git(root, ['worktree', 'add', '--quiet', wt.path, wt.branch]);
    return 'from_branch';
  }
  await git(root, ['worktree', 'add', '--quiet', '-b', wt.branch, wt.path, base]);
  return 'from_base';
}

/** Removes a task's worktree directory (or forgets it when it is already gone); its branch stays (with the commits of the task). */
export async function removeTaskWorktree(workspace: string, wt: Pick<TaskWorktree, 'path'>): Promise<void> {
  const root = await repoRoot(workspace);
  if (existsSync(wt.path)) await removeWorktree(root, wt.path);
  else await git(root, ['worktree', 'prune']);
}

/** What merging a task branch did. */
export type MergeResult = { merged: true; tree: string } | { merged: false; conflicts: string[] };

/**
 * Brings a task branch's changes into the workspace's index and files without committing (the caller
 * writes the tracker and logs, then commits everything as the task's one commit). Computed first with
 * `git merge-tree`, so a conflict leaves the workspace untouched and is returned with the conflicting paths.
 */
export async function mergeTaskBranch(workspace: string, branch: string): Promise<MergeResult> {
  const head = await headSha(workspace);
  if (head === null) throw new Error(`cannot merge ${branch}: ${workspace} has no commit`);
  const out = await git(workspace, ['merge-tree', '--write-tree', '--name-only', '--no-messages', head, branch], { okExitCodes: [1] });
  const [tree = '', ...rest] = out.stdout.split('\n');
  if (out.exitCode === 1) return { merged: false, conflicts: rest.filter((l) => l.trim() !== '') };
  // A two-tree read-tree moves the index and files from HEAD to the merged tree, refusing to overwrite local changes.
  await git(workspace, ['read-tree', '-m', '-u', head, tree.trim()]);
  return { merged: true, tree: tree.trim() };
}

/** Commits everything staged and changed under `dir` (after a merge) as one commit with `message`. */
export async function commitMerged(dir: string, message: string): Promise<string | null> {
  await git(dir, ['add', '--all', '--', '.']);
  const staged = await git(dir, ['diff', '--cached', '--quiet'], { okExitCodes: [1] });
  if (staged.exitCode === 0) return headSha(dir);
  await git(dir, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '--no-verify', '-m', message], { env: await identityEnv(dir) });
  return headSha(dir);
}

/** The commit a branch points at. */
export async function branchTip(dir: string, branch: string): Promise<string> {
  return (await git(dir, ['rev-parse', '--verify', `refs/heads/${branch}^{commit}`])).stdout.trim();
}

/** True when commit `a` is `b` or one of its ancestors. */
export async function isAncestor(dir: string, a: string, b: string): Promise<boolean> {
  return (await git(dir, ['merge-base', '--is-ancestor', a, b], { okExitCodes: [1] })).exitCode === 0;
}

/**
 * Commits everything staged and changed under `dir` after mergeTaskBranch as a merge commit of HEAD and `tip` (the
 * task branch's commit), so that `git log --first-parent` shows one commit per task and the branch stays reachable.
 */
export async function commitTaskMerge(dir: string, message: string, tip: string): Promise<string> {
  const head = await headSha(dir);
  if (head === null) throw new Error(`cannot merge ${tip}: ${dir} has no commit`);
  await git(dir, ['add', '--all', '--', '.']);
  const tree = (await git(dir, ['write-tree'])).stdout.trim();
  const commit = (await git(dir, ['-c', 'commit.gpgsign=false', 'commit-tree', tree, '-p', head, '-p', tip, '-m', message], { env: await identityEnv(dir) })).stdout.trim();
  await git(dir, ['update-ref', '-m', `ringmaster: ${message}`, 'HEAD', commit, head]);
  return commit;
}

/** Deletes a branch (a merged task's: its commits stay reachable from the merge). */
export async function deleteBranch(dir: string, branch: string): Promise<void> {
  await git(dir, ['branch', '-D', '--quiet', branch]);
}

/**
 * Keeps the failed attempt of a task worked on in its own worktree: its files committed on the task's branch, the
 * branch renamed `ringmaster/failed/<task-id>` (`-2`... when taken), the worktree removed. Null when the attempt
 * changed nothing since `base` (the branch is deleted then).
 */
export async function keepFailedWorktree(workspace: string, wt: { path: string; branch: string; workdir: string }, task: Pick<Task, 'id' | 'title'>, base: string, reason: string): Promise<string | null> {
  if (existsSync(wt.workdir)) await commitWorkspace(wt.workdir, taskCommitMessage(task, `failed attempt: ${reason.replace(/\s+/g, ' ').slice(0, 200)}`));
  await removeTaskWorktree(workspace, wt);
  if (!(await branchExists(workspace, wt.branch))) return null;
  if ((await branchTip(workspace, wt.branch)) === base) {
    await deleteBranch(workspace, wt.branch);
    return null;
  }
  let branch = failedBranch(task.id);
  for (let n = 2; await branchExists(workspace, branch); n++) branch = `${failedBranch(task.id)}-${n}`;
  await git(workspace, ['branch', '-m', wt.branch, branch]);
  return branch;
}
