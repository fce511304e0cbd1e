// Loose objects written in process (git/loose-object.ts), small ones stored, larger ones deflated with a window fitted
// to their size: git reads each back byte for byte, fsck finds nothing wrong, and the ids are git's own.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { deflateWindow, storedZlib, writeLooseObject } from '../../src/git/loose-object.js';
import { gitEnv, sh, tempRepo, useTempRepos } from './git-repo.js';

const dirs = useTempRepos();
const git = (cwd: string, args: string[], input?: Buffer): Buffer => execFileSync('git', args, { cwd, env: gitEnv(), input });

describe('loose objects', () => {
  it('writes objects of every size that git reads back, with the ids git gives them', () => {
    const dir = tempRepo();
    dirs.push(dir);
    const objects = join(dir, '.git', 'objects');
    for (const size of [0, 1, 100, 300, 4080, 4100, 5000, 40_000, 200_000]) {
      const content = Buffer.from(Array.from({ length: size }, (_, i) => String.fromCharCode(32 + ((i * 7919) % 95))).join(''));
      const hex = writeLooseObject(objects, 'blob', content).toString('hex');
      expect(git(dir, ['hash-object', '--stdin'], content).toString().trim()).toBe(hex);
      expect(git(dir, ['cat-file', 'blob', hex]).equals(content)).toBe(true);
    }
    expect(sh(dir, ['fsck', '--strict', '--no-dangling']).trim()).toBe('');
    const stored = storedZlib(Buffer.from('blob 3\0abc'));
    expect(inflateSync(stored).toString()).toBe('blob 3\0abc');
    expect(stored.length).toBe(21);
    expect(deflateWindow(100)).toEqual({ windowBits: 9, memLevel: 2 });
    expect(deflateWindow(1_000_000)).toEqual({ windowBits: 15, memLevel: 8 });
  });
});
