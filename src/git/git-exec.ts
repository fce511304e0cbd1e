// Runs git with an argv array (never a shell) and returns its output; failures become GitError. Ringmaster's own
// git commands never run the user's hooks or fsmonitor, never start a background gc, and have a time limit:
// a hook that sleeps must not hang a run past every limit, one that fails must not fail every checkpoint.
import { spawn } from 'node:child_process';
import { signalGroup } from '../os/process-group.js';
import { timerAfter } from '../os/timers.js';

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

/** Options of one git call: extra env (e.g. a fallback identity), exit codes that are not errors, time limit. */
export interface GitOptions {
  env?: Record<string, string>;
  okExitCodes?: readonly number[];
  /** Kill git (SIGKILL) after this long; default GIT_TIMEOUT_MS. */
  timeoutMs?: number;
}

/** Output kept per command (the rest is dropped; Ringmaster's git commands print far less). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Default time limit of one git command (a checkpoint's `git add` on a large tree stays well under it). */
export const GIT_TIMEOUT_MS = 120_000;

/**
 * Settings put before every command: no hooks (core.hooksPath to an empty place), no fsmonitor daemon, no
 * automatic gc in the background (the user's own next git command does the housekeeping).
 */
export const SAFE_GIT_CONFIG: readonly string[] = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'gc.auto=0', '-c', 'maintenance.auto=false'];

// Variables that would point git at another repository or index than the one in `cwd`.
const REPO_ENV = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX', 'GIT_COMMON_DIR'];

/** Runs `git <args>` in `cwd`. Throws GitError on a non-zero exit not listed in okExitCodes, or after the time limit. */
export function git(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<GitOutput> {
  // The caller's own env wins (e.g. GIT_INDEX_FILE for a temporary index); the inherited one never leaks in.
  const env: Record<string, string | undefined> = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
  for (const name of REPO_ENV) delete env[name];
  Object.assign(env, options.env);
  const timeoutMs = options.timeoutMs ?? GIT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    // Its own process group, so that the time limit also kills whatever git started (a helper, an alias).
    const child = spawn('git', [...SAFE_GIT_CONFIG, ...args], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    const collect = (into: Buffer[]) => (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= MAX_OUTPUT_BYTES) into.push(chunk);
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    const timer = timerAfter(timeoutMs, () => {
      timedOut = true;
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    });
    child.on('error', (error) => {
      timer.cancel();
      reject(new GitError(args, null, error.message, { cause: error }));
    });
    child.on('exit', () => {
      timer.cancel();
      // A process git left behind could hold the pipes open: the group goes with it.
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    });
    child.on('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (timedOut) reject(new GitError(args, null, `timed out after ${Math.round(timeoutMs / 1000)}s and was killed`));
      else if (code === 0) resolve({ stdout, stderr, exitCode: 0 });
      else if (code !== null && (options.okExitCodes ?? []).includes(code)) resolve({ stdout, stderr, exitCode: code });
      else reject(new GitError(args, code, stderr));
    });
  });
}
