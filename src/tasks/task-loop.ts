// Which task program a task run gets: parallel tasks in worktrees (tasks.parallelism above 1, in a git repository
// with a commit, or a stored run that has them) or one task at a time (everything else, as before).
import { headSha, isGitRepo } from '../git/repo.js';
import { createParallelTaskProgram, type ParallelTaskProgram } from './parallel/program.js';
import type { StoredLane } from './run-state.js';
import { createTaskProgram, type TaskProgram, type TaskProgramOptions } from './task-program.js';

/** A task run's program. */
export type TaskLoopProgram = TaskProgram | ParallelTaskProgram;

/**
 * The program of a task run: parallel when tasks.parallelism is above 1 and the workspace is a git repository with
 * a commit (each task gets a worktree from it), or when a stored run had parallel tasks (`lanes`); otherwise one
 * task at a time (with parallelism above 1 it says why, as a warning).
 */
export async function createTaskLoop(options: TaskProgramOptions & { lanes?: StoredLane[] | undefined }): Promise<TaskLoopProgram> {
  const { lanes, ...rest } = options;
  if (lanes !== undefined) return createParallelTaskProgram({ ...rest, lanes });
  if (options.state?.current) return createTaskProgram(rest);
  const workspace = options.spec.workspace;
  if (options.settings.parallelism > 1 && (await isGitRepo(workspace)) && (await headSha(workspace)) !== null) return createParallelTaskProgram(rest);
  return createTaskProgram(rest);
}
