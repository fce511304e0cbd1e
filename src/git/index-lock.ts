// A git index.lock left behind by a git process that was killed (e.g. kill -9 of ringmaster during a
// checkpoint commit) blocks every later commit. It is removed only when no git process is alive.
import { readdirSync, readFileSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { git } from './git-exec.js';

/** True when a process named `git` is running on this machine (read from /proc; Linux). */
export function anyGitProcessAlive(): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true; // cannot tell: assume one is, and leave the lock alone
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'git') return true;
    } catch {
      // exited meanwhile
    }
  }
  return false;
}

/**
 * Removes the repository's index.lock when it exists and no git process is alive to own it.
 * Returns the removed path, or null when there was nothing to remove or it could belong to a live git.
 */
export async function clearStaleIndexLock(dir: string, gitAlive: () => boolean = anyGitProcessAlive): Promise<string | null> {
  const out = (await git(dir, ['rev-parse', '--git-path', 'index.lock'])).stdout.trim();
  const path = isAbsolute(out) ? out : resolve(dir, out);
  try {
    await stat(path);
  } catch {
    return null;
  }
  if (gitAlive()) return null;
  await rm(path, { force: true });
  return path;
}
