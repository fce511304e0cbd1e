// The PostgreSQL pool as the store's modules use it (the counterpart of sqlite/db.ts): one statement or a
// transaction, an owner fence, and the retries while the database is unreachable (a restart, a failover). Driver
// errors come out as StoreErrors (StoreUnavailableError once the retry budget is spent).
import type pg from 'pg';
import type { Fence } from '../store.js';
import { checkFence } from './fence.js';
import { inTransaction, isUnavailable, toStoreError } from './pool.js';
import type { Queryable } from './pool.js';

/** A store's pool with its retry budget. */
export class PgDb {
  private closed = false;

  constructor(
    readonly pool: pg.Pool,
    /** How long an operation keeps retrying while the database is unreachable (ms). */
    private readonly retryUnavailableMs: number,
  ) {}

  /** No retry any more: the store is closing (an operation in flight fails at its next error). */
  stopRetrying(): void {
    this.closed = true;
  }

  /** One statement (or a few reads) on the pool; driver errors become StoreErrors. */
  async read<T>(what: string, fn: (db: Queryable) => Promise<T>): Promise<T> {
    return this.retrying(what, () => fn(this.pool));
  }

  /** `fn` in one transaction; driver errors become StoreErrors. */
  async tx<T>(what: string, fn: (db: Queryable) => Promise<T>): Promise<T> {
    return this.retrying(what, () => inTransaction(this.pool, fn));
  }

  /** `fn` behind the fence (in a transaction), or on the pool without one. */
  async fenced<T>(what: string, runId: string, fence: Fence | undefined, fn: (db: Queryable) => Promise<T>): Promise<T> {
    if (fence === undefined) return this.read(what, fn);
    return this.tx(what, async (db) => {
      await checkFence(db, runId, fence, what);
      return fn(db);
    });
  }

  /** Runs `attempt`, again (0.1 s doubling to 1 s apart) while the database is unreachable, up to the retry budget. */
  private async retrying<T>(what: string, attempt: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.retryUnavailableMs;
    for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
      try {
        return await attempt();
      } catch (error) {
        if (!isUnavailable(error) || this.closed || Date.now() + delay > deadline) throw toStoreError(error, what);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}
