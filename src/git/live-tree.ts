// The live tree: a run's private index kept in memory and up to date without a git process per snapshot. Once git has
// staged the directory (`git add --all`), the index is read into a model (live-model.ts) and every directory under the
// workspace is watched (dir-watch.ts); a snapshot then looks only at the paths marked dirty since the last one
// (lstat, hash and write the changed blobs, drop what is gone, scan new directories with the .gitignore rules) and
// writes only the trees above them. Whatever it cannot do exactly as `git add --all` would (attributes, a nested
// repository, a changed .gitignore, a replaced directory, a huge file, a watch it cannot trust) answers false, and
// git stages instead.
import { lstatSync, readdirSync, readFileSync, readlinkSync, type BigIntStats, type Dirent } from 'node:fs';
import { join } from 'node:path';
import type { FileChange } from './changes.js';
import { openDirWatch, type DirWatch } from './dir-watch.js';
import { entryMode, parseIndex, STAT_SIZE_AT, statBytes } from './index-file.js';
import type { IgnoreRules } from './ignore-rules.js';
import { IndexModel, nameOf, parentOf } from './live-model.js';
import { writeLooseObject } from './loose-object.js';

/** A file larger than this is left to git (it would be read whole into memory here). */
const MAX_HASHED_BYTES = 32 * 1024 * 1024;
/** Names git treats specially: attributes change how files are stored, a .gitignore what is staged. */
const LEFT_TO_GIT = new Set(['.gitattributes', '.gitignore']);
const RACY_MS = 2000;
/** Where an entry's stat data hold the device and inode (git's layout). */
const DEV_AT = 16;
const INO_END = 24;
/** Names git refuses to add (`.git` in another case, its NTFS aliases such as `git~1` or `.git.`): git answers for them. */
const REFUSED_BY_GIT = /^(?:\.git|git~1)[. ]*(?::.*)?$/i;

/** Where the live tree works: the workspace, its repository's object store and its path in the repository. */
export interface LiveTreePlace {
  /** The workspace directory (absolute). */
  dir: string;
  /** Its path in the repository: '' at the top, else ending in '/'. */
  prefix: string;
  objects: string;
  rules: IgnoreRules;
}

export interface LiveTree {
  /** Applies what changed since the last call; false when it cannot be trusted to (git stages, and a new one opens). */
  refresh(): Promise<boolean>;
  /** Writes the trees that changed and answers the root tree's id. */
  writeTree(): string;
  /** The changes between the last two trees written (paths from the top of the repository), else null. */
  diff(from: string, to: string): FileChange[] | null;
  /** The content of an index file holding what the tree holds (a checkpoint installs it as the real index). */
  indexData(): Buffer;
  close(): void;
}

const gitMode = (st: BigIntStats): number => (st.isSymbolicLink() ? 0o120000 : (st.mode & 0o100n) !== 0n ? 0o100755 : 0o100644);

class Live implements LiveTree {
  private readonly watch: DirWatch = openDirWatch();
  /**
   * Files with more than one hard link (relative to the workspace): a write through another name is reported in that
   * name's directory, maybe not watched, so these are compared with their stat data at every snapshot, as git does.
   */
  private readonly linked = new Set<string>();
  private readonly model: IndexModel;

  constructor(private readonly place: LiveTreePlace) {
    this.model = new IndexModel(place.objects);
  }

  /** Watches the workspace, lets git stage it into `indexFile`, reads that index; false: not a workspace it follows. */
  async open(indexFile: string, stage: () => Promise<void>): Promise<boolean> {
    if (!this.watchTree('') || this.place.rules.inexact()) return false;
    await stage();
    const parsed = parseIndex(readFileSync(indexFile));
    if (parsed === null) return false;
    const { prefix } = this.place;
    this.model.load(parsed);
    for (const [path, entry] of parsed) {
      if (nameOf(path) === '.gitattributes') return false;
      if (!path.startsWith(prefix)) continue;
      const rel = path.slice(prefix.length);
      if (entryMode(entry) !== 0o120000) this.noteLinks(rel);
      // A tracked file in a directory the walk left out (an ignored one): watched now, and looked at again.
      if (!this.watch.has(parentOf(rel))) {
        if (!this.watchParents(parentOf(rel))) return false;
        this.watch.mark(rel);
      }
    }
    return true;
  }

  async refresh(): Promise<boolean> {
    if (!(await this.watch.settle()) || this.place.rules.globalsChanged()) return false;
    for (const rel of this.linked) if (this.statChanged(rel)) this.watch.mark(rel);
    for (const rel of this.watch.take()) if (!this.apply(rel)) return false;
    return !this.place.rules.inexact();
  }

  writeTree(): string {
    return this.model.writeTree();
  }

  diff(from: string, to: string): FileChange[] | null {
    return this.model.diff(from, to);
  }

  indexData(): Buffer {
    return this.model.indexData();
  }

  close(): void {
    this.watch.close();
  }

  private abs(rel: string): string {
    return rel === '' ? this.place.dir : join(this.place.dir, rel);
  }

  /** Brings the workspace path `rel` (dirty) into the model; false: git must stage. */
  private apply(rel: string): boolean {
    const path = this.place.prefix + rel;
    const name = nameOf(rel);
    if (name === '.git') return rel === '.git' && this.place.prefix === '';
    if (LEFT_TO_GIT.has(name) || REFUSED_BY_GIT.test(name) || name.includes('\uFFFD')) return false;
    let st: BigIntStats | undefined;
    try {
      st = lstatSync(this.abs(rel), { bigint: true });
    } catch {
      st = undefined;
    }
    const node = this.model.lookup(path);
    if (st === undefined || !(st.isFile() || st.isSymbolicLink() || st.isDirectory())) {
      // A tracked file now a FIFO or a socket: git refuses to stage it ("can only add regular files").
      if (st !== undefined && node?.kind === 'file') return false;
      if (rel !== '') this.forget(path);
      return true;
    }
    if (st.isDirectory()) {
      if (node?.kind === 'file') this.model.remove(path);
      // Known, or replaced by another directory (a new inode): what that one holds is for git to sort out.
      if (this.watch.has(rel)) return this.watch.inode(rel) === st.ino;
      if (rel !== '' && node?.kind !== 'dir' && this.place.rules.ignored(`${path}/`)) return true;
      return this.scan(rel, st);
    }
    if (node?.kind === 'dir') this.forget(path);
    if (node?.kind !== 'file' && this.place.rules.ignored(path)) return true;
    return this.hashFile(rel, st);
  }

  /**
   * Whether the file at `rel` has more than one hard link (then looked at by stat data at every snapshot). One that
   * gained a link while followed: its other names in the workspace are found by inode and looked at so too.
   */
  private noteLinks(rel: string, st?: BigIntStats): void {
    let stat: BigIntStats;
    try {
      stat = st ?? lstatSync(this.abs(rel), { bigint: true });
    } catch {
      this.linked.delete(rel);
      return;
    }
    if (stat.nlink <= 1n) {
      this.linked.delete(rel);
      return;
    }
    this.linked.add(rel);
    if (st === undefined) return;
    const key = statBytes(stat, 0).subarray(DEV_AT, INO_END);
    const { prefix } = this.place;
    for (const [path, entry] of this.model.files()) {
      if (path.startsWith(prefix) && entry.stat.subarray(DEV_AT, INO_END).equals(key)) this.linked.add(path.slice(prefix.length));
    }
  }

  /** A hard-linked file's stat data differ from its entry's (or it is gone). */
  private statChanged(rel: string): boolean {
    const entry = this.model.entry(this.place.prefix + rel);
    try {
      const st = lstatSync(this.abs(rel), { bigint: true });
      return entry === null || !statBytes(st, gitMode(st)).equals(entry.stat);
    } catch {
      return true;
    }
  }

  /** Removes `path` from the model, and the watches of the directories that were under it. */
  private forget(path: string): void {
    const rel = path.slice(this.place.prefix.length);
    for (const key of this.linked) if (key === rel || key.startsWith(`${rel}/`)) this.linked.delete(key);
    if (this.model.remove(path)) this.watch.remove(rel);
  }

  /** Watches the workspace directory `rel` and applies each name in it; false: git must stage. */
  private scan(rel: string, st: BigIntStats): boolean {
    if (!this.watch.add(rel, this.place.dir, st.ino)) return false;
    let names: string[];
    try {
      names = readdirSync(this.abs(rel));
    } catch {
      return false;
    }
    if (rel !== '' && names.includes('.git')) return false;
    const known = this.model.lookup(this.place.prefix + rel);
    if (known?.kind === 'dir') {
      const present = new Set(names);
      for (const name of [...known.children.keys()]) if (!present.has(name)) this.forget(`${this.place.prefix}${rel === '' ? '' : `${rel}/`}${name}`);
    }
    return names.every((name) => this.apply(rel === '' ? name : `${rel}/${name}`));
  }

  private hashFile(rel: string, st: BigIntStats): boolean {
    if (st.size > MAX_HASHED_BYTES) return false;
    let content: Buffer;
    try {
      content = st.isSymbolicLink() ? readlinkSync(this.abs(rel), { encoding: 'buffer' }) : readFileSync(this.abs(rel));
    } catch {
      return false;
    }
    // Changed while read (a size that is not the one lstat saw): the next event brings it back here.
    if (st.isFile() && BigInt(content.length) !== st.size) this.watch.mark(rel);
    if (st.isFile()) this.noteLinks(rel, st);
    const stat = statBytes(st, gitMode(st));
    // Modified just before it was read: a same-size change within the same clock tick could follow unseen by stat
    // data, so the entry is smudged (size 0) as git smudges racily clean entries, and git hashes it rather than trust it.
    if (st.mtimeNs >= BigInt(Date.now() - RACY_MS) * 1_000_000n) stat.writeUInt32BE(0, STAT_SIZE_AT);
    this.model.setFile(this.place.prefix + rel, { stat, oid: writeLooseObject(this.place.objects, 'blob', content) });
    return true;
  }

  /** Watches `rel` and every directory under it that is not ignored (no file is read); false: it cannot follow it. */
  private watchTree(rel: string): boolean {
    const { dir, prefix, rules } = this.place;
    let entries: Dirent[];
    try {
      if (!this.watch.add(rel, dir, lstatSync(this.abs(rel), { bigint: true }).ino)) return false;
      entries = readdirSync(this.abs(rel), { withFileTypes: true });
    } catch {
      return false;
    }
    for (const entry of entries) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.name === '.git') {
        if (rel !== '' || prefix !== '') return false;
        continue;
      }
      if (entry.name === '.gitattributes') return false;
      if (!entry.isDirectory() || rules.ignored(`${prefix}${child}/`)) continue;
      if (!this.watchTree(child)) return false;
    }
    return true;
  }

  /** Watches the workspace directory `rel` and those above it that are not watched yet. */
  private watchParents(rel: string): boolean {
    for (let at = rel; !this.watch.has(at); at = parentOf(at)) {
      try {
        if (!this.watch.add(at, this.place.dir, lstatSync(this.abs(at), { bigint: true }).ino)) return false;
      } catch {
        return false;
      }
      if (at === '') break;
    }
    return true;
  }
}

/**
 * Opens the live tree of a workspace: watches its directories, then runs `stage` (git stages into `indexFile`), then
 * reads that index. Null when this workspace is not one it can follow (the caller keeps staging by git).
 */
export async function openLiveTree(place: LiveTreePlace, indexFile: string, stage: () => Promise<void>): Promise<LiveTree | null> {
  const live = new Live(place);
  try {
    if (await live.open(indexFile, stage)) return live;
  } catch (error) {
    live.close();
    throw error;
  }
  live.close();
  return null;
}
