// What an iteration changed in a workspace, observed without touching the user's index or HEAD: the files under
// the workspace (tracked and untracked, .gitignore respected) written as a git tree through a temporary index
// seeded from the real one (its stat data spares hashing unchanged files), and two such trees compared.
import { randomUUID } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { git } from './git-exec.js';
import { copyIndexFile } from './index-lock-file.js';
import { processAlive } from '../os/process-group.js';

/** How a path changed between two trees. */
export type FileChangeKind = 'added' | 'modified' | 'deleted';

/** One changed path, relative to the workspace. */
export interface FileChange {
  path: string;
  change: FileChangeKind;
}

/** Paths kept in an iteration's record (the total is always counted). */
export const MAX_FILES_CHANGED = 1000;

/** The real index file of the worktree around `dir` (a linked worktree has its own). */
export async function gitIndexPath(dir: string): Promise<string> {
  const out = (await git(dir, ['rev-parse', '--git-path', 'index'])).stdout.trim();
  return isAbsolute(out) ? out : resolve(dir, out);
}

const TEMP_PREFIX = 'ringmaster-index-';

/** A fresh path for a temporary index (in the system's temp directory), named after this process. */
export function tempIndexPath(): string {
  return join(tmpdir(), `${TEMP_PREFIX}${process.pid}-${randomUUID()}`);
}


/** Removes the temporary indexes of processes that are gone (a ringmaster killed with kill -9); returns how many. */
export async function removeStaleTempIndexes(): Promise<number> {
  let removed = 0;
  for (const name of await readdir(tmpdir())) {
    const pid = Number(/^ringmaster-index-(\d+)-/.exec(name)?.[1] ?? NaN);
    if (!Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    await rm(join(tmpdir(), name), { force: true });
    removed++;
  }
  return removed;
}

/**
 * Stages the files under `dir` into `workIndex`, a temporary index the caller keeps between snapshots of the same
 * directory (seeded from the real one): its stat data and its untracked cache spare hashing unchanged files and
 * reading unchanged directories. Their contents are in the repository's objects once it returns.
 */
export async function stageWorktree(dir: string, workIndex: string): Promise<void> {
  await git(dir, ['-c', 'core.untrackedCache=true', 'add', '--all', '--', '.'], { env: { GIT_INDEX_FILE: workIndex } });
}

/** The tree of `workIndex` (of the whole repository: paths outside the staged directory as the index has them). */
export async function writeIndexTree(dir: string, workIndex: string): Promise<string> {
  return (await git(dir, ['write-tree'], { env: { GIT_INDEX_FILE: workIndex } })).stdout.trim();
}

/** Stages the files under `dir` into `workIndex` and returns its tree. */
export async function writeWorktreeTree(dir: string, workIndex: string): Promise<string> {
  await stageWorktree(dir, workIndex);
  return writeIndexTree(dir, workIndex);
}

/** A one-off snapshot of `dir` through a copy of its real index `indexFile` (which is never written). */
export async function snapshotTree(dir: string, indexFile: string): Promise<string> {
  const temp = tempIndexPath();
  try {
    await copyIndexFile(indexFile, temp).catch(() => undefined);
    return await writeWorktreeTree(dir, temp);
  } finally {
    await rm(temp, { force: true });
  }
}

const KIND: Record<string, FileChangeKind> = { A: 'added', M: 'modified', T: 'modified', D: 'deleted' };

/** Every path under `dir` that differs between two trees (no rename detection), Ringmaster's own directory excepted. */
export async function diffTrees(dir: string, before: string, after: string): Promise<FileChange[]> {
  if (before === after) return [];
  const out = await git(dir, ['diff-tree', '-r', '-z', '--no-renames', '--name-status', '--relative', before, after]);
  const fields = out.stdout.split('\0');
  const changes: FileChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = fields[i] ?? '';
    const path = fields[i + 1] ?? '';
    if (path === '' || path === '.ringmaster' || path.startsWith('.ringmaster/')) continue;
    changes.push({ path, change: KIND[status[0] ?? ''] ?? 'modified' });
  }
  return changes;
}
