// Two trees compared in process, from the repository's loose objects (the trees `write-tree` just wrote are loose):
// the same paths and kinds, in the same order, as `git diff-tree -r --no-renames --name-status --relative`, without
// a git process. Only the subtrees whose ids differ are read. Anything it cannot read so (a packed or missing object,
// a SHA-256 repository) answers null, and the caller asks git.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileChange, FileChangeKind } from './changes.js';

/** What changed under a directory between two trees. */
export interface StagedDiff {
  /** Paths under the directory, relative to it (Ringmaster's own directory excepted). */
  changes: FileChange[];
  /** Some path under the directory's .ringmaster/ changed too (tracked files there: a checkpoint takes the porcelain). */
  own: boolean;
}

const isOwn = (path: string): boolean => path === '.ringmaster' || path.startsWith('.ringmaster/');

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
    if (isOwn(path)) own = true;
    else changes.push({ path, change: KIND[status[0] ?? ''] ?? 'modified' });
  }
  return { changes, own };
}

/** One entry of a tree object. */
interface Entry {
  name: Buffer;
  mode: string;
  id: string;
  tree: boolean;
}

const SHA1_BYTES = 20;

/** Reads tree `id` from the loose objects under `objects`; null when it is not there as a loose tree. */
async function readTree(objects: string, id: string): Promise<Entry[] | null> {
  if (!/^[0-9a-f]{40}$/.test(id)) return null;
  let raw: Buffer;
  try {
    raw = process.getBuiltinModule('node:zlib').inflateSync(await readFile(join(objects, id.slice(0, 2), id.slice(2))));
  } catch {
    return null;
  }
  const nul = raw.indexOf(0);
  if (nul < 0 || !raw.subarray(0, nul).toString('latin1').startsWith('tree ')) return null;
  const entries: Entry[] = [];
  for (let at = nul + 1; at < raw.length; ) {
    const space = raw.indexOf(0x20, at);
    const end = raw.indexOf(0, space);
    if (space < 0 || end < 0 || end + 1 + SHA1_BYTES > raw.length) return null;
    const mode = raw.subarray(at, space).toString('latin1');
    entries.push({ name: raw.subarray(space + 1, end), mode, id: raw.subarray(end + 1, end + 1 + SHA1_BYTES).toString('hex'), tree: mode === '40000' });
    at = end + 1 + SHA1_BYTES;
  }
  return entries;
}

/** git's order of tree entries: by name, a tree's name compared as if it ended with '/'. */
function sortKey(e: Entry): Buffer {
  return e.tree ? Buffer.concat([e.name, Buffer.from('/')]) : e.name;
}

/** Every blob path under tree `id` (each with `kind`), in git's order; null when a tree cannot be read. */
async function listAll(objects: string, id: string, base: string, kind: 'added' | 'deleted', out: FileChange[]): Promise<boolean> {
  const entries = await readTree(objects, id);
  if (entries === null) return false;
  for (const e of entries.sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)))) {
    const path = `${base}${e.name.toString('utf8')}`;
    if (e.tree) {
      if (!(await listAll(objects, e.id, `${path}/`, kind, out))) return false;
    } else out.push({ path, change: kind });
  }
  return true;
}

/** Appends the changes between two trees (ids, or null for none) under `base` to `out`; false when one cannot be read. */
async function walk(objects: string, before: string | null, after: string | null, base: string, out: FileChange[]): Promise<boolean> {
  if (before === after) return true;
  if (before === null) return listAll(objects, after ?? '', base, 'added', out);
  if (after === null) return listAll(objects, before, base, 'deleted', out);
  const [a, b] = await Promise.all([readTree(objects, before), readTree(objects, after)]);
  if (a === null || b === null) return false;
  const keyed = new Map<string, { key: Buffer; a?: Entry; b?: Entry }>();
  for (const [side, list] of [['a', a], ['b', b]] as const) {
    for (const e of list) {
      const key = sortKey(e);
      const slot = keyed.get(key.toString('latin1')) ?? { key };
      slot[side] = e;
      keyed.set(key.toString('latin1'), slot);
    }
  }
  for (const { a: x, b: y } of [...keyed.values()].sort((p, q) => Buffer.compare(p.key, q.key))) {
    const entry = (x ?? y) as Entry;
    const path = `${base}${entry.name.toString('utf8')}`;
    if (entry.tree) {
      if (!(await walk(objects, x?.id ?? null, y?.id ?? null, `${path}/`, out))) return false;
    } else if (x === undefined) out.push({ path, change: 'added' });
    else if (y === undefined) out.push({ path, change: 'deleted' });
    else if (x.id !== y.id || x.mode !== y.mode) out.push({ path, change: 'modified' });
  }
  return true;
}

/** The subtree of `root` at `prefix` ('' or 'a/b/'), null when absent; undefined when a tree cannot be read. */
async function subtree(objects: string, root: string, prefix: string): Promise<string | null | undefined> {
  let id: string | null = root;
  for (const part of prefix.split('/').filter((p) => p !== '')) {
    const entries: Entry[] | null = await readTree(objects, id);
    if (entries === null) return undefined;
    id = entries.find((e) => e.tree && e.name.toString('utf8') === part)?.id ?? null;
    if (id === null) return null;
  }
  return id;
}

/** The changes under `prefix` between two root trees, relative to it (.ringmaster/ apart); null: ask git. */
export async function diffLooseTrees(objects: string, before: string, after: string, prefix: string): Promise<StagedDiff | null> {
  if (before === after) return { changes: [], own: false };
  const [from, to] = await Promise.all([subtree(objects, before, prefix), subtree(objects, after, prefix)]);
  if (from === undefined || to === undefined) return null;
  const all: FileChange[] = [];
  if (!(await walk(objects, from, to, '', all))) return null;
  return splitOwn(all);
}

/** Changes under a directory as parseNameStatus splits git's output: Ringmaster's own directory reported apart. */
export function splitOwn(all: FileChange[]): StagedDiff {
  const changes = all.filter((c) => !isOwn(c.path));
  return { changes, own: changes.length !== all.length };
}
