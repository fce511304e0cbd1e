// Runs git with an argv array (never a shell) and returns its output; failures become GitError.
import { execFile } from 'node:child_process';

/** A git command that failed: carries the argv, exit code and stderr. */
export class GitError extends Error {
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly stderr: string;
  constructor(args: readonly string[], exitCode: number | null, stderr: string, options?: { cause?: unknown }) {
    super(`git ${args.join(' ')} failed (exit ${exitCode ?? 'signal'}): ${stderr.trim() || 'no output'}`, options);
    this.name = 'GitError';
    this.args = args;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/** Output of one git command. */
export interface GitOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Options of one git call: extra env (e.g. a fallback identity) and exit codes that are not errors. */
export interface GitOptions {
  env?: Record<string, string>;
  okExitCodes?: readonly number[];
}

// Variables that would point git at another repository or index than the one in `cwd`.
const REPO_ENV = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX', 'GIT_COMMON_DIR'];

/** Runs `git <args>` in `cwd`. Throws GitError on a non-zero exit not listed in okExitCodes. */
export function git(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<GitOutput> {
  // The caller's own env wins (e.g. GIT_INDEX_FILE for a temporary index); the inherited one never leaks in.
  const env: Record<string, string | undefined> = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
  for (const name of REPO_ENV) delete env[name];
  Object.assign(env, options.env);
  return new Promise((resolve, reject) => {
    execFile('git', [...args], { cwd, env, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (!error) {
        resolve({ stdout, stderr, exitCode: 0 });
        return;
      }
      const code = typeof error.code === 'number' ? error.code : null;
      if (code !== null && (options.okExitCodes ?? []).includes(code)) {
        resolve({ stdout, stderr, exitCode: code });
        return;
      }
      reject(new GitError(args, code, stderr || error.message, { cause: error }));
    });
  });
}
