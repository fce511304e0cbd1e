// The PostgreSQL connection pool of the store (node-postgres), its type parsing, transactions, and how
// driver errors become StoreErrors. The password of a database URL never appears in a message.
import pg from 'pg';
import type { PoolClient, QueryResultRow } from 'pg';
import { UserError } from '../../core/errors.js';
export { redactUrl } from '../../core/url.js';
import { StoreError } from '../errors.js';
import { StoreUnavailableError } from '../unavailable.js';

export { StoreUnavailableError };

/** Something that runs a query: the pool itself or a client inside a transaction. */
export interface Queryable {
  query<R extends QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** How to open the pool. */
export interface PoolOptions {
  /** Most connections this process holds (default 10). */
  max?: number;
  /** Shown in pg_stat_activity (default `ringmaster`). */
  applicationName?: string;
}

/**
 * The server ends a session that sits in an open transaction this long: a process cut off from the database in
 * the middle of a transaction (a network partition) would otherwise keep its row locks (and the event-order
 * lock) until TCP gives up, hours later, and block the worker that takes its run over. Half the workers' lease.
 */
export const IDLE_IN_TRANSACTION_MS = 5_000;

const INT8 = 20;
const NUMERIC = 1700;

// Timestamps are epoch milliseconds in BIGINT columns and sums come back as NUMERIC: both fit a JS number
// (2^53 ms is 285,000 years), so they are parsed as numbers instead of node-postgres' default strings.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
  },
};

/** Opens a pool on `url`. Errors of idle connections (database restarted) are absorbed: the next query reconnects. */
export function createPool(url: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'ringmaster',
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    types,
  });
  // An idle client whose server went away emits 'error' on the pool; unhandled, it would end the process.
  pool.on('error', () => undefined);
  return pool;
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** True for errors that mean "the database is not reachable now" rather than "this statement is wrong". */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_CODES.has(code)) return true;
    // 08: connection exception; 57P01-3: admin/crash shutdown, cannot connect now; 53300: too many connections;
    // 25P03: the session was ended in an idle transaction (rolled back: the whole transaction can be retried).
    if (code.startsWith('08') || ['57P01', '57P02', '57P03', '53300', '25P03'].includes(code)) return true;
  }
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(error.message);
}

/**
 * The driver's error as a StoreError (StoreUnavailableError when the database is unreachable); the store's
 * own typed errors (StoreError, and UserErrors such as AmbiguousRunIdError) pass through unchanged.
 */
export function toStoreError(error: unknown, what: string): Error {
  if (error instanceof StoreError || error instanceof UserError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (isUnavailable(error)) return new StoreUnavailableError(`${what}: database unavailable: ${message}`, { cause: error });
  return new StoreError(`${what}: ${message}`, { cause: error });
}

/** The SQLSTATE of a driver error, if any (e.g. 23505 unique violation). */
export function sqlState(error: unknown): string | null {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

/** PostgreSQL text cannot hold NUL characters (SQLite can): they are stored as U+FFFD instead of failing. */
function clean(values: readonly unknown[]): unknown[] {
  return values.map((v) => (typeof v === 'string' && v.includes('\u0000') ? v.replaceAll('\u0000', '\uFFFD') : v));
}

/** Runs one statement with NUL characters of its text values replaced (see clean). */
export function query<R extends QueryResultRow = QueryResultRow>(db: Queryable, text: string, values: readonly unknown[] = []): Promise<pg.QueryResult<R>> {
  return db.query<R>(text, clean(values));
}

const RETRYABLE = new Set(['40001', '40P01']);

/**
 * Runs `fn` in one transaction on one pooled client: COMMIT on success, ROLLBACK on error. A serialization
 * failure or deadlock (the other transaction won) is retried a few times, since `fn` saw nothing committed.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: Queryable) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client: PoolClient = await pool.connect();
    let broken: Error | undefined;
    // The server may end the session between two statements (e.g. after IDLE_IN_TRANSACTION_MS): the client
    // emits that as an 'error' event, which unheard would end the process. The next statement fails with it.
    const onError = (error: Error): void => void (broken ??= error);
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        // The connection itself is gone: destroy it rather than return it to the pool.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      if (attempt < 4 && RETRYABLE.has(sqlState(error) ?? '')) continue;
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }
}
