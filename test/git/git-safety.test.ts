// Ringmaster's own git commands ignore the user's hooks and have a time limit; a stale index.lock is judged by the
// git processes of that repository only.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clearStaleIndexLock, git, gitAliveIn, repoDirs } from '../../src/git/index.js';
import { groupAlive } from '../../src/os/process-group.js';
import { cleanEnv, normalise, planAgent, runCli } from '../helpers/cli.js';
import { gitEnv, sh, tempRepo, useTempRepos } from './git-repo.js';

const dirs = useTempRepos();

function hook(repo: string, name: string, body: string): void {
  const dir = join(repo, '.git', 'hooks');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(dir, name), 0o755);
}

const env = () => cleanEnv({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });

describe("the user's git hooks never run in Ringmaster's git commands", () => {
  it('a failing prepare-commit-msg hook does not fail the checkpoint, and does not run', async () => {
    const repo = tempRepo({ 'PROMPT.md': 'work\n' });
    dirs.push(repo);
    hook(repo, 'prepare-commit-msg', `touch "${join(repo, 'hook-ran')}"\nexit 1`);
    hook(repo, 'pre-commit', `touch "${join(repo, 'hook-ran')}"\nexit 1`);
    const r = await runCli(['run', '--agent-command', planAgent('ok'), '--max-iterations', '1', '--checkpoint-interval', '1'], { cwd: repo, env: env() });
    expect(r.stderr).toBe('');
    expect(normalise(r.stdout)).toContain('[T] Reached max iterations: 1');
    expect(sh(repo, ['log', '-1', '--format=%s'])).toMatch(/^\[ringmaster\] checkpoint run \w+ iteration 1\n$/);
    expect(existsSync(join(repo, 'hook-ran'))).toBe(false);
    expect(r.code).toBe(2);
  });

  it('a post-commit hook that sleeps for ever does not hang the run', async () => {
    const repo = tempRepo({ 'PROMPT.md': 'work\n' });
    dirs.push(repo);
    hook(repo, 'post-commit', `touch "${join(repo, 'hook-ran')}"\nsleep 600`);
    const r = await runCli(['run', '--agent-command', planAgent('ok'), '--max-iterations', '1', '--checkpoint-interval', '1'], { cwd: repo, env: env() });
    expect(r.code).toBe(2);
    expect(existsSync(join(repo, 'hook-ran'))).toBe(false);
  }, 30_000);

  it('--worktree does not run a post-checkout hook', async () => {
    const repo = tempRepo({ 'PROMPT.md': 'work\n' });
    dirs.push(repo, `${repo}.ringmaster-worktrees`);
    hook(repo, 'post-checkout', `touch "${join(repo, 'hook-ran')}"\nexit 1`);
    const r = await runCli(['run', '--worktree', '--agent-command', planAgent('ok'), '--max-iterations', '1', '--checkpoint-interval', '0'], { cwd: repo, env: env() });
    expect(r.stdout).toMatch(/^Worktree: /);
    expect(existsSync(join(repo, 'hook-ran'))).toBe(false);
    expect(r.code).toBe(2);
  });

  it('a git command that runs past its time limit is killed with what it started, as a GitError', async () => {
    const repo = tempRepo();
    dirs.push(repo);
    const pidFile = join(repo, 'sleeper.pid');
    const started = Date.now();
    await expect(git(repo, ['-c', `alias.hang=!echo $$ > "${pidFile}"; exec sleep 600`, 'hang'], { timeoutMs: 500 })).rejects.toThrow(
      /^git -c alias\.hang=.* hang failed \(exit signal\): timed out after 1s and was killed$/,
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(groupAlive(pid)).toBe(false);
  });
});

/** A long-running git process in `cwd` (cat-file --batch waits on its stdin). */
function liveGit(cwd: string): ChildProcess {
  return spawn('git', ['cat-file', '--batch'], { cwd, env: gitEnv(), stdio: ['pipe', 'ignore', 'ignore'] });
}

describe('a stale index.lock', () => {
  it('is removed during a run when the only live git is in another repository', async () => {
    const repo = tempRepo({ 'PROMPT.md': 'work\n' });
    const other = tempRepo();
    dirs.push(repo, other);
    writeFileSync(join(repo, '.git', 'index.lock'), '');
    const elsewhere = liveGit(other);
    try {
      const r = await runCli(['run', '--agent-command', planAgent('ok'), '--max-iterations', '1', '--checkpoint-interval', '1'], { cwd: repo, env: env() });
      expect(r.stderr).toBe('WARNING: removed a stale .git/index.lock left by a killed git process\n');
      expect(sh(repo, ['log', '-1', '--format=%s'])).toMatch(/checkpoint run \w+ iteration 1/);
      expect(r.code).toBe(2);
    } finally {
      elsewhere.kill('SIGKILL');
    }
  });

  it('is kept while a git process works in that repository (by its directory or its GIT_DIR)', async () => {
    const repo = tempRepo();
    const other = tempRepo();
    dirs.push(repo, other);
    const lock = join(repo, '.git', 'index.lock');
    writeFileSync(lock, '');
    const here = liveGit(join(repo));
    try {
      expect(gitAliveIn(await repoDirs(repo))).toBe(true);
      expect(await clearStaleIndexLock(repo)).toBeNull();
      expect(existsSync(lock)).toBe(true);
    } finally {
      here.kill('SIGKILL');
    }
    const viaEnv = spawn('git', ['cat-file', '--batch'], { cwd: other, env: { ...gitEnv(), GIT_DIR: join(repo, '.git') }, stdio: ['pipe', 'ignore', 'ignore'] });
    try {
      expect(gitAliveIn(await repoDirs(repo))).toBe(true);
    } finally {
      viaEnv.kill('SIGKILL');
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(await clearStaleIndexLock(repo)).toBe(lock);
  });
});
