// --worktree: a fresh worktree on branch ringmaster/<run-id>, the user's checkout untouched.
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpoint } from '../../src/git/checkpoint.js';
import { createWorktree, defaultWorktreePath, removeWorktree } from '../../src/git/worktree.js';
import { sh, snapshot, tempRepo, useTempRepos, writeFiles } from './git-repo.js';

const dirs = useTempRepos();

describe('createWorktree', () => {
  it('creates a sibling worktree on ringmaster/<run-id>; checkpoints there leave the checkout alone', async () => {
    const dir = realpathSync(tempRepo({ 'app/a.txt': 'a\n' }));
    dirs.push(dir, `${dir}.ringmaster-worktrees`);
    writeFiles(dir, { 'app/a.txt': 'uncommitted\n' });
    const before = snapshot(dir);
    const wt = await createWorktree(join(dir, 'app'), 'run9');
    expect(wt.path).toBe(join(dirname(dir), `${basename(dir)}.ringmaster-worktrees`, 'run9'));
    expect(wt.path).toBe(defaultWorktreePath(dir, 'run9'));
    expect(wt).toMatchObject({ branch: 'ringmaster/run9', workdir: join(wt.path, 'app'), sourceDirty: true });
    expect(wt.base).toBe(sh(dir, ['rev-parse', 'HEAD']).trim());
    expect(snapshot(wt.workdir)).toEqual({ 'a.txt': 'a\n' });
    writeFiles(wt.workdir, { 'b.txt': 'agent\n' });
    const cp = await checkpoint(wt.workdir, 'run9', 1);
    expect(cp.committed).toBe(true);
    expect(sh(dir, ['log', '--format=%s', 'ringmaster/run9', '-1']).trim()).toBe('[ringmaster] checkpoint run run9 iteration 1');
    expect(sh(dir, ['log', '--format=%s', 'main']).trim()).toBe('initial');
    expect(snapshot(dir)).toEqual(before);
    await removeWorktree(dir, wt.path);
    expect(existsSync(wt.path)).toBe(false);
    expect(sh(dir, ['branch', '--list', 'ringmaster/run9']).trim()).toBe('ringmaster/run9');
  });

  it('explains that a repository without commits cannot have a worktree', async () => {
    const dir = tempRepo({}, true);
    dirs.push(dir);
    await expect(createWorktree(dir, 'r1')).rejects.toThrow(`--worktree needs a commit to start from, and ${realpathSync(dir)} has none yet`);
  });
});
