// Adversarial cases for the live tree (live-stage.ts, live-tree.ts): each builds a repository, lets the live tree
// open and pass its two checks against git, then changes the workspace in one way git's staging has a rule for, and
// asserts the next tree is the one `git add --all` + `git write-tree` give on a copy of the same index (the live tree
// may also give way to git), that its diff is git's diff-tree, and that the index it writes is git's view of the worktree.
import { execFileSync } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointMessage, commitWorkspace } from '../../src/git/checkpoint.js';
import { openWorkIndex, type WorkIndex } from '../../src/git/work-index.js';
import { createChangeTracker } from '../../src/runner/change-tracking.js';
import { gitEnv, gitStagedTree, sh, tempRepo, writeFiles, useTempRepos } from './git-repo.js';

// No global or system git config; the dirs removed after each test, after what the hook below disposes (hooks after a
// test run in reverse order).
const dirs = useTempRepos();
const indexes: WorkIndex[] = [];
afterEach(async () => {
  for (const index of indexes.splice(0)) await index.dispose();
});

function repo(files: Record<string, string>): string {
  const dir = tempRepo(files);
  dirs.push(dir);
  return dir;
}

/** Opens the private index of `dir` and takes snapshots until the live tree has passed both checks against git. */
async function opened(dir: string): Promise<WorkIndex> {
  const index = await openWorkIndex(dir);
  indexes.push(index);
  for (let i = 0; i < 3; i++) {
    await index.stage();
    expect(await index.writeTree()).toBe(gitStagedTree(dir, index.work));
  }
  expect(index.live, 'the live tree follows this workspace').toBe(true);
  return index;
}

/** After `change`: the snapshot's tree is git's, its diff is git's diff-tree, its index is git's view. */
async function expectGitsTree(index: WorkIndex, change: () => void): Promise<void> {
  const dir = index.dir;
  await index.stage();
  const before = await index.writeTree();
  change();
  await index.stage();
  const tree = await index.writeTree();
  const live = index.live;
  expect(tree, `the tree (the live tree ${live ? 'staged' : 'gave way'})`).toBe(gitStagedTree(dir, index.work));
  const diff = await index.diffTrees(before, tree);
  const letter = { added: 'A', modified: 'M', deleted: 'D' } as const;
  const mine = diff.changes.map((c) => `${letter[c.change]} ${c.path}`).sort();
  const fields = sh(dir, ['diff-tree', '-r', '-z', '--no-renames', '--name-status', '--relative', before, tree]).split('\0');
  const theirs: string[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) theirs.push(`${fields[i] === 'T' ? 'M' : fields[i]} ${fields[i + 1]}`);
  expect(mine, 'the diff').toEqual(theirs.sort());
  // The index the live tree writes is the worktree's for git. (Where it gave way the index is git's own: with line
  // ending attributes, git's racy-entry handling may itself list a CRLF file as unstaged under load.)
  const data = index.indexData();
  if (data === null) return;
  writeFileSync(index.work, data);
  const env = { ...gitEnv(), GIT_INDEX_FILE: index.work };
  expect(execFileSync('git', ['write-tree'], { cwd: dir, env, encoding: 'utf8' }).trim()).toBe(tree);
  expect(execFileSync('git', ['diff', '--name-only', '--', '.'], { cwd: dir, env, encoding: 'utf8' }), 'unstaged').toBe('');
  expect(execFileSync('git', ['ls-files', '--others', '--exclude-standard', '--', '.'], { cwd: dir, env, encoding: 'utf8' }), 'untracked').toBe('');
}

describe('live tree against git: ignore rules', () => {
  it('reads core.excludesFile at its own path (a name with capitals)', async () => {
    const dir = repo({ 'a.txt': 'a\n' });
    const excludes = join(dir, 'My-Excludes');
    writeFileSync(excludes, '*.secret\n');
    sh(dir, ['config', 'core.excludesFile', excludes]);
    writeFileSync(join(dir, '.git', 'info', 'exclude'), '');
    const index = await opened(dir);
    await expectGitsTree(index, () => writeFileSync(join(dir, 'key.secret'), 'k\n'));
  });

  it('a relative core.excludesFile in a workspace below the top', async () => {
    const dir = repo({ 'sub/ws/a.txt': 'a\n', 'top-excludes': '*.x\n' });
    writeFileSync(join(dir, 'sub', 'ws', 'top-excludes'), '*.y\n');
    sh(dir, ['config', 'core.excludesFile', 'top-excludes']);
    const ws = join(dir, 'sub', 'ws');
    const index = await opened(ws);
    await expectGitsTree(index, () => writeFiles(ws, { 'f.x': 'x\n', 'f.y': 'y\n' }));
  });

  it('a negation in a nested .gitignore does not re-include a file of an ignored directory holding a tracked file', async () => {
    const dir = repo({ '.gitignore': 'dist/\n', 'src/a.ts': 'a\n' });
    writeFiles(dir, { 'dist/tracked.js': 't\n', 'dist/.gitignore': '!*.js\n' });
    sh(dir, ['add', '-f', 'dist/tracked.js']);
    sh(dir, ['commit', '-q', '-m', 'dist']);
    const index = await opened(dir);
    await expectGitsTree(index, () => writeFileSync(join(dir, 'dist', 'new.js'), 'n\n'));
  });

  it('a directory info/exclude ignores stays ignored whatever .gitignore says of a file in it', async () => {
    const dir = repo({ '.gitignore': '!out/keep.txt\n', 'a.txt': 'a\n' });
    writeFileSync(join(dir, '.git', 'info', 'exclude'), 'out/\n');
    writeFiles(dir, { 'out/tracked.txt': 't\n' });
    sh(dir, ['add', '-f', 'out/tracked.txt']);
    sh(dir, ['commit', '-q', '-m', 'out']);
    const index = await opened(dir);
    await expectGitsTree(index, () => writeFileSync(join(dir, 'out', 'keep.txt'), 'k\n'));
  });

  it('a workspace below the top sees an edit of the .gitignore above it', async () => {
    const dir = repo({ '.gitignore': '', 'sub/ws/a.txt': 'a\n', 'sub/ws/in/b.txt': 'b\n' });
    const ws = join(dir, 'sub', 'ws');
    const index = await opened(ws);
    // Rules read once the live tree is open (a new directory is looked at with them).
    await expectGitsTree(index, () => writeFiles(ws, { 'in/new/c.txt': 'c\n' }));
    await expectGitsTree(index, () => {
      writeFileSync(join(dir, '.gitignore'), '*.tmp\n');
      writeFileSync(join(ws, 'scratch.tmp'), 't\n');
    });
  });

  it('a workspace below the top sees a .gitattributes above it (untracked, or made later)', async () => {
    const dir = repo({ 'sub/ws/a.txt': 'a\n' });
    writeFileSync(join(dir, '.gitattributes'), '*.txt text\n');
    const ws = join(dir, 'sub', 'ws');
    const index = await openWorkIndex(ws);
    indexes.push(index);
    for (let i = 0; i < 3; i++) {
      await index.stage();
      expect(await index.writeTree()).toBe(gitStagedTree(ws, index.work));
    }
    await expectGitsTree(index, () => writeFileSync(join(ws, 'crlf.txt'), 'one\r\ntwo\r\n'));
    rmSync(join(dir, '.gitattributes'));
    const later = await opened(join(dir, 'sub'));
    await expectGitsTree(later, () => {
      writeFileSync(join(dir, '.gitattributes'), '*.txt text\n');
      writeFileSync(join(ws, 'crlf2.txt'), 'one\r\ntwo\r\n');
    });
  });

  it('a .gitignore that starts with a byte order mark', async () => {
    const dir = repo({ '.gitignore': '\uFEFFsecret.txt\n', 'a.txt': 'a\n' });
    const index = await opened(dir);
    await expectGitsTree(index, () => writeFileSync(join(dir, 'secret.txt'), 's\n'));
  });

  it('patterns match case-sensitively, as git does without core.ignoreCase', async () => {
    const dir = repo({ '.gitignore': '**/abc\n[^a]bd\nBUILD/\n', 'a.txt': 'a\n', 'x/y.txt': 'y\n' });
    const index = await opened(dir);
    await expectGitsTree(index, () => writeFiles(dir, { 'Abc': '1\n', 'x/ABC': '2\n', 'Abd': '3\n', 'abd': '4\n', 'build/out.js': '5\n' }));
  });

  it('POSIX character classes (which the matcher lacks) in a .gitignore read after opening: git stages', async () => {
    const dir = repo({ 'a.txt': 'a\n', 'x/.gitignore': '*[[:upper:]]*\n*.[[:digit:]]\n', 'x/b.txt': 'b\n' });
    const index = await opened(dir);
    await expectGitsTree(index, () => writeFiles(dir, { 'x/new/Upper.txt': '1\n', 'x/new/lower.txt': '2\n', 'x/log.1': '3\n' }));
    await expectGitsTree(index, () => writeFiles(dir, { 'x/new/More.txt': '1\n', 'x/new/more.txt': '2\n' }));
    expect(index.live).toBe(false);
  });

  it('negated brackets in patterns', async () => {
    const dir = repo({ '.gitignore': '[!a]*.bak\n', 'a.txt': 'a\n' });
    const index = await opened(dir);
    await expectGitsTree(index, () => writeFiles(dir, { 'b.bak': 'b\n', 'a.bak': 'a\n' }));
  });

  it('trailing spaces, escaped # and !, ** and slashes in a nested .gitignore', async () => {
    const dir = repo({
      '.gitignore': 'trail.txt   \nesc\\ \n\\#hash\n\\!bang\nlogs/**/debug\n',
      'n/.gitignore': 'deep/x.txt\n/top.txt\n**/any.txt\n',
      'a.txt': 'a\n',
    });
    const index = await opened(dir);
    await expectGitsTree(index, () =>
      writeFiles(dir, {
        'trail.txt': '1\n', 'esc ': '2\n', '#hash': '3\n', '!bang': '4\n', 'logs/a/b/debug': '5\n', 'logs/debug': '6\n',
        'n/deep/x.txt': '7\n', 'n/m/deep/x.txt': '8\n', 'n/top.txt': '9\n', 'n/m/top.txt': '10\n', 'n/q/r/any.txt': '11\n',
      }),
    );
  });
});

describe('live tree against git: names and file kinds', () => {
  it('names git refuses or treats specially (.GIT, git~1, .git followed by a dot)', async () => {
    const dir = repo({ 'a.txt': 'a\n' });
    const index = await opened(dir);
    // git refuses each of them (`invalid path`): the snapshot fails as it would without the live tree.
    for (const name of ['d/.GIT', 'git~1', '.git.', 'e/.Git  ']) {
      writeFiles(dir, { [name]: 'g\n' });
      await expect(index.stage()).rejects.toThrow(/invalid path/);
      rmSync(join(dir, name));
      await expectGitsTree(index, () => writeFiles(dir, { '.github/ok.yml': 'ok\n', '.gitkeep': '' }));
    }
  });

  it('FIFOs: an untracked one is left out, a tracked file replaced by one fails the snapshot as git does', async () => {
    const dir = repo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const index = await opened(dir);
    await expectGitsTree(index, () => execFileSync('mkfifo', [join(dir, 'pipe')]));
    rmSync(join(dir, 'b.txt'));
    execFileSync('mkfifo', [join(dir, 'b.txt')]);
    await expect(index.stage()).rejects.toThrow(/can only add regular files/);
    rmSync(join(dir, 'b.txt'));
    await expectGitsTree(index, () => writeFileSync(join(dir, 'b.txt'), 'b again\n'));
  });

  it('names with spaces, newlines, backslashes, tabs, quotes and unicode', async () => {
    const dir = repo({ 'a.txt': 'a\n' });
    const index = await opened(dir);
    await expectGitsTree(index, () =>
      writeFiles(dir, { 'sp ace/f i.txt': '1\n', 'new\nline': '2\n', 'back\\slash': '3\n', 'tab\there': '4\n', '"q"': '5\n', 'ü/é.md': '6\n', 'e\u0301.md': '7\n' }),
    );
  });

  // inotify reports a write in the directory of the name it went through: a file with other hard links is compared
  // with its stat data at every snapshot (one linked before the run opened, one from outside the workspace before
  // that, and one linked inside the workspace while it runs, written through either name).
  it('a hard link changed through its other name', async () => {
    const dir = repo({ 'a.txt': 'a\n', 'b/c.txt': 'c\n', 'd.txt': 'd\n', 'e.txt': 'e\n' });
    linkSync(join(dir, 'a.txt'), join(dir, 'b', 'a-link.txt'));
    const outside = mkdtempSync(join(tmpdir(), 'rm-live-link-'));
    linkSync(join(dir, 'e.txt'), join(outside, 'e-link.txt'));
    try {
      const index = await opened(dir);
      await expectGitsTree(index, () => writeFileSync(join(dir, 'a.txt'), 'through the first name\n'));
      await expectGitsTree(index, () => writeFileSync(join(outside, 'e-link.txt'), 'from outside the workspace\n'));
      await expectGitsTree(index, () => linkSync(join(dir, 'd.txt'), join(dir, 'b', 'd-link.txt')));
      await expectGitsTree(index, () => writeFileSync(join(dir, 'b', 'd-link.txt'), 'through the new name\n'));
      await expectGitsTree(index, () => writeFileSync(join(dir, 'd.txt'), 'through the old name\n'));
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a file replaced by a directory and back, a directory by a file, in one batch', async () => {
    const dir = repo({ 'x': 'x\n', 'd/f.txt': 'f\n', 'e/g.txt': 'g\n' });
    const index = await opened(dir);
    await expectGitsTree(index, () => {
      rmSync(join(dir, 'x'));
      mkdirSync(join(dir, 'x'));
      writeFileSync(join(dir, 'x', 'in.txt'), 'in\n');
      rmSync(join(dir, 'x'), { recursive: true });
      writeFileSync(join(dir, 'x'), 'x again\n');
      rmSync(join(dir, 'd'), { recursive: true });
      writeFileSync(join(dir, 'd'), 'now a file\n');
      rmSync(join(dir, 'e'), { recursive: true });
      mkdirSync(join(dir, 'e'));
      writeFileSync(join(dir, 'e', 'g.txt'), 'g2\n');
    });
  });

  it('symlinks to a directory, executable bits, empty directories filled, a type change', async () => {
    const dir = repo({ 'run.sh': 'echo\n', 'lib/x.ts': 'x\n', 'f': 'f\n' });
    mkdirSync(join(dir, 'empty', 'deeper'), { recursive: true });
    const index = await opened(dir);
    await expectGitsTree(index, () => {
      symlinkSync('lib', join(dir, 'lib-link'));
      chmodSync(join(dir, 'run.sh'), 0o755);
      writeFileSync(join(dir, 'empty', 'deeper', 'now.txt'), 'n\n');
      rmSync(join(dir, 'f'));
      symlinkSync('run.sh', join(dir, 'f'));
    });
    await expectGitsTree(index, () => {
      chmodSync(join(dir, 'run.sh'), 0o644);
      writeFileSync(join(dir, 'lib-link', 'through.ts'), 't\n');
    });
  });

  it('a path longer than 4095 bytes (the index name length field)', async () => {
    const dir = repo({ 'a.txt': 'a\n' });
    const index = await opened(dir);
    const parts = Array.from({ length: 17 }, (_, i) => `${String(i).padStart(2, '0')}${'d'.repeat(230)}`);
    await expectGitsTree(index, () => writeFiles(dir, { [`${parts.join('/')}/file.txt`]: 'deep\n' }));
  });
});

describe('live tree against git: directories and batches', () => {
  it('subdirectories removed and made again quickly, and one moved away with its subdirectories', async () => {
    const dir = repo({ 'src/a.ts': 'a\n', 'src/deep/b.ts': 'b\n', 'm/n/o.txt': 'o\n' });
    const index = await opened(dir);
    const away = mkdtempSync(join(tmpdir(), 'rm-live-away-'));
    dirs.push(away);
    await expectGitsTree(index, () => {
      rmSync(join(dir, 'src'), { recursive: true });
      mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
      writeFileSync(join(dir, 'src', 'deep', 'b.ts'), 'b2\n');
      renameSync(join(dir, 'm'), join(away, 'm'));
    });
    await expectGitsTree(index, () => {
      writeFileSync(join(away, 'm', 'n', 'outside.txt'), 'not ours\n');
      mkdirSync(join(dir, 'm', 'n'), { recursive: true });
      writeFileSync(join(dir, 'm', 'n', 'o.txt'), 'o3\n');
    });
  });

  it('a tracked directory replaced by a symlink to it, a directory moved within the workspace and written in', async () => {
    const dir = repo({ 'lib/x.ts': 'x\n', 'a/b/c.txt': 'c\n', 'a/e.txt': 'e\n' });
    mkdirSync(join(dir, 'a', 'b', 'empty'));
    const index = await opened(dir);
    await expectGitsTree(index, () => {
      renameSync(join(dir, 'lib'), join(dir, 'lib2'));
      symlinkSync('lib2', join(dir, 'lib'));
      renameSync(join(dir, 'a'), join(dir, 'moved'));
    });
    await expectGitsTree(index, () => {
      writeFiles(dir, { 'moved/b/new.txt': 'n\n', 'moved/b/empty/deep.txt': 'd\n', 'lib2/y.ts': 'y\n' });
      mkdirSync(join(dir, 'a', 'b'), { recursive: true });
      writeFileSync(join(dir, 'a', 'b', 'c.txt'), 'again\n');
    });
  });

  it('hundreds of files changed and removed in one batch', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 600; i++) files[`d${i % 30}/f${i}.txt`] = `${i}\n`;
    const dir = repo(files);
    const index = await opened(dir);
    await expectGitsTree(index, () => {
      for (let i = 0; i < 600; i += 2) writeFileSync(join(dir, `d${i % 30}`, `f${i}.txt`), `changed ${i}\n`);
      for (let i = 1; i < 600; i += 10) rmSync(join(dir, `d${i % 30}`, `f${i}.txt`));
    });
  });

  it('an ignored directory holding a tracked file removed and made again, a new directory bringing its .gitignore', async () => {
    const dir = repo({ '.gitignore': 'build/\n', 'a.txt': 'a\n' });
    writeFiles(dir, { 'build/keep.js': 'k\n' });
    sh(dir, ['add', '-f', 'build/keep.js']);
    sh(dir, ['commit', '-q', '-m', 'build']);
    const index = await opened(dir);
    await expectGitsTree(index, () => {
      rmSync(join(dir, 'build'), { recursive: true });
      writeFiles(dir, { 'build/keep.js': 'k2\n', 'build/other.js': 'o\n', 'build/sub/x.js': 'x\n' });
    });
    await expectGitsTree(index, () => writeFiles(dir, { 'later/.gitignore': '*.tmp\n!keep.tmp\n', 'later/a.tmp': '1\n', 'later/keep.tmp': '2\n' }));
    await expectGitsTree(index, () => writeFiles(dir, { 'later/b.tmp': '3\n', 'later/c.txt': '4\n' }));
  });

  it('a submodule: git stages', async () => {
    const inner = repo({ 'lib.txt': 'lib\n' });
    const dir = repo({ 'a.txt': 'a\n' });
    execFileSync('git', ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', inner, 'mod'], { cwd: dir, env: gitEnv(), stdio: 'pipe' });
    sh(dir, ['commit', '-q', '-m', 'mod']);
    const index = await openWorkIndex(dir);
    indexes.push(index);
    for (let i = 0; i < 3; i++) {
      await index.stage();
      expect(await index.writeTree()).toBe(gitStagedTree(dir, index.work));
    }
    expect(index.live).toBe(false);
    await expectGitsTree(index, () => writeFiles(dir, { 'mod/new.txt': 'n\n', 'b.txt': 'b\n' }));
  });

  it('a linked worktree as the workspace', async () => {
    const dir = repo({ '.gitignore': '*.log\n', 'a.txt': 'a\n' });
    const wt = `${dir}-linked`;
    dirs.push(wt);
    sh(dir, ['worktree', 'add', '-q', wt]);
    writeFileSync(join(dir, '.git', 'info', 'exclude'), '*.excluded\n');
    const index = await opened(wt);
    await expectGitsTree(index, () => writeFiles(wt, { 'b.log': 'l\n', 'c.excluded': 'e\n', 'd.txt': 'd\n' }));
  });
});

describe('live tree against git: checkpoints', () => {
  it('a checkpoint after live snapshots leaves the commit and index the porcelain checkpoint leaves', async () => {
    const files = { '.gitignore': 'dist/\n*.log\n', 'a.txt': 'a\n', 'src/b.ts': 'b\n', 'run.sh': 'echo\n' };
    const fast = repo(files);
    const porcelain = repo(files);
    const t = createChangeTracker({ discardFailed: false });
    try {
      const steps: ((dir: string) => void)[] = [
        (dir) => writeFiles(dir, { 'a.txt': 'a2\n', 'new dir/ü.txt': 'u\n', 'x.log': 'ignored\n' }),
        (dir) => {
          rmSync(join(dir, 'src'), { recursive: true });
          chmodSync(join(dir, 'run.sh'), 0o755);
          symlinkSync('a.txt', join(dir, 'link'));
        },
        (dir) => writeFiles(dir, { 'src/b.ts': 'back\n', 'dist/out.js': 'ignored\n', 'a.txt': 'a3\n' }),
        (dir) => writeFiles(dir, { 'a.txt': 'a4\n' }),
      ];
      for (const [i, step] of steps.entries()) {
        const before = await t.before(fast);
        step(fast);
        const tracked = await t.after(before);
        await tracked.dispose({ reusable: true });
        step(porcelain);
        const message = checkpointMessage('r1', i + 1);
        // (git diff would refresh the real index: the next fast checkpoint would rightly decline.)
        expect((await t.checkpoint(fast, message))?.committed, `iteration ${i + 1}`).toBe(true);
        await commitWorkspace(porcelain, message);
        for (const args of [['rev-parse', 'HEAD^{tree}'], ['ls-files', '--stage'], ['status', '--porcelain', '--untracked-files=all']]) {
          expect(sh(fast, ['--no-optional-locks', ...args]), `${args.join(' ')} after iteration ${i + 1}`).toBe(sh(porcelain, ['--no-optional-locks', ...args]));
        }
      }
    } finally {
      await t.close();
    }
  });
});
