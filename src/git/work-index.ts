// The private index a run keeps for each directory it tracks (a temporary file seeded from the worktree's real index):
// change tracking stages the directory into it and writes its trees (live-stage.ts: in memory from file events where
// it can, else by `git add --all`, whose stat data and untracked cache spare hashing unchanged files), and a checkpoint of the tree it holds is then only
// a commit and a HEAD update (in process, work-checkpoint.ts) with this index installed as the real one.
import { rm, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { git } from './git-exec.js';
import { readGitConfig, type GitConfig } from './git-config.js';
import { copyIndexFile } from './index-lock-file.js';
import { createStager } from './live-stage.js';
import { tempIndexPath } from './changes.js';
import { diffLooseTrees, parseNameStatus, type StagedDiff } from './tree-diff.js';

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
  /** The object store, the worktree's git directory (HEAD) and the repository's common one (branches), absolute. */
  readonly objects: string;
  readonly gitDir: string;
  readonly commonDir: string;
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
  /** The repository's configuration as last read (by the live tree when it opened), else read now. */
  config(): Promise<GitConfig>;
  /** Seeds the private index from the real one again (the tree it held is gone: the next snapshot stages). */
  reseed(): Promise<void>;
  /** Stages the files under the directory (tracked, untracked, .gitignore respected). */
  stage(): Promise<void>;
  /** The tree of the private index. */
  writeTree(): Promise<string>;
  /** The live tree stages this directory (no git process per snapshot). */
  readonly live: boolean;
  /** An index file's content for what was staged in memory (a checkpoint installs it); null: the private index file. */
  indexData(): Buffer | null;
  /** What changed between two trees under the directory (no rename detection): in process, else by git. */
  diffTrees(before: string, after: string): Promise<StagedDiff>;
  dispose(): Promise<void>;
}

/** Creates the private index of `dir`, seeded from its real index (none yet: an empty one). */
export async function openWorkIndex(dir: string): Promise<WorkIndex> {
  const args = ['rev-parse', '--show-prefix', '--show-toplevel', '--git-path', 'index', '--git-path', 'objects', '--git-path', 'info', '--absolute-git-dir', '--git-common-dir'];
  const [prefix = '', top = '', ...paths] = (await git(dir, args)).stdout.split('\n');
  const [real = '', objects = '', info = '', gitDir = '', commonDir = ''] = paths.map((p) => (isAbsolute(p) ? p : resolve(dir, p)));
  const work = tempIndexPath();
  let config: Promise<GitConfig> | null = null;
  const readConfig = (): Promise<GitConfig> => {
    const reading = readGitConfig(dir);
    config = reading;
    // A failed read is not kept: the next one asks git again.
    reading.catch(() => void (config === reading && (config = null)));
    return reading;
  };
  const stager = createStager({ dir, work, objects, prefix, top, info, readConfig });
  const index: WorkIndex = {
    dir,
    real,
    work,
    prefix,
    objects,
    gitDir,
    commonDir,
    realStamp: null,
    stale: false,
    settled: null,
    head: null,
    config: () => config ?? readConfig(),
    async reseed() {
      index.settled = null;
      // Whatever wrote the real index may have moved HEAD too: read again at the next checkpoint.
      index.head = null;
      index.stale = false;
      stager.reset();
      const stampBefore = await indexStamp(real);
      await copyIndexFile(real, work).catch(() => undefined);
      // Written meanwhile (a git of the user's): the copy may be torn between two states, so never installed back.
      index.realStamp = stampBefore !== null && stampBefore === (await indexStamp(real)) ? stampBefore : null;
    },
    async stage() {
      index.settled = null;
      await stager.stage();
    },
    get live() {
      return stager.live;
    },
    writeTree: () => stager.writeTree(),
    indexData: () => stager.indexData(),
    async diffTrees(before, after) {
      const known = stager.diff(before, after);
      if (known !== null) return known;
      const loose = await diffLooseTrees(objects, before, after, prefix);
      if (loose !== null) return loose;
      const out = await git(dir, ['diff-tree', '-r', '-z', '--no-renames', '--name-status', '--relative', before, after]);
      return parseNameStatus(out.stdout);
    },
    async dispose() {
      stager.close();
      await rm(work, { force: true });
    },
  };
  await index.reseed();
  return index;
}
