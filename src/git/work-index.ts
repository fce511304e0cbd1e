// The private index a run keeps for each directory it tracks (a temporary file seeded from the worktree's real index):
// change tracking stages the directory into it and writes its trees (its stat data and untracked cache spare hashing
// unchanged files and re-reading unchanged directories), and a checkpoint of the tree it holds is then only
// `commit-tree` + `update-ref` with this index installed as the real one (work-checkpoint.ts).
import { rm, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { git } from './git-exec.js';
import { copyIndexFile } from './index-lock-file.js';
import { tempIndexPath } from './changes.js';
import type { FileChange, FileChangeKind } from './changes.js';

/** What a staged directory changed since a tree. */
export interface StagedDiff {
  /** Paths under the directory, relative to it (Ringmaster's own directory excepted). */
  changes: FileChange[];
  /** Some path under the directory's .ringmaster/ changed too (tracked files there: a checkpoint takes the porcelain). */
  own: boolean;
}

/** The tree the index holds after a snapshot, with what changed since the tree before it. */
export interface SettledTree {
  before: string;
  tree: string;
  own: boolean;
}

/** The real index file as last seen (inode, size, modification time in ns): it changed when this differs. */
export async function indexStamp(file: string): Promise<string | null> {
  try {
    const st = await stat(file, { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return null;
  }
}

/** One directory's private index for a run. */
export interface WorkIndex {
  readonly dir: string;
  /** The worktree's real index file. */
  readonly real: string;
  /** The private index file. */
  readonly work: string;
  /** The directory's path in the repository ('' at its top, else ending in '/'). */
  readonly prefix: string;
  /** The real index's stamp when the private one was last seeded from it or installed over it (null: unknown). */
  realStamp: string | null;
  /**
   * The real index changed since (a git of the user's or the agent's, a `git status` refreshing it): a checkpoint
   * found it so; `reseed` before the next snapshot makes the next checkpoint fast again.
   */
  stale: boolean;
  /** The tree the private index holds since the last snapshot, until it is staged again (null: none). */
  settled: SettledTree | null;
  /** HEAD and its tree as the last checkpoint through this index left them (null: to be read). */
  head: { commit: string; tree: string } | null;
  /** The committer identity env for checkpoints (read once). */
  identity: Record<string, string> | null;
  /** Seeds the private index from the real one again (the tree it held is gone: the next snapshot stages). */
  reseed(): Promise<void>;
  /** Stages the files under the directory (tracked, untracked, .gitignore respected). */
  stage(): Promise<void>;
  /** The tree of the private index. */
  writeTree(): Promise<string>;
  /** What the staged state changed since `before` (no rename detection). */
  diffStaged(before: string): Promise<StagedDiff>;
  dispose(): Promise<void>;
}

const KIND: Record<string, FileChangeKind> = { A: 'added', M: 'modified', T: 'modified', D: 'deleted' };

/** Parses `--name-status -z` output relative to the directory; .ringmaster/ is reported apart. */
export function parseNameStatus(stdout: string): StagedDiff {
  const fields = stdout.split('\0');
  const changes: FileChange[] = [];
  let own = false;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = fields[i] ?? '';
    const path = fields[i + 1] ?? '';
    if (path === '') continue;
    if (path === '.ringmaster' || path.startsWith('.ringmaster/')) own = true;
    else changes.push({ path, change: KIND[status[0] ?? ''] ?? 'modified' });
  }
  return { changes, own };
}

/** Creates the private index of `dir`, seeded from its real index (none yet: an empty one). */
export async function openWorkIndex(dir: string): Promise<WorkIndex> {
  const [prefix = '', indexOut = ''] = (await git(dir, ['rev-parse', '--show-prefix', '--git-path', 'index'])).stdout.split('\n');
  const real = isAbsolute(indexOut) ? indexOut : resolve(dir, indexOut);
  const work = tempIndexPath();
  const env = { GIT_INDEX_FILE: work };
  const index: WorkIndex = {
    dir,
    real,
    work,
    prefix,
    realStamp: null,
    stale: false,
    settled: null,
    head: null,
    identity: null,
    async reseed() {
      index.settled = null;
      index.stale = false;
      const stampBefore = await indexStamp(real);
      await copyIndexFile(real, work).catch(() => undefined);
      // Written meanwhile (a git of the user's): the copy may be torn between two states, so never installed back.
      index.realStamp = stampBefore !== null && stampBefore === (await indexStamp(real)) ? stampBefore : null;
    },
    async stage() {
      index.settled = null;
      await git(dir, ['-c', 'core.untrackedCache=true', 'add', '--all', '--', '.'], { env });
    },
    async writeTree() {
      return (await git(dir, ['write-tree'], { env })).stdout.trim();
    },
    async diffStaged(before) {
      const out = await git(dir, ['diff-index', '--cached', '-r', '-z', '--no-renames', '--name-status', '--relative', before], { env });
      return parseNameStatus(out.stdout);
    },
    dispose: () => rm(work, { force: true }),
  };
  await index.reseed();
  return index;
}
