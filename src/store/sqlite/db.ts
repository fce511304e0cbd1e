// The SQLite connection as the store's modules use it: cached prepared statements, transactions, and the
// owner fence (a write for an owner happens only while that owner holds the run).
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { OwnershipLostError, storeErrorFrom } from '../errors.js';
import type { Fence } from '../store.js';

/** Named statement parameters. */
export type Params = Record<string, SQLInputValue>;

/** One database connection with a statement cache. */
export class SqliteDb {
  private readonly statements = new Map<string, StatementSync>();

  constructor(
    readonly db: DatabaseSync,
    /** The store's clock: lease renewals and conditional claims are judged by it. */
    readonly clock: () => number,
    /** The database file, named in what a failed write says (a full disk, a read-only file...). */
    private readonly path: string | null = null,
  ) {}

  /** A prepared statement, cached per SQL text (the per-iteration writes reuse theirs). */
  q(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs a write; returns how many rows it changed. An unusable database is a StoreUnusableError. */
  run(sql: string, params: Params): { changes: number } {
    try {
      const result = this.q(sql).run(params);
      return { changes: Number(result.changes) };
    } catch (error) {
      throw storeErrorFrom(error, this.path) ?? error;
    }
  }

  /** `fn` in one write transaction (BEGIN IMMEDIATE), rolled back on error. */
  tx<T>(fn: () => T): T {
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      throw storeErrorFrom(error, this.path) ?? error;
    }
    try {
      const result = fn();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw storeErrorFrom(error, this.path) ?? error;
    }
  }

  /**
   * Inside a transaction: checks that `fence` is the run's open owner and renews its lease (by the store's clock);
   * throws OwnershipLostError otherwise. Nothing when no fence is given.
   */
  fence(runId: string, fence: Fence | undefined, what: string): void {
    if (fence === undefined) return;
    const { changes } = this.run(
      'UPDATE run_owners SET renewed_at = :clock WHERE run_id = :runId AND pid = :pid AND host = :host AND ended_at IS NULL',
      { runId, pid: fence.pid, host: fence.host, clock: this.clock() },
    );
    if (changes === 0) throw new OwnershipLostError(runId, fence, what);
  }

  /** `write` in a transaction behind the fence (or alone, without one). */
  fenced<T>(runId: string, fence: Fence | undefined, what: string, write: () => T): T {
    if (fence === undefined) return write();
    return this.tx(() => {
      this.fence(runId, fence, what);
      return write();
    });
  }
}
