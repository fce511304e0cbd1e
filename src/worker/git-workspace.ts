// Workspaces of repository runs on a worker: a bare clone cache per repository under the worker's workdir,
// one clone per run on branch ringmaster/<run-id> (started from the base branch, or from the run's pushed
// branch when the run continues after another worker), and the push of every checkpoint to that branch.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../git/index.js';

/** Where a repository run works. */
export interface RepoWorkspace {
  dir: string;
  branch: string;
  /** The commit the run starts from. */
  startSha: string;
  /** The run branch's commit on the remote when the workspace was prepared (null: not pushed yet). */
  remoteSha: string | null;
}

/** Time limit of a git command that talks to the remote (clone, fetch, ls-remote, push): a large repository. */
export const REMOTE_GIT_TIMEOUT_MS = 30 * 60_000;
const remote = { timeoutMs: REMOTE_GIT_TIMEOUT_MS };

const cacheLocks = new Map<string, Promise<unknown>>();

/** Runs `fn` after every earlier call for the same key (one fetch into a cache at a time). */
function serialized<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = cacheLocks.get(key) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(fn);
  cacheLocks.set(key, next);
  return next;
}

/** The branch a run works on. */
export function runBranch(runId: string): string {
  return `ringmaster/${runId}`;
}

/** Brings the bare cache of `repository` up to date (cloning it the first time); returns its path. */
export async function updateCache(workdir: string, repository: string): Promise<string> {
  const cache = join(workdir, 'cache', `${createHash('sha256').update(repository).digest('hex').slice(0, 16)}.git`);
  await serialized(cache, async () => {
    if (!existsSync(cache)) {
      mkdirSync(join(workdir, 'cache'), { recursive: true });
      await git(workdir, ['clone', '--quiet', '--bare', '--', repository, cache], remote);
    } else {
      await git(cache, ['fetch', '--quiet', '--prune', '--', repository, '+refs/heads/*:refs/heads/*'], remote);
    }
  });
  return cache;
}

/**
 * Prepares the clone of a run: `workdir/runs/<run-id>` on branch ringmaster/<run-id>, reset to the run's
 * pushed branch if it has one (another worker's checkpoints), else to `baseBranch`. Uncommitted changes of an
 * interrupted iteration in a reused clone are dropped: the run goes on from its last pushed checkpoint.
 */
export async function prepareRepoWorkspace(workdir: string, repository: string, baseBranch: string, runId: string): Promise<RepoWorkspace> {
  const cache = await updateCache(workdir, repository);
  const dir = join(workdir, 'runs', runId);
  const branch = runBranch(runId);
  if (!existsSync(join(dir, '.git'))) {
    mkdirSync(join(workdir, 'runs'), { recursive: true });
    await git(workdir, ['clone', '--quiet', '--no-checkout', '--', cache, dir]);
    await git(dir, ['remote', 'set-url', 'origin', repository]);
  }
  await git(dir, ['fetch', '--quiet', '--', cache, `+refs/heads/${baseBranch}:refs/remotes/origin/${baseBranch}`]);
  const pushed = await git(dir, ['ls-remote', '--heads', '--', repository, `refs/heads/${branch}`], remote);
  const remoteSha = pushed.stdout.trim().split(/\s+/)[0] || null;
  if (remoteSha !== null) await git(dir, ['fetch', '--quiet', '--', repository, `+refs/heads/${branch}:refs/remotes/origin/${branch}`], remote);
  const start = remoteSha ?? `refs/remotes/origin/${baseBranch}`;
  await git(dir, ['checkout', '--quiet', '--force', '-B', branch, start]);
  await git(dir, ['reset', '--quiet', '--hard', start]);
  await git(dir, ['clean', '--quiet', '-fd']);
  const startSha = (await git(dir, ['rev-parse', 'HEAD'])).stdout.trim();
  return { dir, branch, startSha, remoteSha };
}

/**
 * Pushes HEAD to the run's branch, only if the remote branch is still at `expected` (null: absent), so a
 * worker that lost the run cannot overwrite the new owner's checkpoints. Returns the pushed commit.
 */
export async function pushCheckpoint(dir: string, branch: string, expected: string | null): Promise<string> {
  const head = (await git(dir, ['rev-parse', 'HEAD'])).stdout.trim();
  await git(dir, ['push', '--quiet', `--force-with-lease=refs/heads/${branch}:${expected ?? ''}`, 'origin', `HEAD:refs/heads/${branch}`], remote);
  return head;
}
