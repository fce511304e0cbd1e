// A git index.lock left behind by a git process that was killed (e.g. kill -9 of ringmaster during a
// checkpoint commit) blocks every later commit. It is removed only when no live git process works in that
// repository: a git busy (or a zombie) in another repository elsewhere on the machine does not count.
import { realpathSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { isAbsolute, resolve, sep } from 'node:path';
import { isDead, listProcesses, processCwd, processEnv } from '../os/proc.js';
import { git } from './git-exec.js';

/** The directories of one repository a git process could be working on: its worktree and git directories. */
export interface RepoDirs {
  roots: string[];
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/** The worktree top, git dir and common git dir of the repository around `dir` (real paths). */
export async function repoDirs(dir: string): Promise<RepoDirs> {
  const out = (await git(dir, ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir'])).stdout.trim().split('\n');
  const roots = out.filter((l) => l !== '').map((p) => real(isAbsolute(p) ? p : resolve(dir, p)));
  return { roots: [...new Set(roots)] };
}

/**
 * True when a live git process works in the repository: its working directory, or the GIT_DIR /
 * GIT_WORK_TREE it was started with, is inside one of the repository's directories. Zombies hold no lock
 * and are ignored; a git process of another user whose directory cannot be read is ignored too. Without
 * /proc, nothing can be told: any answer but "yes" would risk a live git's lock.
 */
export function gitAliveIn(repo: RepoDirs): boolean {
  const processes = listProcesses();
  if (processes === null) return true;
  for (const p of processes) {
    if (!p.comm.startsWith('git') || isDead(p)) continue;
    const places: string[] = [];
    const cwd = processCwd(p.pid);
    if (cwd !== null) places.push(cwd);
    const env = processEnv(p.pid);
    for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR']) {
      const value = env?.get(name);
      if (value) places.push(isAbsolute(value) ? value : resolve(cwd ?? '/', value));
    }
    if (places.some((place) => repo.roots.some((root) => inside(real(place), root)))) return true;
  }
  return false;
}

/**
 * Removes the repository's index.lock when it exists and no git process works in that repository.
 * Returns the removed path, or null when there was nothing to remove or it could belong to a live git.
 */
export async function clearStaleIndexLock(dir: string, gitAlive: (repo: RepoDirs) => boolean = gitAliveIn): Promise<string | null> {
  const out = (await git(dir, ['rev-parse', '--git-path', 'index.lock'])).stdout.trim();
  const path = isAbsolute(out) ? out : resolve(dir, out);
  try {
    await stat(path);
  } catch {
    return null;
  }
  if (gitAlive(await repoDirs(dir))) return null;
  await rm(path, { force: true });
  return path;
}
