// A small exclusive file lock (O_EXCL lock file) that serialises concurrent Stop hooks on one tracker.
import { open, readFile, rm, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive } from '../os/process-group.js';

/** Raised when the lock could not be taken in time. */
export class LockTimeoutError extends Error {
  readonly path: string;
  constructor(path: string, waitedMs: number) {
    super(`${path}: lock still held after ${waitedMs} ms`);
    this.name = 'LockTimeoutError';
    this.path = path;
  }
}

/** Options of `withFileLock`. */
export interface FileLockOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** A lock file older than this, or whose process is gone, is taken over (default 30 s). */
  staleMs?: number;
  /** Pause between attempts (default 20 ms). */
  retryMs?: number;
}


/** A dead owner's lock is taken over only once it is this old: a lock that was just released and re-taken
 * by another hook is always younger, so a hook that read the previous (finished) owner's pid never removes
 * the new owner's lock. */
const DEAD_OWNER_MIN_AGE_MS = 2000;

/** The lock file's identity if it is stale (to be removed only if it is still that same file), else null. */
async function staleIdentity(path: string, staleMs: number): Promise<{ ino: number; mtimeMs: number } | null> {
  try {
    const info = await stat(path);
    const age = Date.now() - info.mtimeMs;
    if (age > staleMs) return { ino: info.ino, mtimeMs: info.mtimeMs };
    if (age < DEAD_OWNER_MIN_AGE_MS) return null;
    const text = await readFile(path, 'utf8');
    const pid = Number.parseInt(text.split('\n')[0] ?? '', 10);
    return Number.isInteger(pid) && pid > 0 && !processAlive(pid) ? { ino: info.ino, mtimeMs: info.mtimeMs } : null;
  } catch {
    return null;
  }
}

/** Removes the lock file only if it is still the file judged stale (same inode and mtime). */
async function removeIfSame(path: string, identity: { ino: number; mtimeMs: number }): Promise<void> {
  try {
    const now = await stat(path);
    if (now.ino === identity.ino && now.mtimeMs === identity.mtimeMs) await rm(path, { force: true });
  } catch {
    // already gone
  }
}

/** Runs `fn` while holding `<path>.lock`; the lock is released in every case. */
export async function withFileLock<T>(path: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const lockPath = `${path}.lock`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const retryMs = options.retryMs ?? 20;
  const started = Date.now();
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      try {
        await handle.writeFile(`${process.pid}\n${new Date().toISOString()}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const stale = await staleIdentity(lockPath, staleMs);
      if (stale) {
        await removeIfSame(lockPath, stale);
        continue;
      }
      if (Date.now() - started >= timeoutMs) throw new LockTimeoutError(lockPath, Date.now() - started);
      await sleep(retryMs);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockPath, { force: true });
  }
}
