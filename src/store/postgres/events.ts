// Events and control requests of the PostgreSQL store. Event rows get a global id in commit order (under a
// transaction-scoped advisory lock), so "every event after id N" never skips a row that commits late; the
// migration's triggers NOTIFY ringmaster_events / ringmaster_control for each new row.
import { OwnershipLostError, StoreError } from '../errors.js';
import { checkFence, DB_NOW } from './fence.js';
import { inTransaction, query, sqlState } from './pool.js';
import type { Queryable } from './pool.js';
import { controlRowSchema, eventRowSchema } from '../rows.js';
import { CONTROL_COLUMNS, EVENT_COLUMNS } from '../sql-columns.js';
import type { ControlRow, EventRow, EventRowWithId } from '../rows.js';
import type { Fence, NewControl, NewEvent } from '../store.js';
import type pg from 'pg';

/** Advisory lock key pair ('RING', 2) that orders event inserts. */
export const EVENT_ORDER_LOCK: readonly [number, number] = [0x52494e47, 2];


/**
 * Inserts events in order, all or none: the owner-given seqs of one run in one statement (one round trip for a
 * recorder's batch), else one by one in a transaction (a missing seq is the run's next one). Behind the fence
 * when given. A batch whose rows all exist already (a retry after a lost answer) returns them.
 */
export async function appendEvents(pool: pg.Pool, events: readonly NewEvent[], fence?: Fence): Promise<EventRow[]> {
  const first = events[0];
  if (first === undefined) return [];
  const oneRun = events.every((e) => e.run_id === first.run_id && e.seq !== undefined);
  if (!oneRun) {
    return inTransaction(pool, async (db) => {
      for (const runId of new Set(events.map((e) => e.run_id))) await checkFence(db, runId, fence, 'appendEvent');
      const rows: EventRow[] = [];
      for (const event of events) rows.push(event.seq === undefined ? await insertNext(db, event) : (await insertGiven(db, event.run_id, [event], undefined))[0] as EventRow);
      return rows;
    });
  }
  try {
    const rows = await insertGiven(pool, first.run_id, events, fence);
    if (rows.length === 0 && fence) throw new OwnershipLostError(first.run_id, fence, 'appendEvent');
    return rows;
  } catch (error) {
    if (sqlState(error) === '23505') return alreadyWritten(pool, first.run_id, events, fence, error);
    if (sqlState(error) === '23503') throw new StoreError(`appendEvent: no run ${first.run_id}`, { cause: error });
    throw error;
  }
}

/**
 * One statement: the event-order lock is taken before any identity value is drawn and held to commit, so
 * global ids become visible in increasing order; the fence's owner row is renewed in the same statement.
 */
async function insertGiven(db: Queryable, runId: string, events: readonly NewEvent[], fence: Fence | undefined): Promise<EventRow[]> {
  const { rows } = await query(
    db,
    `WITH ordered AS MATERIALIZED (SELECT pg_advisory_xact_lock($1, $2)),
     owner AS (UPDATE run_owners SET renewed_at = ${DB_NOW} WHERE $4::int IS NOT NULL AND run_id = $3 AND pid = $4 AND host = $5 AND ended_at IS NULL RETURNING 1)
     INSERT INTO events (run_id, seq, at, type, iteration, payload_json)
     SELECT $3, e.seq, e.at, e.type, e.iteration, e.payload
     FROM ordered, unnest($6::int[], $7::bigint[], $8::text[], $9::int[], $10::text[]) WITH ORDINALITY AS e(seq, at, type, iteration, payload, ord)
     WHERE $4::int IS NULL OR EXISTS (SELECT 1 FROM owner)
     ORDER BY e.ord
     RETURNING ${EVENT_COLUMNS}`,
    [
      ...EVENT_ORDER_LOCK,
      runId,
      fence?.pid ?? null,
      fence?.host ?? null,
      events.map((e) => e.seq),
      events.map((e) => e.at),
      events.map((e) => e.type),
      events.map((e) => e.iteration ?? null),
      events.map((e) => JSON.stringify(e.payload ?? null)),
    ],
  );
  return rows.map((row) => eventRowSchema.parse(row));
}

/** The run's next seq, under the event-order lock (the next statement sees every committed seq). */
async function insertNext(db: Queryable, event: NewEvent): Promise<EventRow> {
  await query(db, 'SELECT pg_advisory_xact_lock($1, $2)', [...EVENT_ORDER_LOCK]);
  const { rows } = await query(
    db,
    `INSERT INTO events (run_id, seq, at, type, iteration, payload_json)
     SELECT r.id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE run_id = r.id), $2, $3, $4, $5 FROM runs r WHERE r.id = $1
     RETURNING ${EVENT_COLUMNS}`,
    [event.run_id, event.at, event.type, event.iteration ?? null, JSON.stringify(event.payload ?? null)],
  );
  if (rows[0] === undefined) throw new StoreError(`appendEvent: no run ${event.run_id}`);
  return eventRowSchema.parse(rows[0]);
}

/**
 * A duplicate seq: events written by an earlier attempt whose answer was lost (the same type and time), maybe
 * with later ones that were not (a recorder writes a failed batch again together with the next): the missing
 * ones are inserted and every row returned. Any other event under one of these seqs is a real duplicate.
 */
async function alreadyWritten(pool: pg.Pool, runId: string, events: readonly NewEvent[], fence: Fence | undefined, error: unknown): Promise<EventRow[]> {
  const seqs = events.map((e) => e.seq ?? 0);
  const { rows } = await query(pool, `SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = $1 AND seq = ANY($2::int[]) ORDER BY seq`, [runId, seqs]);
  const existing = new Map(rows.map((row) => eventRowSchema.parse(row)).map((row) => [row.seq, row] as const));
  const clash = events.find((e) => existing.has(e.seq ?? 0) && (existing.get(e.seq ?? 0)?.type !== e.type || existing.get(e.seq ?? 0)?.at !== e.at));
  if (clash !== undefined) throw new StoreError(`appendEvent: run ${runId} already has event ${clash.seq ?? 0}`, { cause: error });
  const missing = events.filter((e) => !existing.has(e.seq ?? 0));
  if (missing.length > 0) {
    const added = await insertGiven(pool, runId, missing, fence);
    if (added.length === 0 && fence) throw new OwnershipLostError(runId, fence, 'appendEvent');
    for (const row of added) existing.set(row.seq, row);
  }
  return events.map((e) => existing.get(e.seq ?? 0) as EventRow);
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
