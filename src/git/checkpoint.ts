// Checkpoints: commit the workspace's changes (never .ringmaster/) as one ringmaster commit.
import { git } from './git-exec.js';
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
  return commitWorkspace(dir, checkpointMessage(runId, iteration));
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
