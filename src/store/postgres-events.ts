// Events and control requests of the PostgreSQL store. Event rows get a global id in commit order (under a
// transaction-scoped advisory lock), so "every event after id N" never skips a row that commits late; the
// migration's triggers NOTIFY ringmaster_events / ringmaster_control for each new row.
import { StoreError } from './errors.js';
import { inTransaction, query, sqlState } from './postgres-pool.js';
import type { Queryable } from './postgres-pool.js';
import { controlRowSchema, eventRowSchema } from './rows.js';
import type { ControlRow, EventRow, EventRowWithId } from './rows.js';
import type { NewControl, NewEvent } from './store.js';
import type pg from 'pg';

/** Advisory lock key pair ('RING', 2) that orders event inserts. */
export const EVENT_ORDER_LOCK: readonly [number, number] = [0x52494e47, 2];

const EVENT_COLUMNS = 'run_id, seq, at, type, iteration, payload_json AS payload';
const CONTROL_COLUMNS = 'id, run_id, action, options_json AS options, requested_by, requested_at, handled_at, result';

/** Inserts an event with its owner-given seq, or (without one) the run's next seq. */
export async function appendEvent(pool: pg.Pool, event: NewEvent): Promise<EventRow> {
  const values = [event.run_id, event.at, event.type, event.iteration ?? null, JSON.stringify(event.payload ?? null)];
  if (event.seq !== undefined) {
    // One statement: the lock is taken before the identity default is drawn, and held until commit.
    try {
      const { rows } = await query(pool, 
        `WITH ordered AS MATERIALIZED (SELECT pg_advisory_xact_lock($6, $7))
         INSERT INTO events (run_id, seq, at, type, iteration, payload_json)
         SELECT $1, $8, $2, $3, $4, $5 FROM ordered RETURNING ${EVENT_COLUMNS}`,
        [...values, ...EVENT_ORDER_LOCK, event.seq],
      );
      return eventRowSchema.parse(rows[0]);
    } catch (error) {
      if (sqlState(error) === '23505') {
        // The same event written by an earlier attempt whose answer was lost (a retry after a dropped connection).
        const { rows } = await query(pool, `SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = $1 AND seq = $2`, [event.run_id, event.seq]);
        const existing = rows[0] === undefined ? null : eventRowSchema.parse(rows[0]);
        if (existing && existing.type === event.type && existing.at === event.at) return existing;
        throw new StoreError(`appendEvent: run ${event.run_id} already has event ${event.seq}`, { cause: error });
      }
      if (sqlState(error) === '23503') throw new StoreError(`appendEvent: no run ${event.run_id}`, { cause: error });
      throw error;
    }
  }
  return inTransaction(pool, async (db) => {
    // The next statement runs with a fresh snapshot once the lock is ours: it sees every committed seq.
    await query(db, 'SELECT pg_advisory_xact_lock($1, $2)', [...EVENT_ORDER_LOCK]);
    const { rows } = await query(db, 
      `INSERT INTO events (run_id, seq, at, type, iteration, payload_json)
       SELECT r.id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE run_id = r.id), $2, $3, $4, $5 FROM runs r WHERE r.id = $1
       RETURNING ${EVENT_COLUMNS}`,
      values,
    );
    if (rows[0] === undefined) throw new StoreError(`appendEvent: no run ${event.run_id}`);
    return eventRowSchema.parse(rows[0]);
  });
}

/** A run's events after `afterSeq`, at most `limit`. */
export async function listEvents(db: Queryable, runId: string, afterSeq: number, limit: number | null): Promise<EventRow[]> {
  const { rows } = await query(db, `SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [runId, afterSeq, limit]);
  return rows.map((row) => eventRowSchema.parse(row));
}

/** Every run's events after global id `afterId`, in id order. */
export async function listEventsAfterId(db: Queryable, afterId: number, limit: number): Promise<EventRowWithId[]> {
  const { rows } = await query<{ id: number }>(db, `SELECT id, ${EVENT_COLUMNS} FROM events WHERE id > $1 ORDER BY id LIMIT $2`, [afterId, limit]);
  return rows.map((row) => ({ ...eventRowSchema.parse(row), id: row.id }));
}

/** The highest seq of a run (0 when none). */
export async function lastEventSeq(db: Queryable, runId: string): Promise<number> {
  const { rows } = await query<{ seq: number }>(db, 'SELECT COALESCE(MAX(seq), 0) AS seq FROM events WHERE run_id = $1', [runId]);
  return rows[0]?.seq ?? 0;
}

/** The highest global event id (0 when none). */
export async function lastEventId(db: Queryable): Promise<number> {
  const { rows } = await query<{ id: number }>(db, 'SELECT COALESCE(MAX(id), 0) AS id FROM events');
  return rows[0]?.id ?? 0;
}

/** Writes a control request (announced to the run's owner by the migration's trigger). */
export async function requestControl(db: Queryable, request: NewControl): Promise<ControlRow> {
  try {
    const { rows } = await query(db, 
      `INSERT INTO control_requests (run_id, action, options_json, requested_by, requested_at)
       VALUES ($1, $2, $3, $4, $5) RETURNING ${CONTROL_COLUMNS}`,
      [request.run_id, request.action, JSON.stringify(request.options ?? {}), request.requested_by ?? null, request.requested_at],
    );
    return controlRowSchema.parse(rows[0]);
  } catch (error) {
    if (sqlState(error) === '23503') throw new StoreError(`requestControl: no run ${request.run_id}`, { cause: error });
    throw error;
  }
}

/** Unanswered requests of one run, or of every run, oldest first. */
export async function pendingControls(db: Queryable, runId: string | null): Promise<ControlRow[]> {
  const { rows } = await query(db, 
    `SELECT ${CONTROL_COLUMNS} FROM control_requests WHERE handled_at IS NULL AND ($1::text IS NULL OR run_id = $1) ORDER BY id`,
    [runId],
  );
  return rows.map((row) => controlRowSchema.parse(row));
}

/** One request, or null. */
export async function getControl(db: Queryable, id: number): Promise<ControlRow | null> {
  const { rows } = await query(db, `SELECT ${CONTROL_COLUMNS} FROM control_requests WHERE id = $1`, [id]);
  return rows[0] === undefined ? null : controlRowSchema.parse(rows[0]);
}

/** Answers a request (the first answer wins). */
export async function markControlHandled(db: Queryable, id: number, now: number, result: string): Promise<void> {
  await query(db, 'UPDATE control_requests SET handled_at = $2, result = $3 WHERE id = $1 AND handled_at IS NULL', [id, now, result]);
}
