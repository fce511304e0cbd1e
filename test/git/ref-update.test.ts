// The checkpoint's commit object and HEAD update in process, against real git on twin repositories (one a copy of
// the other): the same commit ids as `git commit-tree`, the same refs and reflog bytes as `git update-ref`, git fsck
// clean; and every case git would treat otherwise declined (a held lock, HEAD moved, reftable, SHA-256, odd identities).
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitIdentity, commitsInProcess, localDate, writeCommit } from '../../src/git/commit-object.js';
import { readGitConfig, type GitConfig } from '../../src/git/git-config.js';
import { reflogEntry, refStoreFor, updateHead, type RefStore } from '../../src/git/ref-update.js';
import { gitEnv, sh, tempRepo, useTempRepos, writeFiles } from './git-repo.js';

const dirs = useTempRepos();
const DATES = { GIT_AUTHOR_DATE: '@1700000000 +0130', GIT_COMMITTER_DATE: '@1700000100 -0530' };
const MESSAGE = '[ringmaster] checkpoint run r1 iteration 1';

function repo(): string {
  const dir = tempRepo({ 'a.txt': 'a\n' });
  dirs.push(dir);
  return dir;
}
/** A copy of `dir` (same objects, refs and logs). */
function twin(dir: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'rm-git-twin-'));
  dirs.push(copy);
  cpSync(dir, copy, { recursive: true });
  return copy;
}
/** git with extra env (the dates). */
function gitWith(dir: string, args: string[], env: Record<string, string> = {}): string {
  return execFileSync('git', args, { cwd: dir, env: { ...gitEnv(false), ...env }, encoding: 'utf8', stdio: 'pipe' }).trim();
}
const read = (dir: string, path: string): string | null => (existsSync(join(dir, '.git', path)) ? readFileSync(join(dir, '.git', path), 'latin1') : null);
const state = (dir: string): (string | null)[] => ['HEAD', 'refs/heads/main', 'logs/HEAD', 'logs/refs/heads/main', 'packed-refs'].map((p) => read(dir, p));

async function storeOf(dir: string): Promise<{ config: GitConfig; store: RefStore | null }> {
  const config = await readGitConfig(dir);
  return { config, store: refStoreFor(config, join(dir, '.git'), join(dir, '.git')) };
}

/** The commit in process (identity from the repository's config and DATES), HEAD moved; and by git in the twin. */
async function both(dir: string, copy: string): Promise<{ ours: string; theirs: string; result: string }> {
  const { config, store } = await storeOf(dir);
  const parent = sh(dir, ['rev-parse', 'HEAD']).trim();
  const tree = sh(dir, ['rev-parse', 'HEAD^{tree}']).trim();
  const identity = commitIdentity({ ...gitEnv(false), ...DATES }, config, new Date());
  if (identity === null || store === null) throw new Error('not in process');
  const ours = writeCommit(join(dir, '.git', 'objects'), tree, parent, identity, MESSAGE);
  const result = updateHead(store, parent, ours, reflogEntry(identity.committer, `commit: ${MESSAGE}`));
  const theirs = gitWith(copy, ['commit-tree', tree, '-p', parent, '-m', MESSAGE], DATES);
  gitWith(copy, ['update-ref', '-m', `commit: ${MESSAGE}`, 'HEAD', theirs, parent], DATES);
  return { ours, theirs, result };
}

describe('commit object and HEAD update in process', () => {
  it('writes the commit git writes and moves a symbolic HEAD as update-ref does, reflogs byte for byte', async () => {
    const dir = repo();
    const copy = twin(dir);
    const { ours, theirs, result } = await both(dir, copy);
    expect(result).toBe('updated');
    expect(ours).toBe(theirs);
    expect(state(dir)).toEqual(state(copy));
    expect(read(dir, 'logs/HEAD')?.split('\n').at(-2)).toBe(`${sh(dir, ['rev-parse', 'HEAD^']).trim()} ${ours} Test <t@example.com> 1700000100 -0530\tcommit: ${MESSAGE}`);
    expect(existsSync(join(dir, '.git', 'HEAD.lock')) || existsSync(join(dir, '.git', 'refs/heads/main.lock'))).toBe(false);
    expect(gitWith(dir, ['fsck', '--strict'])).toBe('');
    expect(gitWith(dir, ['cat-file', '-t', ours])).toBe('commit');
  });

  it('does the same for a branch only in packed-refs, a detached HEAD, and without or with every reflog', async () => {
    const packed = repo();
    sh(packed, ['pack-refs', '--all']);
    expect(read(packed, 'refs/heads/main')).toBeNull();
    const packedTwin = twin(packed);
    expect((await both(packed, packedTwin)).result).toBe('updated');
    expect(state(packed)).toEqual(state(packedTwin));
    const detached = repo();
    sh(detached, ['checkout', '-q', '--detach']);
    const detachedTwin = twin(detached);
    expect((await both(detached, detachedTwin)).result).toBe('updated');
    expect(state(detached)).toEqual(state(detachedTwin));
    for (const setting of ['false', 'always']) {
      const dir = repo();
      sh(dir, ['config', 'core.logAllRefUpdates', setting]);
      rmSync(join(dir, '.git', 'logs'), { recursive: true });
      const copy = twin(dir);
      expect((await both(dir, copy)).result).toBe('updated');
      expect(state(dir)).toEqual(state(copy));
      expect(read(dir, 'logs/HEAD') === null).toBe(setting === 'false');
    }
  });

  it('moves HEAD of a linked worktree: its HEAD log in its git directory, the branch and its log in the common one', async () => {
    const parentDir = mkdtempSync(join(tmpdir(), 'rm-git-wt-'));
    dirs.push(parentDir);
    const main = join(parentDir, 'main');
    const wt = join(parentDir, 'wt');
    writeFiles(main, { 'a.txt': 'a\n' });
    for (const args of [['init', '-q', '-b', 'main'], ['config', 'user.name', 'Test'], ['config', 'user.email', 't@example.com'], ['add', '-A'], ['commit', '-q', '-m', 'initial'], ['worktree', 'add', '-q', '-b', 'feature', wt]]) sh(main, args);
    // The twin: the same two directories copied, the worktree's links pointed at the copy.
    const copyParent = twin(parentDir);
    const copy = join(copyParent, 'main');
    const copyWt = join(copyParent, 'wt');
    writeFileSync(join(copyWt, '.git'), `gitdir: ${join(copy, '.git', 'worktrees', 'wt')}\n`);
    writeFileSync(join(copy, '.git', 'worktrees', 'wt', 'gitdir'), `${join(copyWt, '.git')}\n`);
    const gitDir = sh(wt, ['rev-parse', '--absolute-git-dir']).trim();
    const config = await readGitConfig(wt);
    const store = refStoreFor(config, gitDir, join(main, '.git'));
    const parent = sh(wt, ['rev-parse', 'HEAD']).trim();
    const identity = commitIdentity({ ...gitEnv(false), ...DATES }, config, new Date());
    if (store === null || identity === null) throw new Error('not in process');
    const ours = writeCommit(join(main, '.git', 'objects'), sh(wt, ['rev-parse', 'HEAD^{tree}']).trim(), parent, identity, MESSAGE);
    expect(updateHead(store, parent, ours, reflogEntry(identity.committer, `commit: ${MESSAGE}`))).toBe('updated');
    const theirs = gitWith(copyWt, ['commit-tree', `${parent}^{tree}`, '-p', parent, '-m', MESSAGE], DATES);
    gitWith(copyWt, ['update-ref', '-m', `commit: ${MESSAGE}`, 'HEAD', theirs, parent], DATES);
    expect(ours).toBe(theirs);
    expect(sh(wt, ['rev-parse', 'HEAD', 'feature']).trim()).toBe(`${ours}\n${ours}`);
    expect(sh(main, ['rev-parse', 'HEAD']).trim()).toBe(parent);
    expect(readFileSync(join(gitDir, 'logs', 'HEAD'), 'latin1')).toBe(readFileSync(join(sh(copyWt, ['rev-parse', '--absolute-git-dir']).trim(), 'logs', 'HEAD'), 'latin1'));
    expect(read(main, 'logs/refs/heads/feature')).toBe(read(copy, 'logs/refs/heads/feature'));
    expect(read(main, 'logs/HEAD')).toBe(read(copy, 'logs/HEAD'));
  });

  it('refuses as git does when a lock is held or HEAD moved, and leaves HEAD of another kind to git', async () => {
    const dir = repo();
    const { config, store } = await storeOf(dir);
    const head = sh(dir, ['rev-parse', 'HEAD']).trim();
    const identity = commitIdentity({ ...gitEnv(false), ...DATES }, config, new Date());
    if (store === null || identity === null) throw new Error('not in process');
    const next = writeCommit(join(dir, '.git', 'objects'), sh(dir, ['rev-parse', 'HEAD^{tree}']).trim(), head, identity, MESSAGE);
    const before = state(dir);
    for (const held of ['HEAD.lock', 'refs/heads/main.lock']) {
      writeFileSync(join(dir, '.git', held), '');
      expect(updateHead(store, head, next, 'x')).toBe('refused');
      // git refuses too (exit 128), and the lock it did not take stays.
      expect(() => gitWith(dir, ['update-ref', 'HEAD', next, head], DATES)).toThrow(/File exists/);
      expect(existsSync(join(dir, '.git', held))).toBe(true);
      rmSync(join(dir, '.git', held));
    }
    expect(updateHead(store, next, head, 'x')).toBe('refused');
    expect(state(dir)).toEqual(before);
    expect(existsSync(join(dir, '.git', 'HEAD.lock')) || existsSync(join(dir, '.git', 'refs/heads/main.lock'))).toBe(false);
    writeFileSync(join(dir, '.git', 'HEAD'), 'ref: refs/remotes/origin/main\n');
    expect(updateHead(store, head, next, 'x')).toBe('unsupported');
  });
});

describe('what is left to git', () => {
  it('declines a repository git would write otherwise', () => {
    const config = (entries: Record<string, string | null>): GitConfig => new Map(Object.entries(entries));
    const at = (c: GitConfig): RefStore | null => refStoreFor(c, '/g', '/g');
    expect(at(config({}))?.logAll).toBe('normal');
    expect(at(config({ 'core.logallrefupdates': 'always' }))?.logAll).toBe('always');
    expect(at(config({ 'core.logallrefupdates': 'off' }))?.logAll).toBe('none');
    expect(at(config({ 'core.logallrefupdates': 'sometimes' }))).toBeNull();
    expect(at(config({ 'extensions.refstorage': 'reftable' }))).toBeNull();
    expect(at(config({ 'core.sharedrepository': 'group' }))).toBeNull();
    expect(commitsInProcess(config({ 'extensions.objectformat': 'sha256' }))).toBe(false);
    expect(commitsInProcess(config({ 'extensions.compatobjectformat': 'sha256' }))).toBe(false);
    expect(commitsInProcess(config({ 'i18n.commitencoding': 'ISO-8859-1' }))).toBe(false);
    expect(commitsInProcess(config({ 'i18n.commitencoding': 'UTF-8', 'extensions.worktreeconfig': 'true' }))).toBe(true);
  });

  it('declines identities git would change, and resolves the rest as git does', async () => {
    const dir = repo();
    sh(dir, ['config', 'author.name', 'Author Name']);
    const config = await readGitConfig(dir);
    const env = { ...gitEnv(false), ...DATES };
    // From the configuration: author.name over user.name for the author only.
    const identity = commitIdentity(env, config, new Date());
    expect(identity).toEqual({ author: 'Author Name <t@example.com> 1700000000 +0130', committer: 'Test <t@example.com> 1700000100 -0530' });
    const tree = sh(dir, ['rev-parse', 'HEAD^{tree}']).trim();
    const parent = sh(dir, ['rev-parse', 'HEAD']).trim();
    if (identity === null) throw new Error('no identity');
    expect(writeCommit(join(dir, '.git', 'objects'), tree, parent, identity, 'm')).toBe(gitWith(dir, ['commit-tree', tree, '-p', parent, '-m', 'm'], DATES));
    for (const name of [' Test', 'Test,', 'a<b>c', 'Te\nst', '"Test"', '', 'x\uFFFE']) {
      expect(commitIdentity({ ...env, GIT_AUTHOR_NAME: name }, config, new Date())).toBeNull();
    }
    for (const date of ['2023-11-14T22:13:20', '1700000000 +0000', '@01700000000 +0000', '@1700000000 +0160']) {
      expect(commitIdentity({ ...env, GIT_COMMITTER_DATE: date }, config, new Date())).toBeNull();
    }
    expect(commitIdentity(env, new Map([...config, ['user.email', null]]), new Date())).toBeNull();
    // Names git keeps as they are (inner punctuation, non-ASCII) give git's commit.
    const kept = commitIdentity({ ...env, GIT_AUTHOR_NAME: 'José O\'Brien, Jr', GIT_AUTHOR_EMAIL: 'j@x' }, config, new Date());
    if (kept === null) throw new Error('declined');
    const gitCommit = gitWith(dir, ['commit-tree', tree, '-m', 'm'], { ...DATES, GIT_AUTHOR_NAME: 'José O\'Brien, Jr', GIT_AUTHOR_EMAIL: 'j@x' });
    expect(writeLooseCommitId(dir, tree, kept)).toBe(gitCommit);
  });

  it('dates a commit made now in the local time zone as git does', () => {
    const zone = process.env.TZ;
    try {
      for (const tz of ['Asia/Kolkata', 'America/St_Johns', 'UTC']) {
        process.env.TZ = tz;
        const ours = localDate(new Date()).split(' ')[1];
        const theirs = gitWith(tmpdir(), ['var', 'GIT_COMMITTER_IDENT'], { TZ: tz, GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'b' }).split(' ').at(-1);
        expect(ours).toBe(theirs);
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});

/** A root commit of `tree` in process (no parent: compared with `git commit-tree` without -p). */
function writeLooseCommitId(dir: string, tree: string, identity: { author: string; committer: string }): string {
  const content = Buffer.from(`tree ${tree}\nauthor ${identity.author}\ncommitter ${identity.committer}\n\nm\n`);
  return gitWithInput(dir, ['hash-object', '-t', 'commit', '--stdin'], content);
}
function gitWithInput(dir: string, args: string[], input: Buffer): string {
  return execFileSync('git', args, { cwd: dir, env: gitEnv(false), input, encoding: 'utf8' }).trim();
}
