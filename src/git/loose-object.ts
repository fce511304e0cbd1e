// Git objects hashed and written in process as loose objects (what `git hash-object -w`, `git write-tree` and
// `git commit-tree` leave in .git/objects): SHA-1 over "<type> <size>\0<content>", zlib-compressed, written to a
// temporary file in the object's directory and renamed into place (0444, as git makes them). An object already there
// is not written again.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The kinds of object written here. */
export type LooseType = 'blob' | 'tree' | 'commit';

/** The object id of `content` as a `type` object (20 bytes). */
export function hashObject(type: LooseType, content: Buffer): Buffer {
  return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest();
}

/**
 * Objects up to this size are written as zlib streams of one stored (uncompressed) block: a file takes a 4 KiB block
 * on disk whatever it holds, and zlib's machinery (a Deflate object and its state per call) cost more than the rest
 * of writing a small object (bench/FINDINGS.md).
 */
const STORED_MAX = 4096;

/** `data` (at most 65,535 bytes) as a zlib stream of one final stored block, with its Adler-32 (RFC 1950, 1951). */
export function storedZlib(data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(data.length + 11);
  // CMF 0x78 (deflate, 32 KiB window), FLG 0x01 (no dictionary, fastest; 0x7801 is a multiple of 31).
  out[0] = 0x78;
  out[1] = 0x01;
  out[2] = 1; // BFINAL, BTYPE 00 (stored)
  out.writeUInt16LE(data.length, 3);
  out.writeUInt16LE(data.length ^ 0xffff, 5);
  data.copy(out, 7);
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  out.writeUInt32BE(((b << 16) | a) >>> 0, data.length + 7);
  return out;
}

/**
 * The smallest deflate window (and hash table) that still sees the whole of `length` bytes: zlib's default state is
 * ~256 KiB, allocated and zeroed for every object, which cost more than the rest of writing a small object
 * (bench/FINDINGS.md). The stream is as valid (its header names the window; git inflates it with any window up to
 * 32 KiB) and, for an object that fits the window, as small.
 */
export function deflateWindow(length: number): { windowBits: number; memLevel: number } {
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(length + 262))));
  return { windowBits, memLevel: Math.max(1, windowBits - 7) };
}

/** Writes `content` as a loose `type` object under `objects` (unless it is there) and returns its id. */
export function writeLooseObject(objects: string, type: LooseType, content: Buffer, id: Buffer = hashObject(type, content)): Buffer {
  const hex = id.toString('hex');
  const dir = join(objects, hex.slice(0, 2));
  const file = join(dir, hex.slice(2));
  if (existsSync(file)) return id;
  const whole = Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]);
  const data = whole.length <= STORED_MAX ? storedZlib(whole) : process.getBuiltinModule('node:zlib').deflateSync(whole, { level: 1, ...deflateWindow(whole.length) });
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `tmp_obj_ringmaster_${process.pid}_${hex.slice(2, 10)}`);
  writeFileSync(temp, data, { mode: 0o444 });
  renameSync(temp, file);
  return id;
}
