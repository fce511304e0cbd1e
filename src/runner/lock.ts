// A workspace lock: a file in the data directory (locks/<hash of the workspace real path>.lock), created exclusively
// (write temp + link), naming its holder. A lock whose holder is gone (same host: pid dead, or the pid now belongs
// to another process, our own included after a container restart) is stale and taken over, one remover at a time
// (a takeover marker per stale lock); a live holder makes acquireLock throw LockHeldError. The file is not fsynced
// (that cost ~85 ms of a run's start-up here): a lock that a crash of the machine left empty or cut short was
// written before this boot, and is stale.
import { createHash } from 'node:crypto';
import { hostname as osHostname, uptime } from 'node:os';
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { EXIT, UserError } from '../core/errors.js';
import { bootId, couldHaveWritten, readStat } from '../os/proc.js';
import { ensurePrivateDir } from '../store/paths.js';

/** Contents of a lock file. `since` is an ISO 8601 time; start_time and boot_id identify the holder process (absent in old locks). */
export const lockInfoSchema = z.object({
  pid: z.number().int().positive(),
  run_id: z.string().min(1),
  since: z.string(),
  hostname: z.string(),
  start_time: z.number().int().nonnegative().nullable().optional(),
  boot_id: z.string().nullable().optional(),
});

/** Who holds a workspace lock. */
export type LockInfo = z.infer<typeof lockInfoSchema>;

/** Another live run holds the workspace. The message names pid, run id and since. */
export class LockHeldError extends UserError {
  readonly holder: LockInfo;
  readonly lockPath: string;
  constructor(
    lockPath: string,
    holder: LockInfo,
    localHost: string = osHostname(),
    hint = "use --worktree to run in a separate worktree, or 'ringmaster stop' it",
  ) {
    const where = holder.hostname === localHost ? '' : ` on host ${holder.hostname}`;
    super(
      `the workspace is locked by run ${holder.run_id} (pid ${holder.pid}${where}, since ${holder.since}); ${hint}. Lock file: ${lockPath}`,
      EXIT.locked,
    );
    this.name = 'LockHeldError';
    this.holder = holder;
    this.lockPath = lockPath;
  }
}

/** A lock file that is not a ringmaster lock (corrupt or foreign). */
export class BadLockError extends UserError {
  constructor(lockPath: string, detail: string) {
    super(`${lockPath} is not a valid ringmaster lock (${detail}); remove it if no run is active`, EXIT.locked);
    this.name = 'BadLockError';
  }
}

/** True when a process with this pid exists (EPERM = exists but not ours). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What the lock needs from the machine; injected so tests can fake dead, reused or foreign holders. */
export interface LockEnv {
  pid: number;
  hostname: string;
  now: () => number;
  isAlive: (pid: number) => boolean;
  /** Start time (clock ticks after boot) of a live process, null when unknown; omitted = never known. */
  startTimeOf?: (pid: number) => number | null;
  /** This boot's id, null when unknown. */
  bootId?: string | null;
  /** False when the process now holding `pid` started clearly after `writtenAtMs` (so it did not write it). */
  couldHaveWritten?: (pid: number, writtenAtMs: number) => boolean;
  /** When this machine booted (ms since the epoch), null or omitted when unknown. */
  bootedAtMs?: number | null;
}

/** The real process's LockEnv. */
export function processLockEnv(): LockEnv {
  return {
    pid: process.pid,
    hostname: osHostname(),
    now: Date.now,
    isAlive: isProcessAlive,
    startTimeOf: (pid) => readStat(pid)?.startTime ?? null,
    bootId: bootId(),
    couldHaveWritten: (pid, at) => couldHaveWritten(pid, at),
    bootedAtMs: Date.now() - uptime() * 1000,
  };
}

/** A held lock. `takenOver` is the stale holder replaced, if any. */
export interface HeldLock {
  path: string;
  info: LockInfo;
  takenOver: LockInfo | null;
  /** Removes the lock file if it is still ours. */
  release(): Promise<void>;
}

/** The current lock at `path`, or null when unlocked. Throws BadLockError on an unreadable lock. */
export async function readLock(path: string): Promise<LockInfo | null> {
  const text = await readText(path);
  return text === null ? null : parseLock(path, text);
}

/**
 * True when the holder is certainly gone: same host, and its pid is dead or now names another process (a
 * different boot, a different start time, or a process that started after the lock was written). That
 * includes a lock bearing our own pid that an earlier process wrote (a container restarted with the same
 * pids). Other hosts are never judged.
 */
export function isStale(holder: LockInfo, env: LockEnv): boolean {
  if (holder.hostname !== env.hostname) return false;
  const bootNow = env.bootId ?? null;
  if (holder.boot_id && bootNow !== null && holder.boot_id !== bootNow) return true;
  if (holder.pid !== env.pid && !env.isAlive(holder.pid)) return true;
  const startNow = env.startTimeOf?.(holder.pid) ?? null;
  if (holder.start_time !== null && holder.start_time !== undefined && startNow !== null) return holder.start_time !== startNow;
  const since = Date.parse(holder.since);
  if (env.couldHaveWritten && Number.isFinite(since)) return !env.couldHaveWritten(holder.pid, since);
  return false;
}

/** Attempts at creating the lock; a racer waiting on another's takeover of a stale lock uses a few of them. */
const ATTEMPTS = 40;

/** Takes the lock file at `path` for run `runId`; throws LockHeldError when a live run holds it. */
export async function acquireLock(path: string, runId: string, env: LockEnv = processLockEnv()): Promise<HeldLock> {
  ensurePrivateDir(dirname(path));
  const info = holderInfo(runId, env);
  const text = `${JSON.stringify(info)}\n`;
  let takenOver: LockInfo | null = null;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (await createExclusive(path, text)) return held(path, info, text, takenOver);
    const currentText = await readText(path);
    if (currentText === null) continue; // released meanwhile: try again
    let holder: LockInfo;
    try {
      holder = parseLock(path, currentText);
    } catch (error) {
      if (!(await tornByCrash(path, env))) throw error;
      await removeIfUnchanged(path, currentText, env);
      continue;
    }
    if (!isStale(holder, env)) throw new LockHeldError(path, holder, env.hostname);
    if (await removeIfUnchanged(path, currentText, env)) takenOver = holder;
  }
  const last = await readLock(path);
  if (last) throw new LockHeldError(path, last, env.hostname);
  throw new BadLockError(path, `could not be created after ${ATTEMPTS} attempts`);
}

function holderInfo(runId: string, env: LockEnv): LockInfo {
  return {
    pid: env.pid,
    run_id: runId,
    since: new Date(env.now()).toISOString(),
    hostname: env.hostname,
    start_time: env.startTimeOf?.(env.pid) ?? null,
    boot_id: env.bootId ?? null,
  };
}

function held(path: string, info: LockInfo, text: string, takenOver: LockInfo | null): HeldLock {
  return {
    path,
    info,
    takenOver,
    async release() {
      if ((await readText(path)) === text) await unlink(path).catch(ignoreMissing);
    },
  };
}

/** Margin for the boot time read from the uptime (its rounding, the clock's small steps). */
const BOOT_MARGIN_MS = 5_000;

/** True when an unreadable lock was last written before this boot: no live process can hold it (a crash tore it). */
async function tornByCrash(path: string, env: LockEnv): Promise<boolean> {
  if (env.bootedAtMs === null || env.bootedAtMs === undefined) return false;
  const written = await stat(path).then((s) => s.mtimeMs, () => null);
  return written !== null && written < env.bootedAtMs - BOOT_MARGIN_MS;
}

/**
 * Exclusive create, like O_EXCL but never half-written: the full text goes to a temporary file that
 * is then hard-linked to `path` (link fails with EEXIST when a lock exists). True when we created it.
 */
async function createExclusive(path: string, text: string): Promise<boolean> {
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  let handle;
  try {
    handle = await open(temp, 'wx', 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT'].includes(code)) {
      throw new UserError(
        `cannot create the workspace lock ${path} (${code === 'EROFS' ? 'read-only file system' : code === 'ENOSPC' || code === 'EDQUOT' ? 'disk full' : 'permission denied'}): 'ringmaster run' needs to write in the data directory; read-only commands (runs, show, logs, stats) work without it`,
        EXIT.io,
      );
    }
    throw error;
  }
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(ignoreMissing);
  }
}

/**
 * Removes the lock at `path` only if its text is still `staleText`, one remover at a time: the remover holds a
 * marker named after the stale text, created exclusively. Under it the read and the unlink cannot be split by
 * another remover, and nobody else removes a stale lock (its holder is gone); a lock created meanwhile has
 * another text and is left alone. A racer that finds the marker taken waits a moment and starts over (the lock
 * is gone by then, or the marker's holder died in these few system calls: its marker is cleared).
 */
async function removeIfUnchanged(path: string, staleText: string, env: LockEnv): Promise<boolean> {
  const marker = `${path}.takeover-${createHash('sha256').update(staleText).digest('hex').slice(0, 16)}`;
  const markerText = `${JSON.stringify(holderInfo('takeover', env))}\n`;
  if (!(await createExclusive(marker, markerText))) {
    await clearDeadMarker(marker, env);
    await delay(2);
    return false;
  }
  try {
    if ((await readText(path)) !== staleText) return false;
    await unlink(path).catch(ignoreMissing);
    return true;
  } finally {
    await unlink(marker).catch(ignoreMissing);
  }
}

/**
 * Removes a takeover marker whose holder is gone (killed within its takeover), if it is still the one judged:
 * renamed away atomically, then checked; a live one grabbed by mistake is linked back.
 */
async function clearDeadMarker(marker: string, env: LockEnv): Promise<void> {
  const text = await readText(marker);
  if (text === null) return;
  let gone: boolean;
  try {
    gone = isStale(parseLock(marker, text), env);
  } catch {
    gone = await tornByCrash(marker, env);
  }
  if (!gone) return;
  const aside = `${marker}.dead-${env.pid}-${env.now()}`;
  try {
    await rename(marker, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if ((await readText(aside)) !== text) await link(aside, marker).catch(ignoreExists);
  await unlink(aside).catch(ignoreMissing);
}

function parseLock(path: string, text: string): LockInfo {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadLockError(path, 'not JSON');
  }
  const parsed = lockInfoSchema.safeParse(value);
  if (!parsed.success) throw new BadLockError(path, parsed.error.issues.map((i) => i.path.join('.') || i.message).join(', '));
  return parsed.data;
}

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function ignoreExists(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}
