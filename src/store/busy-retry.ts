// A database locked by another process (a backup, `sqlite3` in a shell, another ringmaster in a long write) is
// transient: every store call that finds it busy is tried again, with backoff, until it goes through. After a
// few seconds of waiting the store says who holds the lock (from /proc/locks), and again once it goes on. A busy
// answer means nothing was written (each call is one transaction or one statement), so trying again never
// writes anything twice, and nothing is recorded that did not happen.
import { lockHolders } from '../os/lock-holders.js';
import { sqliteCode, StoreUnusableError } from './errors.js';
import { callStore, STORE_METHODS, type StoreMethod } from './store-methods.js';
import type { Store } from './store.js';

/** What the store tells while it waits for a locked database, and when it goes on. */
export type BusyNotice =
  | { state: 'waiting'; holders: number[]; waitedMs: number }
  | { state: 'resumed'; holders: number[]; waitedMs: number };

/** How to wait. */
export interface BusyRetryOptions {
  /** The database's files (the database, its -wal and -shm): whoever locks them is named. */
  lockFiles: readonly string[];
  /** Told once when a wait passes `noticeAfterMs`, and once when the database can be written again. */
  onBusy?: (notice: BusyNotice) => void;
  /** Default 3000 ms. */
  noticeAfterMs?: number;
  /** Give up (the busy error is thrown) after this long; default: wait as long as the lock is held. */
  maxWaitMs?: number;
  /** The clock (ms). */
  now?: () => number;
}

const SQLITE_BUSY = 5;

/** True for a "database is locked" answer (SQLITE_BUSY, raw or explained). */
export function isBusy(error: unknown): boolean {
  if (error instanceof StoreUnusableError) return error.reason === 'busy';
  const code = sqliteCode(error);
  return code !== null && (code & 0xff) === SQLITE_BUSY;
}

/** "locked by pid 12" / "locked by pids 12, 13" / "locked by another process". */
export function lockedBy(holders: readonly number[]): string {
  if (holders.length === 0) return 'locked by another process';
  return `locked by pid${holders.length > 1 ? 's' : ''} ${holders.join(', ')}`;
}

/** The notice as one line: "waiting for the database (locked by pid 12)", or how long writes waited. */
export function busyLine(notice: BusyNotice): string {
  if (notice.state === 'waiting') return `waiting for the database (${lockedBy(notice.holders)})`;
  return `the database was ${lockedBy(notice.holders)}: writes waited ${(notice.waitedMs / 1000).toFixed(1)}s, nothing was lost`;
}

/** Waiting between attempts: 50 ms, doubling, at most 1 s (each attempt also waits up to the busy timeout, 100 ms). */
function backoff(attempt: number): number {
  return Math.min(1000, 50 * 2 ** Math.min(attempt, 5));
}

/** `store` whose calls wait out a locked database; close() gives up the waits in progress. */
export function retryingBusy(store: Store, options: BusyRetryOptions): Store {
  const now = options.now ?? Date.now;
  const noticeAfter = options.noticeAfterMs ?? 3000;
  const maxWait = options.maxWaitMs ?? Infinity;
  let closed = false;
  // Shared by every waiting call: one notice for all of them, one when the last goes through.
  let waiting = 0;
  let since = 0;
  let announced: number[] | null = null;
  const timers = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const entry = { timer: setTimeout(() => (timers.delete(entry), resolve()), ms), wake: resolve };
      timers.add(entry);
    });

  const attempt = async (method: StoreMethod, args: readonly unknown[]): Promise<unknown> => {
    let tries = 0;
    let started: number | null = null;
    let through = false;
    try {
      for (;;) {
        try {
          const result = await callStore(store, method, args);
          through = true;
          return result;
        } catch (error) {
          if (!isBusy(error) || closed) throw error;
          if (started === null) {
            started = now();
            if (waiting++ === 0) since = started;
          }
          if (now() - started >= maxWait) throw error;
          if (announced === null && now() - since >= noticeAfter) {
            announced = lockHolders(options.lockFiles);
            options.onBusy?.({ state: 'waiting', holders: announced, waitedMs: now() - since });
          }
          await sleep(backoff(tries++));
        }
      }
    } finally {
      if (started !== null && --waiting === 0 && announced !== null) {
        const holders = announced;
        announced = null;
        // Only a wait that ended with the write done is told as over (not one given up on close).
        if (through && !closed) options.onBusy?.({ state: 'resumed', holders, waitedMs: now() - since });
      }
    }
  };

  const wrapped: Partial<Record<StoreMethod, (...args: unknown[]) => Promise<unknown>>> = {};
  for (const method of STORE_METHODS) wrapped[method] = (...args: unknown[]) => attempt(method, args);
  return Object.assign(wrapped as unknown as Store, {
    async close(): Promise<void> {
      closed = true;
      for (const entry of timers) {
        clearTimeout(entry.timer);
        entry.wake();
      }
      timers.clear();
      await store.close();
    },
  });
}
