// The end of a task that worked in its own worktree (tasks.parallelism above 1), done by the run in the workspace:
// a complete task's branch merged as one merge commit with its tracker status and journal lines; a task whose merge
// conflicts, or that was blocked, recorded as blocked (its branch kept) in a commit of its own. The tracker,
// progress.jsonl and learning.jsonl are written here only, never in a task's worktree.
import { join } from 'node:path';
import { commitWorkspace } from '../../git/checkpoint.js';
import { headSha } from '../../git/repo.js';
import { learningEntry, type TaskAttempt } from '../attempt.js';
import { LEARNING_FILE, PROGRESS_FILE, appendEntries, type ProgressEntry } from '../journal.js';
import type { TaskEndContext } from '../task-end.js';
import { branchTip, commitTaskMerge, deleteBranch, isAncestor, mergeTaskBranch, removeTaskWorktree, taskCommitMessage } from '../task-git.js';
import type { Task } from '../task.js';

/** A finished task of a parallel run: its attempt, its progress lines not written yet, its worktree and branch. */
export interface LaneEnding {
  task: Task;
  attempt: TaskAttempt;
  entries: readonly ProgressEntry[];
  worktree: { path: string; branch: string; workdir: string };
}

/** What merging a complete task did. */
export type LaneMerge = { merged: true; commit: string | null } | { merged: false; conflicts: string[] };

function costOf(attempt: TaskAttempt): number | null {
  return attempt.costUnknown && attempt.costUsd === 0 ? null : attempt.costUsd;
}

/**
 * Merges a complete task's branch into the workspace (leftovers there committed first), then writes its tracker
 * status, progress and learning lines and commits it all as a merge commit (`[ringmaster] ID: title`); its worktree
 * and branch are removed. On a conflict nothing changes and the conflicting paths are returned.
 */
export async function mergeLane(c: TaskEndContext, lane: LaneEnding): Promise<LaneMerge> {
  const { task, attempt, worktree } = lane;
  await commitWorkspace(c.workspace, taskCommitMessage(task, 'changes made before the task was merged'));
  const tip = await branchTip(c.workspace, worktree.branch);
  const head = await headSha(c.workspace);
  // Nothing to merge (the task changed no file, or its merge was committed before a crash): its records only.
  const merging = head !== null && !(await isAncestor(c.workspace, tip, head));
  if (merging) {
    const merge = await mergeTaskBranch(c.workspace, worktree.branch);
    if (!merge.merged) return { merged: false, conflicts: merge.conflicts };
  }
  // The tracker first: a run resumed after a crash here sees the task done and does not merge it twice.
  await c.source.setStatus({ id: task.id, status: 'done', blocker: null }, c.signal);
  await appendEntries(join(c.workspace, PROGRESS_FILE), [
    ...lane.entries,
    { time: c.time, run_id: attempt.runId, task_id: task.id, event: 'task_completed', iterations: attempt.iterations, cost_usd: costOf(attempt), duration_ms: attempt.runtimeMs },
  ]);
  await appendEntries(join(c.workspace, LEARNING_FILE), [learningEntry(attempt, 'done', c.time)]);
  const commit = merging ? await commitTaskMerge(c.workspace, taskCommitMessage(task), tip) : (await commitWorkspace(c.workspace, taskCommitMessage(task))).sha;
  await removeTaskWorktree(c.workspace, worktree);
  await deleteBranch(c.workspace, worktree.branch);
  return { merged: true, commit };
}

/**
 * Records a parallel task as blocked in the workspace: tracker `blocked` with the reason, its progress lines and a
 * task_blocked line naming the branch that keeps its work, a learning line; committed as
 * `[ringmaster] ID: title (blocked: reason)`.
 */
export async function recordLaneBlocked(c: TaskEndContext, lane: Pick<LaneEnding, 'task' | 'attempt' | 'entries'>, reason: string, branch: string | null): Promise<void> {
  const { task, attempt } = lane;
  // The tracker first: a run resumed after a crash here sees the task blocked and does not end it twice.
  await c.source.setStatus({ id: task.id, status: 'blocked', blocker: reason }, c.signal);
  await appendEntries(join(c.workspace, PROGRESS_FILE), [
    ...lane.entries,
    { time: c.time, run_id: attempt.runId, task_id: task.id, event: 'task_blocked', reason, iterations: attempt.iterations, cost_usd: costOf(attempt), duration_ms: attempt.runtimeMs, failed_branch: branch },
  ]);
  await appendEntries(join(c.workspace, LEARNING_FILE), [learningEntry(attempt, 'blocked', c.time)]);
  await commitWorkspace(c.workspace, taskCommitMessage(task, `blocked: ${reason.replace(/\s+/g, ' ').slice(0, 200)}`));
}
