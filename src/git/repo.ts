// Facts about the git repository around a workspace, and keeping .ringmaster/ out of it.
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, readFile, appendFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { git } from './git-exec.js';

/** Identity used for ringmaster's commits when the user has none configured. */
export const FALLBACK_IDENTITY = { name: 'Ringmaster', email: 'ringmaster@localhost' } as const;

/** Pathspecs that select the workspace (the current directory) minus ringmaster's own directory. */
export const WORKSPACE_PATHSPEC: readonly string[] = ['.', ':(exclude).ringmaster'];

/**
 * True when neither `dir` (its real path, where git starts looking) nor any directory above it holds a `.git`:
 * git finds no repository there (git() removes GIT_DIR and the like), so it need not be asked.
 */
function noGitAbove(dir: string): boolean {
  let current: string;
  try {
    current = realpathSync(dir);
  } catch {
    return false;
  }
  for (;;) {
    if (existsSync(join(current, '.git'))) return false;
    const parent = dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

/** True when `dir` is inside a git working tree. */
export async function isGitRepo(dir: string): Promise<boolean> {
  // Most of the start-up of a run outside any repository was this git process.
  if (noGitAbove(dir)) return false;
  try {
    const out = await git(dir, ['rev-parse', '--is-inside-work-tree']);
    return out.stdout.trim() === 'true';
  } catch {
    return false;
  }
}

/** Absolute path of the working tree's top directory. */
export async function repoRoot(dir: string): Promise<string> {
  return (await git(dir, ['rev-parse', '--show-toplevel'])).stdout.trim();
}

/** The commit HEAD points at, or null in a repository without commits. */
export async function headSha(dir: string): Promise<string | null> {
  const out = await git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { okExitCodes: [1] });
  return out.exitCode === 0 ? out.stdout.trim() : null;
}

/** Paths (relative to `dir`) with uncommitted changes or untracked files, ringmaster's own excluded. */
export async function uncommittedPaths(dir: string): Promise<string[]> {
  const out = await git(dir, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...WORKSPACE_PATHSPEC]);
  const paths: string[] = [];
  const fields = out.stdout.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i];
    if (!entry) continue;
    paths.push(entry.slice(3));
    // A rename or copy is followed by its source path in the next field.
    if (entry[0] === 'R' || entry[0] === 'C') i++;
  }
  return paths;
}

/** Env giving git an author/committer identity when the repository has none configured. */
export async function identityEnv(dir: string): Promise<Record<string, string>> {
  // One git process for both keys (exit 1: neither is set).
  const out = await git(dir, ['config', '--get-regexp', '^user\\.(name|email)$'], { okExitCodes: [1] });
  const keys = new Set(out.stdout.split('\n').map((line) => line.split(' ')[0]));
  return identityFor((key) => keys.has(key));
}

/** identityEnv's answer from the configuration's keys: nothing when user.name and user.email are both set. */
export function identityFor(has: (key: string) => boolean): Record<string, string> {
  if (has('user.name') && has('user.email')) return {};
  return {
    GIT_AUTHOR_NAME: FALLBACK_IDENTITY.name,
    GIT_AUTHOR_EMAIL: FALLBACK_IDENTITY.email,
    GIT_COMMITTER_NAME: FALLBACK_IDENTITY.name,
    GIT_COMMITTER_EMAIL: FALLBACK_IDENTITY.email,
  };
}

/**
 * Adds `pattern` (default `.ringmaster/`) to the repository's .git/info/exclude (shared by all its
 * worktrees) unless a line already says so. The user's .gitignore is never touched. Returns true if added.
 */
export async function ensureExcluded(dir: string, pattern = '.ringmaster/'): Promise<boolean> {
  const common = (await git(dir, ['rev-parse', '--git-common-dir'])).stdout.trim();
  const commonDir = isAbsolute(common) ? common : resolve(dir, common);
  const file = join(commonDir, 'info', 'exclude');
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text.split(/\r?\n/).some((line) => line.trim() === pattern)) return false;
  await mkdir(dirname(file), { recursive: true });
  const prefix = text === '' || text.endsWith('\n') ? '' : '\n';
  await appendFile(file, `${prefix}# ringmaster's database, locks and logs\n${pattern}\n`);
  return true;
}
