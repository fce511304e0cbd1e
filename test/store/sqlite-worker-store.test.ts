// The SQLite store in a worker thread (what `serve` and `worker` use) passes the Store contract, errors keep their
// class across the thread, and a call waiting for a database locked by another process leaves the calling
// thread's event loop free. Starts the compiled worker of dist/ (npm run build) from the sources' proxy.
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import type { BusyNotice } from '../../src/store/busy-retry.js';
import { StoreError, StoreUnusableError } from '../../src/store/errors.js';
import { databasePath, ensurePrivateDir } from '../../src/store/paths.js';
import { openWorkerStore } from '../../src/store/sqlite/worker-store.js';
import type { Store } from '../../src/store/store.js';
import { ROOT } from '../helpers/cli.js';
import { until } from '../helpers/until.js';
import { storeContract } from './store-contract.js';

const WORKER = pathToFileURL(join(ROOT, 'dist', 'store', 'sqlite', 'store-worker.js'));

async function open(home: string, onBusy?: (notice: BusyNotice) => void): Promise<Store> {
  ensurePrivateDir(home);
  const store = await openWorkerStore(databasePath(home), { workerUrl: WORKER, noticeAfterMs: 300, ...(onBusy ? { onBusy } : {}) });
  if (store === null) throw new Error(`no compiled worker at ${WORKER.href}: npm run build`);
  return store;
}

it('runs against the compiled worker (npm run build)', () => expect(existsSync(WORKER)).toBe(true));

storeContract('SQLite in a worker thread', async () => {
  const home = await mkdtemp(join(tmpdir(), 'rm-wstore-'));
  const store = await open(home);
  return {
    store,
    async cleanup() {
      await store.close();
      await rm(home, { recursive: true, force: true });
    },
  };
});

describe('SQLite store in a worker thread', () => {
  it('fails to open like the in-thread store (a damaged file is a StoreUnusableError), and refuses calls once closed', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rm-wstore-'));
    try {
      ensurePrivateDir(home);
      const { writeFileSync } = await import('node:fs');
      writeFileSync(databasePath(home), 'not a database, not at all '.repeat(200));
      const error = await open(home).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnusableError);
      expect((error as StoreUnusableError).reason).toBe('damaged');
      await rm(databasePath(home));
      const store = await open(home);
      await store.close();
      await expect(store.getRun('x')).rejects.toThrow(StoreError);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('waits out another connection holding the write lock, says who, while this thread keeps running', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rm-wstore-'));
    const notices: BusyNotice[] = [];
    const store = await open(home, (n) => notices.push(n));
    const holder = new DatabaseSync(databasePath(home));
    try {
      holder.exec('PRAGMA busy_timeout = 5000');
      holder.exec('BEGIN IMMEDIATE');
      let written = false;
      const create = store.createRun({ id: 'r', agent: 'claude', spec: {}, workspace: home, owner: { pid: 1, host: 'h' }, now: 1 }).then(() => (written = true));
      // This thread's timers fire while the write waits in the worker; the wait is announced, naming nobody
      // else (the lock is held by this very process).
      let ticks = 0;
      const timer = setInterval(() => ticks++, 10);
      await until('the wait to be announced', () => notices.length > 0);
      clearInterval(timer);
      expect(ticks).toBeGreaterThan(0);
      expect(written).toBe(false);
      expect(notices).toEqual([{ state: 'waiting', holders: [], waitedMs: expect.any(Number) as number }]);
      holder.exec('COMMIT');
      await create;
      expect(notices.map((n) => n.state)).toEqual(['waiting', 'resumed']);
      expect((await store.getRun('r'))?.status).toBe('running');
    } finally {
      if (holder.isTransaction) holder.exec('ROLLBACK');
      holder.close();
      await store.close();
      await rm(home, { recursive: true, force: true });
    }
  });
});
