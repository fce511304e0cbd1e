// Temporary git repositories for tests: real git, a fixed identity, removed afterwards.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach, beforeAll } from 'vitest';

/** Env for git in tests: no global or system config, a fixed identity unless `withIdentity` is false. */
export function gitEnv(withIdentity = true): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  for (const k of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'GIT_DIR', 'GIT_WORK_TREE']) delete env[k];
  if (withIdentity) Object.assign(env, { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 't@example.com' });
  return env;
}

/** Runs git synchronously in `cwd` and returns stdout. */
export function sh(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv(), encoding: 'utf8' });
}

/** A new temporary directory (optionally a git repository with one commit of `files`). */
export function tempRepo(files: Record<string, string> = { 'README.md': 'hello\n' }, init = true): string {
  const dir = mkdtempSync(join(tmpdir(), 'rm-git-'));
  writeFiles(dir, files);
  if (init) {
    sh(dir, ['init', '-q', '-b', 'main']);
    sh(dir, ['config', 'user.name', 'Test']);
    sh(dir, ['config', 'user.email', 't@example.com']);
    if (Object.keys(files).length > 0) {
      sh(dir, ['add', '-A']);
      sh(dir, ['commit', '-q', '-m', 'initial']);
    }
  }
  return dir;
}

/** Writes files (paths relative to `dir`). */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** Every file under `dir` with its content, skipping .git and .ringmaster. */
export function snapshot(dir: string, base = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    if (name === '.git' || name === '.ringmaster') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) Object.assign(out, snapshot(path, base));
    else out[relative(base, path)] = readFileSync(path, 'utf8');
  }
  return out;
}

/** Removes a temporary directory (and, for a repository, the worktrees ringmaster made next to it). */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  rmSync(`${dir}.ringmaster-worktrees`, { recursive: true, force: true });
}

/** Registers this file's hooks: no global or system git config, and after each test the removal of every dir pushed on the returned list. */
export function useTempRepos(): string[] {
  const dirs: string[] = [];
  beforeAll(() => {
    process.env.GIT_CONFIG_GLOBAL = '/dev/null';
    process.env.GIT_CONFIG_NOSYSTEM = '1';
  });
  afterEach(() => {
    for (const dir of dirs.splice(0)) removeDir(dir);
  });
  return dirs;
}

/** git's own staging of `dir` on a copy of `indexFile` (`git add --all -- .`, untracked cache off, `git write-tree`). */
export function gitStagedTree(dir: string, indexFile: string): string {
  const copy = join(tmpdir(), `rm-git-staged-${process.pid}-${Math.random()}`);
  try {
    copyFileSync(indexFile, copy);
    const env = { ...gitEnv(), GIT_INDEX_FILE: copy };
    execFileSync('git', ['-c', 'core.untrackedCache=false', 'add', '--all', '--', '.'], { cwd: dir, env, stdio: 'pipe' });
    return execFileSync('git', ['write-tree'], { cwd: dir, env, encoding: 'utf8' }).trim();
  } finally {
    rmSync(copy, { force: true });
  }
}
