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

/** Writes `content` as a loose `type` object under `objects` (unless it is there) and returns its id. */
export function writeLooseObject(objects: string, type: LooseType, content: Buffer, id: Buffer = hashObject(type, content)): Buffer {
  const hex = id.toString('hex');
  const dir = join(objects, hex.slice(0, 2));
  const file = join(dir, hex.slice(2));
  if (existsSync(file)) return id;
  const zlib = process.getBuiltinModule('node:zlib');
  const data = zlib.deflateSync(Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]), { level: 1 });
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `tmp_obj_ringmaster_${process.pid}_${hex.slice(2, 10)}`);
  writeFileSync(temp, data, { mode: 0o444 });
  renameSync(temp, file);
  return id;
}
