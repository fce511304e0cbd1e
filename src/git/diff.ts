// The changes of one commit, or between two trees, as a git unified diff (a checkpoint's or an iteration's diff
// view), bounded in size.
import { git } from './git-exec.js';

/** Most bytes of diff returned; longer diffs end with a note. */
export const MAX_DIFF_CHARS = 8 * 1024 * 1024;

function bounded(diff: string): string {
  return diff.length > MAX_DIFF_CHARS ? `${diff.slice(0, MAX_DIFF_CHARS)}\n[diff cut at ${MAX_DIFF_CHARS} characters]\n` : diff;
}

/** `git show --patch` of `sha` in `dir`: headers (diff --git ...) and hunks, renames detected, no colors. */
export async function checkpointDiff(dir: string, sha: string): Promise<string> {
  const { stdout } = await git(dir, ['show', '--no-color', '--format=', '--patch', '-M', sha]);
  return bounded(stdout);
}

/** `git diff` from tree `before` to tree `after` in `dir`'s repository: renames detected, no colors, never an external diff or text conversion of the user's configuration. */
export async function treeDiff(dir: string, before: string, after: string): Promise<string> {
  const { stdout } = await git(dir, ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', before, after]);
  return bounded(stdout);
}
