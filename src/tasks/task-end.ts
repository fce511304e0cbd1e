// The end of a task, commit, sync and learn (docs/tasks.md): a completed task's tracker status, progress and learning
// lines and work become one commit; a blocked task's attempt is kept on a branch, the workspace rolled back to
// the commit before the task, and the block recorded (tracker, progress, learning) in a commit of its own.
import { join } from 'node:path';
import { commitWorkspace } from '../git/checkpoint.js';
import { learningEntry, type TaskAttempt } from './attempt.js';
import { LEARNING_FILE, PROGRESS_FILE, appendEntries, progressEntrySchema, readEntries, type ProgressEntry } from './journal.js';
import type { TaskSource } from './sources/source.js';
import { abandonTask, commitTask, taskCommitMessage } from './task-git.js';
import type { Task } from './task.js';

/** Where and how a task ends. */
export interface TaskEndContext {
  workspace: string;
  /** The workspace is in a git repository: commit and roll back. */
  git: boolean;
  source: TaskSource;
  signal: AbortSignal;
  /** ISO time for the journal lines. */
  time: string;
}

/** What ending a task as blocked did in git. */
export interface BlockedTask {
  /** The branch keeping the failed attempt, or null. */
  branch: string | null;
  /** The commit the workspace went back to, or null when nothing was rolled back. */
  rolledBackTo: string | null;
}

/** The progress lines of one attempt: from its last task_started line in run `runId` to the end. */
export function attemptEntries(entries: readonly ProgressEntry[], runId: string, taskId: string): ProgressEntry[] {
  const mine = entries.filter((e) => e.run_id === runId && e.task_id === taskId);
  const start = mine.findLastIndex((e) => e.event === 'task_started');
  return start < 0 ? [] : mine.slice(start);
}

/** Completes a task: tracker `done`, progress and learning lines, then one commit of everything. */
export async function completeTask(c: TaskEndContext, task: Task, attempt: TaskAttempt): Promise<string | null> {
  await c.source.setStatus({ id: task.id, status: 'done', blocker: null }, c.signal);
  await appendEntries(join(c.workspace, PROGRESS_FILE), [
    { time: c.time, run_id: attempt.runId, task_id: task.id, event: 'task_completed', iterations: attempt.iterations, cost_usd: attempt.costUnknown && attempt.costUsd === 0 ? null : attempt.costUsd, duration_ms: attempt.runtimeMs },
  ]);
  await appendEntries(join(c.workspace, LEARNING_FILE), [learningEntry(attempt, 'done', c.time)]);
  if (!c.git) return null;
  const commit = await commitTask(c.workspace, task);
  return commit.committed ? commit.sha : null;
}

/**
 * Blocks a task: its attempt (work and progress lines) is committed on `ringmaster/failed/<id>`, the workspace
 * goes back to the commit the task started from, the attempt's progress lines are written again with a
 * task_blocked line (progress.jsonl is the whole history), a learning line is added, the tracker says
 * `blocked` with the reason, and that is committed.
 */
export async function blockTask(c: TaskEndContext, task: Task, attempt: TaskAttempt, reason: string): Promise<BlockedTask> {
  const progressPath = join(c.workspace, PROGRESS_FILE);
  let branch: string | null = null;
  let rolledBackTo: string | null = null;
  if (c.git && attempt.base !== null) {
    const kept = attemptEntries((await readEntries(progressPath, progressEntrySchema)).entries, attempt.runId, task.id);
    const abandoned = await abandonTask(c.workspace, task, attempt.base, reason);
    if (abandoned.attempt !== null) {
      branch = abandoned.branch;
      rolledBackTo = attempt.base;
      await appendEntries(progressPath, kept);
    }
  }
  await appendEntries(progressPath, [
    {
      time: c.time,
      run_id: attempt.runId,
      task_id: task.id,
      event: 'task_blocked',
      reason,
      iterations: attempt.iterations,
      cost_usd: attempt.costUnknown && attempt.costUsd === 0 ? null : attempt.costUsd,
      duration_ms: attempt.runtimeMs,
      failed_branch: branch,
    },
  ]);
  await appendEntries(join(c.workspace, LEARNING_FILE), [learningEntry(attempt, 'blocked', c.time)]);
  await c.source.setStatus({ id: task.id, status: 'blocked', blocker: reason }, c.signal);
  if (c.git) await commitWorkspace(c.workspace, taskCommitMessage(task, `blocked: ${reason.replace(/\s+/g, ' ').slice(0, 200)}`));
  return { branch, rolledBackTo };
}
