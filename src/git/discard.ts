// Discarding an iteration's file changes exactly, from the trees taken before and after it (git/changes.ts): the
// attempt is kept first as a commit under a ref (its parent is the state before, so `git show <ref>` shows what
// was discarded), then files added are removed and files modified or deleted are checked out of the before-tree.
import { existsSync } from 'node:fs';
import { rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { FileChange } from './changes.js';
import { tempIndexPath } from './changes.js';
import { git } from './git-exec.js';
import { installIndex } from './index-lock-file.js';
import { headSha, identityEnv } from './repo.js';

/** What to discard and where to keep it. */
export interface DiscardRequest {
  dir: string;
  before: string;
  after: string;
  /** Every change between the two trees (not only the first ones recorded). */
  changes: readonly FileChange[];
  /** The ref that keeps the discarded attempt, e.g. refs/ringmaster/discarded/<run>/<n>. */
  ref: string;
  message: string;
  /** The real index and a copy of it taken with the before-tree: put back, so what the agent staged goes too. */
  index?: { file: string; copy: string } | null;
}

/** The ref that keeps a discarded iteration. */
export function discardedRef(runId: string, iteration: number): string {
  return `refs/ringmaster/discarded/${runId}/${iteration}`;
}

/** Keeps the attempt under `ref`, then puts the files under `dir` back as they were in `before`. */
export async function discardChanges(r: DiscardRequest): Promise<void> {
  await keepAttempt(r);
  const added = r.changes.filter((c) => c.change === 'added').map((c) => c.path);
  const restored = r.changes.filter((c) => c.change !== 'added').map((c) => c.path);
  for (const path of added) await rm(join(r.dir, path), { force: true });
  await removeEmptyParents(r.dir, added);
  if (restored.length > 0) {
    const temp = tempIndexPath();
    try {
      const env = { GIT_INDEX_FILE: temp };
      await git(r.dir, ['read-tree', r.before], { env });
      for (let i = 0; i < restored.length; i += 500) await git(r.dir, ['checkout-index', '--force', '--', ...restored.slice(i, i + 500)], { env });
    } finally {
      await rm(temp, { force: true });
    }
  }
  // No copy: the repository had no index file before (nothing was ever staged).
  if (r.index && existsSync(r.index.copy)) await installIndex(r.index.file, r.index.copy);
}

async function keepAttempt(r: DiscardRequest): Promise<void> {
  const env = await identityEnv(r.dir);
  const head = await headSha(r.dir);
  const base = (await git(r.dir, ['commit-tree', r.before, ...(head ? ['-p', head] : []), '-m', `${r.message} (before)`], { env })).stdout.trim();
  const attempt = (await git(r.dir, ['commit-tree', r.after, '-p', base, '-m', r.message], { env })).stdout.trim();
  await git(r.dir, ['update-ref', r.ref, attempt]);
}

/** Removes the directories left empty by removing `paths` (deepest first; a directory with anything in it stays). */
async function removeEmptyParents(dir: string, paths: readonly string[]): Promise<void> {
  const dirs = new Set<string>();
  for (const path of paths) {
    for (let d = dirname(path); d !== '.' && d !== '/' && d !== ''; d = dirname(d)) dirs.add(d);
  }
  const deepestFirst = [...dirs].sort((a, b) => b.split('/').length - a.split('/').length);
  for (const d of deepestFirst) await rmdir(join(dir, d)).catch(() => undefined);
}
