// The workspace lock: exclusive, names its holder, stale locks (dead pid) taken over.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/core/errors.js';
import { BadLockError, LockHeldError, acquireLock, isProcessAlive, readLock } from '../../src/runner/lock.js';
import type { LockEnv } from '../../src/runner/lock.js';

const dirs: string[] = [];
/** The lock file a workspace gets in a data directory `dir` (its name is a hash of the workspace path). */
function lockPath(dir: string): string {
  return join(dir, 'locks', 'workspace.lock');
}
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rm-lock-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const T = Date.UTC(2025, 5, 1, 8, 0, 0);
function env(pid: number, alive: number[] = [], hostname = 'box'): LockEnv {
  return { pid, hostname, now: () => T, isAlive: (p) => alive.includes(p) };
}

describe('workspace lock', () => {
  it('writes pid, run id, since and hostname, and releases only its own lock', async () => {
    const dir = workspace();
    const lock = await acquireLock(lockPath(dir), 'run1', env(100));
    expect(JSON.parse(readFileSync(lockPath(dir), 'utf8'))).toEqual({ pid: 100, run_id: 'run1', since: '2025-06-01T08:00:00.000Z', hostname: 'box', start_time: null, boot_id: null });
    expect(await readLock(lockPath(dir))).toEqual(lock.info);
    expect(lock.takenOver).toBeNull();
    await lock.release();
    expect(await readLock(lockPath(dir))).toBeNull();
    expect(readdirSync(join(dir, 'locks'))).toEqual([]);
  });

  it('refuses a second run while the holder lives, naming pid, run id and since', async () => {
    const dir = workspace();
    await acquireLock(lockPath(dir), 'run1', env(100));
    const second = acquireLock(lockPath(dir), 'run2', env(200, [100]));
    await expect(second).rejects.toBeInstanceOf(LockHeldError);
    const error = await acquireLock(lockPath(dir), 'run2', env(200, [100])).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: EXIT.locked });
    expect((error as Error).message).toBe(
      `the workspace is locked by run run1 (pid 100, since 2025-06-01T08:00:00.000Z); use --worktree to run in a separate worktree, or 'ringmaster stop' it. Lock file: ${lockPath(dir)}`,
    );
  });

  it('takes over a stale lock whose pid is dead, and never judges a lock from another host', async () => {
    const dir = workspace();
    await acquireLock(lockPath(dir), 'dead-run', env(100));
    const lock = await acquireLock(lockPath(dir), 'run2', env(200, []));
    expect(lock.takenOver).toMatchObject({ pid: 100, run_id: 'dead-run' });
    expect((await readLock(lockPath(dir)))?.run_id).toBe('run2');
    await lock.release();
    await acquireLock(lockPath(dir), 'remote', env(100, [], 'other-box'));
    await expect(acquireLock(lockPath(dir), 'run3', env(200, []))).rejects.toThrow('(pid 100 on host other-box, since');
  });

  it('does not remove a lock that is no longer its own', async () => {
    const dir = workspace();
    const first = await acquireLock(lockPath(dir), 'run1', env(100));
    rmSync(lockPath(dir));
    await acquireLock(lockPath(dir), 'run2', env(200));
    await first.release();
    expect((await readLock(lockPath(dir)))?.run_id).toBe('run2');
  });

  it('reports a corrupt lock file instead of guessing', async () => {
    const dir = workspace();
    await acquireLock(lockPath(dir), 'run1', env(100));
    writeFileSync(lockPath(dir), 'garbage');
    await expect(acquireLock(lockPath(dir), 'run2', env(200))).rejects.toBeInstanceOf(BadLockError);
  });

  it('takes over an unreadable lock written before this boot (torn by a crash), not one written since', async () => {
    const dir = workspace();
    await acquireLock(lockPath(dir), 'run1', env(100));
    writeFileSync(lockPath(dir), '');
    const booted = { ...env(200), bootedAtMs: Date.now() - 60_000 };
    await expect(acquireLock(lockPath(dir), 'run2', booted)).rejects.toBeInstanceOf(BadLockError);
    utimesSync(lockPath(dir), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    const lock = await acquireLock(lockPath(dir), 'run2', booted);
    expect(lock.takenOver).toBeNull();
    expect((await readLock(lockPath(dir)))?.run_id).toBe('run2');
    expect(readdirSync(join(dir, 'locks'))).toEqual(['workspace.lock']);
  });

  it('one winner among concurrent takeovers of a stale lock, round after round, and no marker left', async () => {
    const dir = workspace();
    const pids = Array.from({ length: 8 }, (_, i) => 10 + i);
    for (let round = 0; round < 25; round++) {
      rmSync(lockPath(dir), { force: true });
      await acquireLock(lockPath(dir), 'dead', env(1));
      const racers = pids.map((pid, i) => acquireLock(lockPath(dir), `r${i}`, env(pid, pids)).then(
        (l) => l.info.run_id,
        (e: unknown) => (e instanceof LockHeldError ? 'refused' : String(e)),
      ));
      const results = await Promise.all(racers);
      const winners = results.filter((r) => r !== 'refused');
      expect(winners, `round ${round}`).toHaveLength(1);
      expect((await readLock(lockPath(dir)))?.run_id).toBe(winners[0]);
      expect(readdirSync(join(dir, 'locks'))).toEqual(['workspace.lock']);
    }
  });

  it('clears the takeover marker of a racer that died within its takeover, then takes the stale lock over', async () => {
    const dir = workspace();
    await acquireLock(lockPath(dir), 'dead', env(1));
    const stale = readFileSync(lockPath(dir), 'utf8');
    const marker = `${lockPath(dir)}.takeover-${createHash('sha256').update(stale).digest('hex').slice(0, 16)}`;
    writeFileSync(marker, `${JSON.stringify({ pid: 2, run_id: 'takeover', since: new Date(T).toISOString(), hostname: 'box' })}\n`);
    const lock = await acquireLock(lockPath(dir), 'run2', env(200, [200]));
    expect(lock.takenOver).toMatchObject({ pid: 1, run_id: 'dead' });
    expect(readdirSync(join(dir, 'locks'))).toEqual(['workspace.lock']);
    // A live racer's marker is left alone: the lock stays the stale one's until that racer is done.
    await lock.release();
    await acquireLock(lockPath(dir), 'dead-again', env(3));
    const stale2 = readFileSync(lockPath(dir), 'utf8');
    const marker2 = `${lockPath(dir)}.takeover-${createHash('sha256').update(stale2).digest('hex').slice(0, 16)}`;
    writeFileSync(marker2, `${JSON.stringify({ pid: 300, run_id: 'takeover', since: new Date(T).toISOString(), hostname: 'box' })}\n`);
    await expect(acquireLock(lockPath(dir), 'run3', env(200, [300]))).rejects.toBeInstanceOf(LockHeldError);
    expect(readFileSync(lockPath(dir), 'utf8')).toBe(stale2);
    expect(readFileSync(marker2, 'utf8')).toContain('"pid":300');
  });

  it('a lock bearing our own pid written by an earlier process (a restarted container) is stale; our own lock is not', async () => {
    const dir = workspace();
    const restarted = (startTime: number): LockEnv => ({ ...env(100, [100]), startTimeOf: (p) => (p === 100 ? startTime : null), bootId: 'boot-a' });
    await acquireLock(lockPath(dir), 'before-restart', restarted(500));
    const lock = await acquireLock(lockPath(dir), 'after-restart', restarted(900));
    expect(lock.takenOver?.run_id).toBe('before-restart');
    await expect(acquireLock(lockPath(dir), 'again', restarted(900))).rejects.toBeInstanceOf(LockHeldError);
  });

  it('a live pid that now names another process (other start time, other boot, started after the lock) is stale', async () => {
    const byStart = workspace();
    await acquireLock(lockPath(byStart), 'old', { ...env(100, [100]), startTimeOf: () => 500 });
    expect((await acquireLock(lockPath(byStart), 'new', { ...env(200, [100]), startTimeOf: () => 777 })).takenOver?.run_id).toBe('old');
    const byBoot = workspace();
    await acquireLock(lockPath(byBoot), 'old', { ...env(100, [100]), bootId: 'boot-a' });
    expect((await acquireLock(lockPath(byBoot), 'new', { ...env(200, [100]), bootId: 'boot-b' })).takenOver?.run_id).toBe('old');
    const oldFormat = workspace();
    await acquireLock(lockPath(oldFormat), 'old', env(100, [100]));
    const notTheWriter = { ...env(200, [100]), couldHaveWritten: () => false };
    expect((await acquireLock(lockPath(oldFormat), 'new', notTheWriter)).takenOver?.run_id).toBe('old');
    const stillHeld = workspace();
    await acquireLock(lockPath(stillHeld), 'live', { ...env(100, [100]), startTimeOf: () => 500, bootId: 'boot-a' });
    await expect(acquireLock(lockPath(stillHeld), 'second', { ...env(200, [100]), startTimeOf: () => 500, bootId: 'boot-a' })).rejects.toBeInstanceOf(LockHeldError);
  });

  it('knows live and dead pids', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    const child = spawnSync(process.execPath, ['-e', 'process.exit(0)']);
    expect(isProcessAlive(child.pid)).toBe(false);
  });
});
