// The changes of one commit as a git unified diff (for a checkpoint's diff view), bounded in size.
import { git } from './git-exec.js';

/** Most bytes of diff returned; longer diffs end with a note. */
export const MAX_DIFF_CHARS = 8 * 1024 * 1024;

/** `git show --patch` of `sha` in `dir`: headers (diff --git ...) and hunks, renames detected, no colors. */
export async function checkpointDiff(dir: string, sha: string): Promise<string> {
  const { stdout } = await git(dir, ['show', '--no-color', '--format=', '--patch', '-M', sha]);
  return stdout.length > MAX_DIFF_CHARS ? `${stdout.slice(0, MAX_DIFF_CHARS)}\n[diff cut at ${MAX_DIFF_CHARS} characters]\n` : stdout;
}
