// Snapshots of a working state without a commit: the files (tracked and untracked, ignored ones excepted)
// and the index as two git trees. Restoring one discards what changed since (docs/tasks.md: "discard the
// filesystem changes of a failed iteration"); HEAD and the branch are never moved.
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { git } from './git-exec.js';
import { WORKSPACE_PATHSPEC } from './repo.js';

/** A working state: the tree of the files under the workspace and the tree of the whole index. */
export interface WorkingSnapshot {
  files: string;
  index: string;
}

async function indexPath(dir: string): Promise<string> {
  const out = (await git(dir, ['rev-parse', '--git-path', 'index'])).stdout.trim();
  return isAbsolute(out) ? out : resolve(dir, out);
}

/** Records the files under `dir` and the index as trees (objects in the repository, no ref, no commit). */
export async function snapshotWorkingState(dir: string): Promise<WorkingSnapshot> {
  const index = (await git(dir, ['write-tree'])).stdout.trim();
  const temp = await mkdtemp(join(tmpdir(), 'ringmaster-snapshot-'));
  try {
    const tempIndex = join(temp, 'index');
    await copyFile(await indexPath(dir), tempIndex).catch(() => undefined);
    const env = { GIT_INDEX_FILE: tempIndex };
    await git(dir, ['add', '--all', '--', '.'], { env });
    const files = (await git(dir, ['write-tree'], { env })).stdout.trim();
    return { files, index };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** Puts the files under `dir` and the index back as they were in `snapshot` (untracked files included). */
export async function restoreWorkingState(dir: string, snapshot: WorkingSnapshot): Promise<void> {
  await git(dir, ['read-tree', snapshot.index]);
  await git(dir, ['clean', '-d', '--force', '--quiet', '--', ...WORKSPACE_PATHSPEC]);
  await git(dir, ['restore', `--source=${snapshot.files}`, '--worktree', '--no-overlay', '--', ...WORKSPACE_PATHSPEC]);
}
