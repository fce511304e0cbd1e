// Checkpoints: commit the workspace's changes (never .ringmaster/) as one ringmaster commit. The usual case is
// git plumbing on a temporary index (add, write-tree, commit-tree, update-ref, then that index put in place of
// the real one: the state `git add` + `git commit -- <workspace>` would leave); anything unusual (no commit yet,
// changes staged outside the workspace, tracked files under .ringmaster/) takes the porcelain path.
import { rm } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { tempIndexPath } from './changes.js';
import { git } from './git-exec.js';
import { copyIndexFile, lockIndex } from './index-lock-file.js';
import { WORKSPACE_PATHSPEC, headSha, identityEnv } from './repo.js';

/** Result of a checkpoint: a new commit, or none because nothing changed (sha = HEAD, null without commits). */
export interface CheckpointResult {
  committed: boolean;
  sha: string | null;
  message: string;
}

/** The commit message of a checkpoint. */
export function checkpointMessage(runId: string, iteration: number): string {
  return `[ringmaster] checkpoint run ${runId} iteration ${iteration}`;
}

/**
 * Stages every change under `dir` (added, modified, deleted; .ringmaster/ excluded) and commits only
 * those paths, so changes the user staged elsewhere in the repository stay staged and uncommitted.
 * Hooks and signing are skipped: a checkpoint must not hang on a pinentry or fail on a linter.
 */
export async function checkpoint(dir: string, runId: string, iteration: number): Promise<CheckpointResult> {
  const message = checkpointMessage(runId, iteration);
  return (await fastCommit(dir, message)) ?? commitWorkspace(dir, message);
}

/** Where the worktree stands: its prefix in the repository, its index file, HEAD (null: no commit yet). */
async function whereabouts(dir: string): Promise<{ prefix: string; index: string; head: string; headTree: string } | null> {
  const out = await git(dir, ['rev-parse', '--show-prefix', '--git-path', 'index', 'HEAD^{commit}', 'HEAD^{tree}'], { okExitCodes: [128] });
  if (out.exitCode !== 0) return null;
  const [prefix = '', index = '', head = '', headTree = ''] = out.stdout.split('\n');
  return { prefix, index: isAbsolute(index) ? index : resolve(dir, index), head, headTree };
}

/** The plumbing checkpoint; null when this case is the porcelain's (nothing was changed then). */
async function fastCommit(dir: string, message: string): Promise<CheckpointResult | null> {
  const where = await whereabouts(dir);
  if (where === null) return null;
  const temp = tempIndexPath();
  try {
    try {
      await copyIndexFile(where.index, temp);
    } catch {
      return null;
    }
    const env = { GIT_INDEX_FILE: temp };
    const [identity] = await Promise.all([identityEnv(dir), git(dir, ['add', '--all', '--', '.'], { env })]);
    const tree = (await git(dir, ['write-tree'], { env })).stdout.trim();
    const diff = tree === where.headTree ? null : await git(dir, ['diff-tree', '-r', '-z', '--name-only', where.head, tree]);
    const paths = (diff?.stdout ?? '').split('\0').filter((p) => p !== '');
    const own = `${where.prefix}.ringmaster/`;
    if (paths.some((p) => !p.startsWith(where.prefix) || p.startsWith(own))) return null;
    const lock = await lockIndex(where.index);
    try {
      if (paths.length === 0) {
        await lock.commit(temp);
        return { committed: false, sha: where.head, message };
      }
      const commit = (await git(dir, ['-c', 'commit.gpgsign=false', 'commit-tree', tree, '-p', where.head, '-m', message], { env: identity })).stdout.trim();
      await git(dir, ['update-ref', '-m', `commit: ${message}`, 'HEAD', commit, where.head]);
      await lock.commit(temp);
      return { committed: true, sha: commit, message };
    } catch (error) {
      await lock.release();
      throw error;
    }
  } finally {
    await rm(temp, { force: true });
  }
}

/** Stages and commits every change under `dir` with `message`; no commit when nothing changed. */
export async function commitWorkspace(dir: string, message: string): Promise<CheckpointResult> {
  // Plain '.': naming the ignored .ringmaster/ in an exclude pathspec makes `git add` fail. It stays out
  // because .git/info/exclude (ensureExcluded) and .ringmaster/.gitignore both ignore it.
  await git(dir, ['add', '--all', '--', '.']);
  const diff = await git(dir, ['diff', '--cached', '--quiet', '--', ...WORKSPACE_PATHSPEC], { okExitCodes: [1] });
  if (diff.exitCode === 0) return { committed: false, sha: await headSha(dir), message };
  const env = await identityEnv(dir);
  await git(
    dir,
    ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '--no-verify', '--allow-empty-message', '-m', message, '--', ...WORKSPACE_PATHSPEC],
    { env },
  );
  return { committed: true, sha: await headSha(dir), message };
}
