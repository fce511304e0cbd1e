// Crash-test helpers: a seeded PRNG for replayable random kill times, and a child process in its own group
// that is SIGKILLed (group-wide) after a given delay, as a power cut would.
import { spawn } from 'node:child_process';

/** Deterministic PRNG (mulberry32) so a failing trial can be replayed with the same seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** SIGKILLs process group `pgid`, ignoring a group that is already gone. */
export function killGroup(pgid: number): void {
  // Never kill(-0) or kill(-1): an empty or partial pid file must not take the test runner down with it.
  if (!Number.isInteger(pgid) || pgid <= 1) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** How a killable process ended, with its stderr. */
export interface KillableResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** Options of runKillable: where and how to run, and when to kill. */
export interface KillableOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** SIGKILL the process group this long after the start; null runs to the end. */
  killAfterMs: number | null;
  /** Called right after the group is killed (e.g. to kill other groups the process started). */
  onKill?: () => void;
}

/** Runs `node <args>` (the pinned Node) in its own process group, stdout and stderr collected. */
export function runKillable(args: string[], options: KillableOptions): Promise<KillableResult> {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const { killAfterMs } = options;
  const timer = killAfterMs === null ? null : setTimeout(() => {
    killGroup(child.pid ?? 0);
    options.onKill?.();
  }, killAfterMs);
  return new Promise((done) => {
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
  });
}
