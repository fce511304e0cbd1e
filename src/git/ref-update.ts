// HEAD moved in process as `git update-ref -m <message> HEAD <new> <old>` moves it in a files-backend repository:
// HEAD.lock taken (O_EXCL), HEAD read under it; a symbolic HEAD's branch (refs/heads/..., in the common directory) is
// locked the same way, its old value read from its loose file or else packed-refs and compared, the new one written
// into the lock; the reflog lines of HEAD and of the branch appended (git's format, when core.logAllRefUpdates has
// them created or the log exists); the lock renamed into place, HEAD.lock removed. A lock already held or another old
// value: refused, as git refuses. Anything this does not do as git does (a symbolic link, a HEAD that is not a branch
// or a commit id, an unusual branch name, a file it cannot parse): 'unsupported', before anything was written.
import { closeSync, constants, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { configBool, type GitConfig } from './git-config.js';

/** Where the refs of a worktree live, and which reflogs git creates. */
export interface RefStore {
  /** The worktree's git directory: HEAD and its reflog. */
  gitDir: string;
  /** The repository's common directory: branches, packed-refs and their reflogs. */
  commonDir: string;
  /** core.logAllRefUpdates: 'normal' creates the reflogs of HEAD and branches, 'none' only appends to existing ones. */
  logAll: 'none' | 'normal' | 'always';
}

/** What became of the update: done, refused as git refuses it (HEAD moved, a lock held), or left to git. */
export type HeadUpdate = 'updated' | 'refused' | 'unsupported';

const OID = /^[0-9a-f]{40}\n$/;

/** The ref store under `config` (core.logAllRefUpdates read as git does); null when git must update refs itself. */
export function refStoreFor(config: GitConfig, gitDir: string, commonDir: string): RefStore | null {
  // Permissions git would adjust, a ref store that is not files: git does it.
  if (config.has('core.sharedrepository') || configBool(config, 'core.bare') === true) return null;
  const refStorage = config.get('extensions.refstorage');
  if (refStorage !== undefined && refStorage?.toLowerCase() !== 'files') return null;
  const value = config.get('core.logallrefupdates');
  if (value?.toLowerCase() === 'always') return { gitDir, commonDir, logAll: 'always' };
  const bool = configBool(config, 'core.logallrefupdates');
  if (value !== undefined && bool === undefined) return null;
  return { gitDir, commonDir, logAll: bool === false ? 'none' : 'normal' };
}

/** A branch name git accepts and that is a plain path here (a conservative subset of check-ref-format). */
function plainBranch(ref: string): boolean {
  if (!ref.startsWith('refs/heads/')) return false;
  return ref.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.') && !part.endsWith('.lock') && !/[\0- ~^:?*[\\\x7f]|\.\.|@\{/.test(part));
}

/** A ref's lock file, taken as git takes it (O_EXCL): committed by renaming it over the ref, else removed. */
class RefLock {
  private fd: number | null;
  private renamed = false;

  private constructor(private readonly path: string, fd: number) {
    this.fd = fd;
  }

  /** Takes `<path>.lock`; null when it is held. */
  static take(path: string): RefLock | null {
    try {
      return new RefLock(path, openSync(`${path}.lock`, 'wx', 0o666));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null;
      throw error;
    }
  }

  /** Writes `oid` into the lock and renames it over the ref. */
  commit(oid: string): void {
    if (this.fd === null) throw new Error(`${this.path}.lock is no longer held`);
    writeSync(this.fd, `${oid}\n`);
    closeSync(this.fd);
    this.fd = null;
    renameSync(`${this.path}.lock`, this.path);
    this.renamed = true;
  }

  /** Removes the lock unless it was committed. */
  release(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    if (!this.renamed) rmSync(`${this.path}.lock`, { force: true });
  }
}

/** A ref file's content (regular files only); null when there is none; undefined: not one read here. */
function readRefFile(path: string): string | null | undefined {
  try {
    if (!lstatSync(path).isFile()) return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
  return readFileSync(path, 'latin1');
}

/** The branch's value: its loose file, else its packed-refs line; null when it does not exist; undefined: unparsed. */
function branchValue(commonDir: string, ref: string): string | null | undefined {
  const loose = readRefFile(join(commonDir, ref));
  if (loose !== null) return loose !== undefined && OID.test(loose) ? loose.slice(0, 40) : undefined;
  const packed = readRefFile(join(commonDir, 'packed-refs'));
  if (packed === undefined) return undefined;
  for (const line of (packed ?? '').split('\n')) {
    if (line.endsWith(` ${ref}`) && line.length === ref.length + 41) return OID.test(`${line.slice(0, 40)}\n`) ? line.slice(0, 40) : undefined;
  }
  return null;
}

/** Appends `line` to the reflog of `ref` (created when core.logAllRefUpdates says git would create it). */
function appendLog(dir: string, ref: string, line: string, logAll: RefStore['logAll']): void {
  const path = join(dir, 'logs', ref);
  const create = logAll === 'always' || (logAll === 'normal' && (ref === 'HEAD' || ref.startsWith('refs/heads/')));
  let fd: number;
  try {
    if (create) mkdirSync(dirname(path), { recursive: true });
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | (create ? constants.O_CREAT : 0), 0o666);
  } catch (error) {
    if (!create && (error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    writeSync(fd, line);
  } finally {
    closeSync(fd);
  }
}

/** Moves HEAD (or the branch it names) from `from` to `to`, logging `<from> <to> <entry>` as git's reflog line. */
export function updateHead(store: RefStore, from: string, to: string, entry: string): HeadUpdate {
  const progress = { written: false };
  try {
    return swapHead(store, from, to, `${from} ${to} ${entry}\n`, progress);
  } catch (error) {
    // Failed before writing anything (a permission, a read-only file system): git does it, and says what failed.
    if (!progress.written) return 'unsupported';
    throw error;
  }
}

/** updateHead's work; `progress.written` is set before the first write. */
function swapHead(store: RefStore, from: string, to: string, line: string, progress: { written: boolean }): HeadUpdate {
  const headPath = join(store.gitDir, 'HEAD');
  if (readRefFile(headPath) === undefined) return 'unsupported';
  const headLock = RefLock.take(headPath);
  if (headLock === null) return 'refused';
  try {
    const head = readRefFile(headPath);
    if (head === undefined || head === null) return 'unsupported';
    if (OID.test(head)) {
      if (head.slice(0, 40) !== from) return 'refused';
      progress.written = true;
      appendLog(store.gitDir, 'HEAD', line, store.logAll);
      headLock.commit(to);
      return 'updated';
    }
    const ref = /^ref: (\S+)\n$/.exec(head)?.[1];
    if (ref === undefined || !plainBranch(ref)) return 'unsupported';
    return updateBranch(store, ref, from, to, line, progress);
  } finally {
    headLock.release();
  }
}

/** The symbolic HEAD's part: its branch locked, checked, logged (HEAD's log, then the branch's) and moved. */
function updateBranch(store: RefStore, ref: string, from: string, to: string, line: string, progress: { written: boolean }): HeadUpdate {
  const path = join(store.commonDir, ref);
  if (readRefFile(path) === undefined) return 'unsupported';
  mkdirSync(dirname(path), { recursive: true });
  const branchLock = RefLock.take(path);
  if (branchLock === null) return 'refused';
  try {
    const old = branchValue(store.commonDir, ref);
    if (old === undefined) return 'unsupported';
    if (old !== from) return 'refused';
    progress.written = true;
    appendLog(store.gitDir, 'HEAD', line, store.logAll);
    appendLog(store.commonDir, ref, line, store.logAll);
    branchLock.commit(to);
    return 'updated';
  } finally {
    branchLock.release();
  }
}

/** The part of a reflog line after the two ids: the committer, then a tab and the message as git normalises it. */
export function reflogEntry(committer: string, message: string): string {
  // git's copy_reflog_msg(): runs of whitespace (its isspace: space, \t, \n, \r) become one space, none at the ends.
  const normalized = message.replace(/[ \t\n\r]+/g, ' ').replace(/^ | $/g, '');
  return normalized === '' ? committer : `${committer}\t${normalized}`;
}
