// Checkpoints and rollback against real temporary git repositories.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkpoint, checkpointMessage, commitWorkspace } from '../../src/git/checkpoint.js';
import { ensureExcluded, headSha, isGitRepo } from '../../src/git/repo.js';
import { DirtyWorkspaceError, UnknownCommitError, rollback, rollbackMessage } from '../../src/git/rollback.js';
import { removeDir, sh, snapshot, tempRepo, writeFiles } from './git-repo.js';

const dirs: string[] = [];
function repo(files?: Record<string, string>, init?: boolean): string {
  const dir = tempRepo(files, init);
  dirs.push(dir);
  // A workspace used by a ringmaster before the data directory: its state under an ignored .ringmaster/.
  mkdirSync(join(dir, '.ringmaster'), { recursive: true });
  writeFileSync(join(dir, '.ringmaster', '.gitignore'), '*\n');
  writeFileSync(join(dir, '.ringmaster', 'ringmaster.db'), 'not for git');
  return dir;
}

beforeAll(() => {
  // The machine's global git config must not leak into these tests (identity, hooks, signing).
  process.env.GIT_CONFIG_GLOBAL = '/dev/null';
  process.env.GIT_CONFIG_NOSYSTEM = '1';
});
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

function log(dir: string): string[] {
  return sh(dir, ['log', '--format=%s|%an <%ae>']).trim().split('\n');
}

describe('repository facts', () => {
  it('tells git repositories from plain directories', async () => {
    expect(await isGitRepo(repo())).toBe(true);
    expect(await isGitRepo(repo({ 'a.txt': 'a' }, false))).toBe(false);
  });

  it('adds .ringmaster/ to .git/info/exclude once, keeping what was there and never touching .gitignore', async () => {
    const dir = repo({ '.gitignore': 'node_modules\n' });
    writeFileSync(join(dir, '.git', 'info', 'exclude'), '# mine\n*.tmp');
    expect(await ensureExcluded(dir)).toBe(true);
    expect(await ensureExcluded(dir)).toBe(false);
    expect(readFileSync(join(dir, '.git', 'info', 'exclude'), 'utf8')).toBe("# mine\n*.tmp\n# ringmaster's database, locks and logs\n.ringmaster/\n");
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('node_modules\n');
  });
});

describe('checkpoint', () => {
  it('commits added, modified and deleted files (never .ringmaster/) with the checkpoint message', async () => {
    const dir = repo({ 'keep.txt': 'k\n', 'change.txt': 'v1\n', 'gone.txt': 'bye\n' });
    await ensureExcluded(dir);
    writeFiles(dir, { 'change.txt': 'v2\n', 'src/new.ts': 'export {};\n' });
    rmSync(join(dir, 'gone.txt'));
    const result = await checkpoint(dir, 'run1', 5);
    expect(result).toEqual({ committed: true, sha: await headSha(dir), message: '[ringmaster] checkpoint run run1 iteration 5' });
    expect(sh(dir, ['show', '--name-status', '--format=%s', 'HEAD']).trim().split('\n')).toEqual([
      '[ringmaster] checkpoint run run1 iteration 5',
      '',
      'M\tchange.txt',
      'D\tgone.txt',
      'A\tsrc/new.ts',
    ]);
    expect(sh(dir, ['ls-files']).trim().split('\n')).toEqual(['change.txt', 'keep.txt', 'src/new.ts']);
    expect(sh(dir, ['status', '--porcelain'])).toBe('');
  });

  it('makes no commit when nothing changed and reports HEAD', async () => {
    const dir = repo();
    const head = await headSha(dir);
    expect(await checkpoint(dir, 'run1', 1)).toEqual({ committed: false, sha: head, message: '[ringmaster] checkpoint run run1 iteration 1' });
    expect(log(dir)).toHaveLength(1);
  });

  it('uses a fallback identity when the repository has none, and works without any commit yet', async () => {
    const dir = repo({ 'a.txt': 'a\n' }, false);
    sh(dir, ['init', '-q', '-b', 'main']);
    const result = await checkpoint(dir, 'r', 1);
    expect(result.committed).toBe(true);
    expect(log(dir)).toEqual(['[ringmaster] checkpoint run r iteration 1|Ringmaster <ringmaster@localhost>']);
  });

  it('commits only the workspace subdirectory and leaves what the user staged elsewhere staged', async () => {
    const dir = repo({ 'app/a.txt': 'a\n', 'other.txt': 'o\n' });
    writeFiles(dir, { 'other.txt': 'user edit\n', 'app/a.txt': 'agent edit\n' });
    sh(dir, ['add', 'other.txt']);
    const result = await checkpoint(join(dir, 'app'), 'r', 1);
    expect(result.committed).toBe(true);
    expect(sh(dir, ['show', '--name-only', '--format=', 'HEAD']).trim()).toBe('app/a.txt');
    expect(sh(dir, ['status', '--porcelain']).trim()).toBe('M  other.txt');
  });
  it('leaves the commit, the index and the reflog exactly as the porcelain checkpoint it replaced does', async () => {
    const files = { 'a.txt': 'a\n', 'b.txt': 'b\n', 'run.sh': 'echo\n', 'sub/c.txt': 'c\n' };
    const fast = repo(files);
    const porcelain = repo(files);
    for (const dir of [fast, porcelain]) {
      writeFiles(dir, { 'a.txt': 'changed\n', 'new/d.txt': 'd\n', 'staged.txt': 's\n' });
      sh(dir, ['add', 'staged.txt']);
      rmSync(join(dir, 'b.txt'));
      sh(dir, ['update-index', '--chmod=+x', 'run.sh']);
    }
    const a = await checkpoint(fast, 'r1', 3);
    const b = await commitWorkspace(porcelain, checkpointMessage('r1', 3));
    expect(a.committed && b.committed).toBe(true);
    const facts = (dir: string) => [
      sh(dir, ['rev-parse', 'HEAD^{tree}', 'HEAD^']),
      sh(dir, ['log', '-1', '--format=%s%n%an <%ae>%n%cn <%ce>']),
      sh(dir, ['ls-files', '--stage']),
      sh(dir, ['status', '--porcelain', '--untracked-files=all']),
      sh(dir, ['reflog', '-1', '--format=%gs']),
      sh(dir, ['reflog', 'show', '-1', '--format=%gs', 'main']),
    ];
    const expected = facts(porcelain);
    expected[0] = expected[0]?.split('\n')[0] ?? '';
    const got = facts(fast);
    got[0] = got[0]?.split('\n')[0] ?? '';
    expect(got).toEqual(expected);
    expect(got[4]).toBe('commit: [ringmaster] checkpoint run r1 iteration 3\n');
  });
});

describe('rollback', () => {
  it('restores the exact files of a checkpoint (modified, added and deleted) as a new commit, keeping history', async () => {
    const dir = repo({ 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
    writeFiles(dir, { 'a.txt': 'a2\n', 'dir/c.txt': 'c2\n' });
    const good = await checkpoint(dir, 'r', 5);
    const expected = snapshot(dir);
    writeFiles(dir, { 'a.txt': 'a3 broken\n', 'd.txt': 'd3\n' });
    rmSync(join(dir, 'b.txt'));
    rmSync(join(dir, 'dir'), { recursive: true });
    const bad = await checkpoint(dir, 'r', 10);
    expect(snapshot(dir)).not.toEqual(expected);
    const message = rollbackMessage('r', 5, good.sha ?? '');
    const result = await rollback(dir, good.sha ?? '', { force: false, message });
    expect(snapshot(dir)).toEqual(expected);
    expect(result).toEqual({ target: good.sha, commit: await headSha(dir), discarded: [] });
    expect(log(dir).map((l) => l.split('|')[0])).toEqual([message, '[ringmaster] checkpoint run r iteration 10', '[ringmaster] checkpoint run r iteration 5', 'initial']);
    expect(sh(dir, ['cat-file', '-t', bad.sha ?? '']).trim()).toBe('commit');
    expect(readFileSync(join(dir, '.ringmaster', 'ringmaster.db'), 'utf8')).toBe('not for git');
    expect(sh(dir, ['status', '--porcelain'])).toBe('');
  });

  it('refuses to destroy uncommitted work, then discards it with force', async () => {
    const dir = repo({ 'a.txt': 'a1\n' });
    const target = await headSha(dir);
    writeFiles(dir, { 'a.txt': 'a2\n' });
    await checkpoint(dir, 'r', 1);
    writeFiles(dir, { 'a.txt': 'user work\n', 'notes.md': 'untracked\n' });
    const before = snapshot(dir);
    const attempt = rollback(dir, target ?? '', { force: false, message: 'rb' });
    await expect(attempt).rejects.toBeInstanceOf(DirtyWorkspaceError);
    await expect(rollback(dir, target ?? '', { force: false, message: 'rb' })).rejects.toThrow(
      `${dir} has uncommitted changes that a rollback would destroy: a.txt, notes.md. Commit or stash them, or pass --force to discard them`,
    );
    expect(snapshot(dir)).toEqual(before);
    const forced = await rollback(dir, target ?? '', { force: true, message: 'rb' });
    expect(forced.discarded).toEqual(['a.txt', 'notes.md']);
    expect(snapshot(dir)).toEqual({ 'a.txt': 'a1\n' });
    expect(existsSync(join(dir, '.ringmaster', 'ringmaster.db'))).toBe(true);
  });

  it('makes no commit when the files already match, and rejects an unknown commit', async () => {
    const dir = repo();
    const head = await headSha(dir);
    expect(await rollback(dir, head ?? '', { force: false, message: 'rb' })).toEqual({ target: head, commit: null, discarded: [] });
    await expect(rollback(dir, 'f'.repeat(40), { force: false, message: 'rb' })).rejects.toBeInstanceOf(UnknownCommitError);
  });
});
