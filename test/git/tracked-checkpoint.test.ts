// Change tracking's private index in process, against real temporary repositories: a checkpoint of the tracked
// after-tree leaves exactly what the porcelain checkpoint leaves, and gives way to the full path whenever it could
// differ; an iteration's before-tree is the previous after-tree only when the runner says nothing ran in between.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpoint, checkpointMessage, commitWorkspace } from '../../src/git/checkpoint.js';
import { createChangeTracker, type ChangeTracker } from '../../src/runner/change-tracking.js';
import { gitEnv, sh, tempRepo, writeFiles, useTempRepos } from './git-repo.js';

// No global or system git config; the dirs removed after each test, after what the hook below disposes (hooks after a
// test run in reverse order).
const dirs = useTempRepos();
const trackers: { close(): Promise<void> }[] = [];
function repo(files: Record<string, string>): string {
  const dir = tempRepo(files);
  dirs.push(dir);
  mkdirSync(join(dir, '.ringmaster'), { recursive: true });
  writeFileSync(join(dir, '.ringmaster', '.gitignore'), '*\n');
  writeFileSync(join(dir, '.ringmaster', 'ringmaster.db'), 'not for git');
  return dir;
}
function tracker(): ChangeTracker {
  const t = createChangeTracker({ discardFailed: false });
  trackers.push(t);
  return t;
}

afterEach(async () => {
  for (const t of trackers.splice(0)) await t.close();
});

/** One tracked iteration in which `work` changes the directory. */
async function iteration(t: ChangeTracker, dir: string, work: () => void, reusable = true): Promise<string[]> {
  const before = await t.before(dir);
  work();
  const tracked = await t.after(before);
  await tracked.dispose({ reusable });
  return tracked.files.map((f) => `${f.change} ${f.path}`);
}

const facts = (dir: string): string[] => [
  sh(dir, ['rev-parse', 'HEAD^{tree}']),
  sh(dir, ['log', '-1', '--format=%s%n%an <%ae>%n%cn <%ce>']),
  sh(dir, ['ls-files', '--stage']),
  // Without the optional index refresh: a git that writes the real index makes the next checkpoint take the full path.
  sh(dir, ['--no-optional-locks', 'status', '--porcelain', '--untracked-files=all']),
  sh(dir, ['reflog', '-1', '--format=%gs']),
  sh(dir, ['rev-list', '--count', 'HEAD']),
];

describe('checkpoint of the tracked tree', () => {
  const files = { 'a.txt': 'a\n', 'b.txt': 'b\n', 'run.sh': 'echo\n', 'sub/c.txt': 'c\n' };
  const change = (dir: string) => (): void => {
    writeFiles(dir, { 'a.txt': 'changed\n', 'new/d.txt': 'd\n' });
    rmSync(join(dir, 'b.txt'));
    chmodSync(join(dir, 'run.sh'), 0o755);
  };

  it('leaves the commit, the index and the reflog exactly as the porcelain checkpoint, iteration after iteration', async () => {
    const fast = repo(files);
    const porcelain = repo(files);
    const t = tracker();
    expect(await iteration(t, fast, change(fast))).toEqual(['modified a.txt', 'deleted b.txt', 'added new/d.txt', 'modified run.sh']);
    change(porcelain)();
    const a = await t.checkpoint(fast, checkpointMessage('r1', 1));
    await commitWorkspace(porcelain, checkpointMessage('r1', 1));
    expect(a?.committed).toBe(true);
    expect(a?.sha).toBe(sh(fast, ['rev-parse', 'HEAD']).trim());
    expect(facts(fast)).toEqual(facts(porcelain));
    // The next iteration starts from the committed tree; one with no change commits nothing.
    expect(await iteration(t, fast, () => writeFiles(fast, { 'sub/c.txt': 'c2\n' }))).toEqual(['modified sub/c.txt']);
    writeFiles(porcelain, { 'sub/c.txt': 'c2\n' });
    expect((await t.checkpoint(fast, checkpointMessage('r1', 2)))?.committed).toBe(true);
    await commitWorkspace(porcelain, checkpointMessage('r1', 2));
    expect(facts(fast)).toEqual(facts(porcelain));
    expect(await iteration(t, fast, () => undefined)).toEqual([]);
    expect(await t.checkpoint(fast, checkpointMessage('r1', 3))).toEqual({ committed: false, sha: sh(fast, ['rev-parse', 'HEAD']).trim(), message: checkpointMessage('r1', 3) });
    expect(facts(fast)).toEqual(facts(porcelain));
  });

  it('gives way to the full path when the agent staged, HEAD moved, or an iteration runs', async () => {
    const staged = repo(files);
    const t = tracker();
    // The agent staged a file itself: the real index is not the one the private index was seeded from.
    await iteration(t, staged, () => {
      writeFiles(staged, { 'a.txt': 'staged by the agent\n' });
      sh(staged, ['add', 'a.txt']);
    });
    expect(await t.checkpoint(staged, checkpointMessage('r', 1))).toBeNull();
    expect((await checkpoint(staged, 'r', 1)).committed).toBe(true);
    // The private index is seeded again before the next iteration: its checkpoint is the fast one again.
    await iteration(t, staged, () => writeFiles(staged, { 'b.txt': 'b2\n' }));
    expect((await t.checkpoint(staged, checkpointMessage('r', 2)))?.committed).toBe(true);
    expect(sh(staged, ['--no-optional-locks', 'status', '--porcelain'])).toBe('');
    // HEAD moved without the index (plumbing) since the last checkpoint: the full path commits on top of it.
    const dir = repo(files);
    const other = tracker();
    await iteration(other, dir, () => writeFiles(dir, { 'b.txt': 'b2\n' }));
    expect((await other.checkpoint(dir, checkpointMessage('r', 1)))?.committed).toBe(true);
    const head = sh(dir, ['rev-parse', 'HEAD']).trim();
    const moved = sh(dir, ['commit-tree', `${head}^{tree}`, '-p', head, '-m', 'elsewhere']).trim();
    sh(dir, ['update-ref', 'HEAD', moved]);
    await iteration(other, dir, () => writeFiles(dir, { 'b.txt': 'b3\n' }));
    expect(await other.checkpoint(dir, checkpointMessage('r', 2))).toBeNull();
    expect(sh(dir, ['rev-parse', 'HEAD']).trim()).toBe(moved);
    expect((await checkpoint(dir, 'r', 2)).committed).toBe(true);
    expect(sh(dir, ['rev-parse', 'HEAD^']).trim()).toBe(moved);
    // While an iteration runs in the directory there is no tree to commit; a directory never tracked has none either.
    const running = await other.before(dir);
    expect(await other.checkpoint(dir, checkpointMessage('r', 3))).toBeNull();
    await (await other.after(running)).dispose();
    expect(await tracker().checkpoint(dir, checkpointMessage('r', 4))).toBeNull();
  });
});

describe('checkpoint written in process', () => {
  const ENV = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 't@example.com', GIT_AUTHOR_DATE: '@1700000000 +0100', GIT_COMMITTER_DATE: '@1700000000 +0100' };
  const saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    for (const [key, value] of Object.entries(ENV)) [saved[key], process.env[key]] = [process.env[key], value];
  });
  afterEach(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });
  const gitIn = (dir: string, args: string[]): string => execFileSync('git', args, { cwd: dir, env: { ...gitEnv(), ...ENV }, encoding: 'utf8', stdio: 'pipe' }).trim();
  const logs = (dir: string): string[] => ['refs/heads/main', 'logs/HEAD', 'logs/refs/heads/main'].map((p) => readFileSync(join(dir, '.git', p), 'utf8'));

  it('needs no git process once HEAD is known, and leaves the commit, ref and reflogs git leaves a twin', async () => {
    const dir = repo({ 'a.txt': 'a\n' });
    // Hooks never run on either path (Ringmaster's gits run with core.hooksPath=/dev/null): this one must not either.
    writeFileSync(join(dir, '.git', 'hooks', 'reference-transaction'), `#!/bin/sh\ntouch "${dir}/hook-ran"\n`, { mode: 0o755 });
    const t = tracker();
    await iteration(t, dir, () => writeFiles(dir, { 'a.txt': 'one\n' }));
    expect((await t.checkpoint(dir, checkpointMessage('r', 1)))?.committed).toBe(true);
    await iteration(t, dir, () => writeFiles(dir, { 'a.txt': 'two\n', 'b.txt': 'b\n' }));
    const twin = `${dir}-twin`;
    dirs.push(twin);
    cpSync(dir, twin, { recursive: true });
    rmSync(join(twin, '.git', 'hooks', 'reference-transaction'));
    const parent = gitIn(dir, ['rev-parse', 'HEAD']);
    const path = process.env.PATH;
    process.env.PATH = '';
    let result;
    try {
      result = await t.checkpoint(dir, checkpointMessage('r', 2));
    } finally {
      process.env.PATH = path;
    }
    const tree = gitIn(dir, ['rev-parse', 'HEAD^{tree}']);
    const theirs = gitIn(twin, ['commit-tree', tree, '-p', parent, '-m', checkpointMessage('r', 2)]);
    gitIn(twin, ['update-ref', '-m', `commit: ${checkpointMessage('r', 2)}`, 'HEAD', theirs, parent]);
    expect(result).toEqual({ committed: true, sha: theirs, message: checkpointMessage('r', 2) });
    expect(logs(dir)).toEqual(logs(twin));
    expect(gitIn(dir, ['fsck', '--strict'])).toBe('');
    expect(sh(dir, ['--no-optional-locks', 'status', '--porcelain'])).toBe('');
    expect(existsSync(join(dir, 'hook-ran'))).toBe(false);
    // A lock left by a killed git: declined, and the full path fails naming it, as before.
    writeFileSync(join(dir, '.git', 'refs', 'heads', 'main.lock'), '');
    await iteration(t, dir, () => writeFiles(dir, { 'a.txt': 'three\n' }));
    expect(await t.checkpoint(dir, checkpointMessage('r', 3))).toBeNull();
    await expect(checkpoint(dir, 'r', 3)).rejects.toThrow(/main\.lock/);
    expect(gitIn(dir, ['rev-parse', 'HEAD'])).toBe(theirs);
  });

  it('leaves the commit and HEAD to git for an identity git rewrites or a shared repository', async () => {
    const dir = repo({ 'a.txt': 'a\n' });
    sh(dir, ['config', 'core.sharedRepository', 'group']);
    process.env.GIT_AUTHOR_NAME = ' Odd Name,';
    const t = tracker();
    await iteration(t, dir, () => writeFiles(dir, { 'a.txt': 'one\n' }));
    expect((await t.checkpoint(dir, checkpointMessage('r', 1)))?.committed).toBe(true);
    // git's own stripping of the crud at the ends: the commit git made.
    expect(gitIn(dir, ['log', '-1', '--format=%an|%cn|%s'])).toBe(`Odd Name|Test|${checkpointMessage('r', 1)}`);
    process.env.GIT_AUTHOR_NAME = 'Test';
    await iteration(t, dir, () => writeFiles(dir, { 'a.txt': 'two\n' }));
    expect((await t.checkpoint(dir, checkpointMessage('r', 2)))?.committed).toBe(true);
    // core.sharedRepository: git adjusts the permissions of what it writes (group-writable here).
    expect(statSync(join(dir, '.git', 'refs', 'heads', 'main')).mode & 0o060).toBe(0o060);
    expect(gitIn(dir, ['fsck', '--strict'])).toBe('');
  });
});

describe('before-tree of the next iteration', () => {
  it('is the previous after-tree when the runner says nothing ran in between (a change made then is the next iteration\'s), a fresh snapshot otherwise', async () => {
    const dir = repo({ 'a.txt': 'a\n' });
    const t = tracker();
    expect(await iteration(t, dir, () => writeFiles(dir, { 'b.txt': 'b\n' }), true)).toEqual(['added b.txt']);
    writeFiles(dir, { 'between.txt': 'x\n' });
    // Reused: what changed since the last snapshot is this iteration's.
    expect(await iteration(t, dir, () => writeFiles(dir, { 'c.txt': 'c\n' }), false)).toEqual(['added between.txt', 'added c.txt']);
    writeFiles(dir, { 'between2.txt': 'x\n' });
    // Not reusable (the previous one said so): the snapshot before sees it, the iteration does not.
    expect(await iteration(t, dir, () => writeFiles(dir, { 'd.txt': 'd\n' }))).toEqual(['added d.txt']);
  });

  it('is taken afresh after a discard (the files went back)', async () => {
    const dir = repo({ 'a.txt': 'a\n' });
    const t = tracker();
    const before = await t.before(dir);
    writeFiles(dir, { 'a.txt': 'broken\n', 'junk.txt': 'j\n' });
    const tracked = await t.after(before);
    expect(await tracked.discard('r', 1)).toBe('refs/ringmaster/discarded/r/1');
    await tracked.dispose({ reusable: true });
    expect(await t.checkpoint(dir, checkpointMessage('r', 1))).toBeNull();
    expect(await iteration(t, dir, () => writeFiles(dir, { 'a.txt': 'good\n' }))).toEqual(['modified a.txt']);
  });
});
