// The in-process tree diff against git's own: the same paths, kinds and order for every shape of change (a file
// that became a directory and back, symlinks, the executable bit, names that sort around '/', non-ASCII names, a
// workspace in a subdirectory, .ringmaster/ apart), and null (git's turn) once the trees are packed.
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diffLooseTrees, parseNameStatus } from '../../src/git/tree-diff.js';
import { removeDir, sh, tempRepo, writeFiles } from './git-repo.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

/** The tree of everything in `dir` now (staged in its index). */
function treeOf(dir: string): string {
  sh(dir, ['add', '--all', '--', '.']);
  return sh(dir, ['write-tree']).trim();
}

describe('diffLooseTrees', () => {
  it('gives what git diff-tree gives, in its order, at the top and in a subdirectory', async () => {
    const dir = tempRepo({ 'a': 'file a\n', 'a-b': 'x\n', 'a.b': 'y\n', 'keep/k.txt': 'k\n', 'dir/x.txt': 'x\n', 'dir/sub/y.txt': 'y\n', 'mode.sh': 'echo\n', 'link-to': 't\n', 'sub/ws/in.txt': 'i\n', 'sub/ws/gone.txt': 'g\n', 'sub/ws/.ringmaster/tracked': 'r\n' });
    dirs.push(dir);
    const before = treeOf(dir);
    rmSync(join(dir, 'a'));
    writeFiles(dir, { 'a/inside.txt': 'now a directory\n', 'a-b': 'changed\n', 'é-ü.txt': 'unicode\n', 'dir/sub/new/deep.txt': 'd\n', 'sub/ws/in.txt': 'i2\n', 'sub/ws/.ringmaster/tracked': 'r2\n', 'sub/ws/n/new.txt': 'n\n' });
    rmSync(join(dir, 'dir', 'x.txt'));
    rmSync(join(dir, 'sub', 'ws', 'gone.txt'));
    chmodSync(join(dir, 'mode.sh'), 0o755);
    rmSync(join(dir, 'link-to'));
    symlinkSync('a-b', join(dir, 'link-to'));
    mkdirSync(join(dir, 'dir', 'x.txt'));
    writeFileSync(join(dir, 'dir', 'x.txt', 'f'), 'file became dir\n');
    const after = treeOf(dir);
    const objects = join(dir, '.git', 'objects');
    for (const prefix of ['', 'sub/ws/', 'dir/', 'missing/']) {
      const expected = parseNameStatus(sh(dir, ['diff-tree', '-r', '-z', '--no-renames', '--name-status', `--relative=${prefix}`, before, after]));
      const got = await diffLooseTrees(objects, before, after, prefix);
      expect(got).toEqual(expected);
    }
    expect((await diffLooseTrees(objects, before, after, 'sub/ws/'))?.own).toBe(true);
    expect((await diffLooseTrees(objects, before, after, ''))?.changes.length).toBeGreaterThan(10);
    expect(await diffLooseTrees(objects, after, after, '')).toEqual({ changes: [], own: false });
    // Packed (a gc after a commit of each): not readable here, git's turn.
    sh(dir, ['update-ref', 'refs/keep/before', sh(dir, ['commit-tree', before, '-m', 'b']).trim()]);
    sh(dir, ['update-ref', 'refs/keep/after', sh(dir, ['commit-tree', after, '-m', 'a']).trim()]);
    sh(dir, ['gc', '--quiet', '--prune=now']);
    expect(await diffLooseTrees(objects, before, after, '')).toBeNull();
  });
});
