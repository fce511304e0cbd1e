// Git's index file read and written in process (format versions 2 and 3, SHA-1): the entries of a run's private
// index, for the live tree (live-tree.ts). Only the plain case is read: an index with conflicts, intent-to-add or
// skip-worktree entries, gitlinks, a split or sparse index, or version 4 answers null and git keeps doing the work.
// Written back as version 2 without extensions (git rebuilds its cache-tree and untracked cache when it needs them).
import { createHash } from 'node:crypto';
import { renameSync, writeFileSync, type BigIntStats } from 'node:fs';

/** One stage-0 entry: its 40 bytes of stat data and mode (git's on-disk layout) and its object id. */
export interface IndexEntry {
  /** ctime s/ns, mtime s/ns, dev, ino, mode, uid, gid, size: ten big-endian 32-bit words. */
  stat: Buffer;
  oid: Buffer;
}

export const STAT_BYTES = 40;
const MODE_AT = 24;
export const STAT_SIZE_AT = 36;
const OID_BYTES = 20;

/** The entry's git mode (0o100644, 0o100755, 0o120000). */
export const entryMode = (entry: IndexEntry): number => entry.stat.readUInt32BE(MODE_AT);

const MODES = new Set([0o100644, 0o100755, 0o120000]);
/** Extensions the private index may carry and still be read plainly (cache-tree, resolve-undo, untracked cache, ...). */
const HARMLESS = new Set(['TREE', 'REUC', 'UNTR', 'EOIE', 'IEOT', 'FSMN']);

/** The entries of an index file's content by path (in the file's order), or null when it is not the plain case. */
export function parseIndex(data: Buffer): Map<string, IndexEntry> | null {
  if (data.length < 12 + OID_BYTES || data.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = data.readUInt32BE(4);
  if (version !== 2 && version !== 3) return null;
  const body = data.length - OID_BYTES;
  if (!createHash('sha1').update(data.subarray(0, body)).digest().equals(data.subarray(body))) return null;
  const count = data.readUInt32BE(8);
  const entries = new Map<string, IndexEntry>();
  let at = 12;
  for (let i = 0; i < count; i++) {
    if (at + 62 > body) return null;
    const flags = data.readUInt16BE(at + 60);
    // assume-valid, extended (intent-to-add, skip-worktree) or a stage other than 0.
    if ((flags & 0xf000) !== 0) return null;
    const nameAt = at + 62;
    const end = data.indexOf(0, nameAt);
    if (end < 0 || end >= body) return null;
    const entry = { stat: data.subarray(at, at + STAT_BYTES), oid: data.subarray(at + STAT_BYTES, at + STAT_BYTES + OID_BYTES) };
    if (!MODES.has(entryMode(entry))) return null;
    const path = data.toString('utf8', nameAt, end);
    if (path.includes('\uFFFD')) return null;
    entries.set(path, entry);
    at = entryEnd(at, end - nameAt);
  }
  for (; at < body; ) {
    if (at + 8 > body) return null;
    const signature = data.toString('latin1', at, at + 4);
    if (!HARMLESS.has(signature)) return null;
    at += 8 + data.readUInt32BE(at + 4);
  }
  return at === body ? entries : null;
}

/** Where an entry starting at `start` with a name of `nameLength` bytes ends (1 to 8 NULs pad it to 8 bytes). */
function entryEnd(start: number, nameLength: number): number {
  return start + ((62 + nameLength + 8) & ~7);
}

/**
 * The content of an index file (format 2, no extensions) holding `entries`, already in git's order. Entries modified
 * within the last two seconds get size 0 ("smudged", as git does with racily clean entries): git hashes them again
 * instead of trusting stat data taken around the time they changed, whatever the file's own time says.
 */
export function serializeIndex(entries: Iterable<[string, IndexEntry]>): Buffer {
  const names: [Buffer, IndexEntry][] = [];
  let size = 12 + OID_BYTES;
  for (const [path, entry] of entries) {
    const name = Buffer.from(path, 'utf8');
    names.push([name, entry]);
    size += (62 + name.length + 8) & ~7;
  }
  // One buffer, zero-filled: the NULs that end each name are already there.
  const out = Buffer.alloc(size);
  out.write('DIRC', 0, 'latin1');
  out.writeUInt32BE(2, 4);
  out.writeUInt32BE(names.length, 8);
  const recent = Math.floor(Date.now() / 1000) - 2;
  let at = 12;
  for (const [name, entry] of names) {
    entry.stat.copy(out, at);
    if (out.readUInt32BE(at + 8) >= recent) out.writeUInt32BE(0, at + STAT_SIZE_AT);
    entry.oid.copy(out, at + STAT_BYTES);
    out.writeUInt16BE(Math.min(name.length, 0xfff), at + 60);
    name.copy(out, at + 62);
    at = entryEnd(at, name.length);
  }
  createHash('sha1').update(out.subarray(0, at)).digest().copy(out, at);
  return out;
}

/** Writes an index file's content at `file` (through a temporary file and a rename). */
export function writeIndexFile(file: string, data: Buffer): void {
  const temp = `${file}.ringmaster-${process.pid}`;
  writeFileSync(temp, data, { mode: 0o644 });
  renameSync(temp, file);
}

/** 40 bytes of stat data for an index entry from a bigint lstat and the entry's git mode. */
export function statBytes(st: BigIntStats, mode: number): Buffer {
  const out = Buffer.alloc(STAT_BYTES);
  const low = (n: bigint): number => Number(n & 0xffffffffn);
  const words = [st.ctimeNs / 1_000_000_000n, st.ctimeNs % 1_000_000_000n, st.mtimeNs / 1_000_000_000n, st.mtimeNs % 1_000_000_000n, st.dev, st.ino, BigInt(mode), st.uid, st.gid, st.size];
  words.forEach((word, i) => out.writeUInt32BE(low(word), i * 4));
  return out;
}
