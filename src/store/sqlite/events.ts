// Events and control requests of the SQLite store: events numbered per run (the owner's seq, or the next one),
// a global order by rowid for watchers of every run, control requests kept until their owner answers.
import { StoreError } from '../errors.js';
import { controlRowSchema, eventRowSchema } from '../rows.js';
import { CONTROL_COLUMNS, EVENT_COLUMNS } from '../sql-columns.js';
import type { ControlRow, EventRow, EventRowWithId } from '../rows.js';
import type { SqliteDb } from './db.js';
import type { Fence, NewControl, NewEvent } from '../store.js';

const EVENT_RETURNING = `RETURNING ${EVENT_COLUMNS}`;

/** Appends events in order in one transaction, behind the fence of each run they belong to. */
export function appendEvents(s: SqliteDb, events: readonly NewEvent[], fence?: Fence): EventRow[] {
  if (events.length === 0) return [];
  return s.tx(() => insertEvents(s, events, fence));
}

/** Inside a transaction: fences each run the events belong to (but `fencedRun`, fenced already) and inserts them in order. */
export function insertEvents(s: SqliteDb, events: readonly NewEvent[], fence: Fence | undefined, fencedRun?: string): EventRow[] {
  for (const runId of new Set(events.map((e) => e.run_id))) if (runId !== fencedRun) s.fence(runId, fence, 'appendEvent');
  return events.map((event) => insertEvent(s, event));
}

function insertEvent(s: SqliteDb, event: NewEvent): EventRow {
  const params = { run_id: event.run_id, at: event.at, type: event.type, iteration: event.iteration ?? null, payload: JSON.stringify(event.payload ?? null) };
  let row: unknown;
  if (event.seq !== undefined) {
    const written = writtenRow(event, event.seq, params.payload);
    try {
      s.q('INSERT INTO events (run_id, seq, at, type, iteration, payload_json) VALUES (:run_id, :seq, :at, :type, :iteration, :payload)').run({ ...params, seq: event.seq });
      // The row as written, as RETURNING would give it back (the run's hot path: a batch per iteration, rows unread).
      return written;
    } catch (error) {
      if (!String((error as Error).message).includes('UNIQUE')) throw error;
      // The same event written by an earlier attempt whose answer was lost: it stands (written once).
      const same = s.q(`SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = :run_id AND seq = :seq AND type = :type AND at = :at`).get({ run_id: event.run_id, seq: event.seq, type: event.type, at: event.at });
      if (same === undefined) throw new StoreError(`appendEvent: run ${event.run_id} already has event ${event.seq}`, { cause: error });
      row = same;
    }
  } else {
    // One statement: the sequence number and the row are written atomically.
    row = s
      .q(
        `INSERT INTO events (run_id, seq, at, type, iteration, payload_json)
         SELECT :run_id, COALESCE(MAX(seq), 0) + 1, :at, :type, :iteration, :payload FROM events WHERE run_id = :run_id ${EVENT_RETURNING}`,
      )
      .get(params);
  }
  return eventRowSchema.parse(row);
}

/** The row an event with its seq becomes (checked as eventRowSchema checks a row read back). */
function writtenRow(event: NewEvent, seq: number, payload: string): EventRow {
  const iteration = event.iteration ?? null;
  const whole = (n: number): boolean => Number.isInteger(n) && n >= 0;
  if (!whole(seq) || seq === 0 || !whole(event.at) || event.type === '' || (iteration !== null && (!whole(iteration) || iteration === 0))) {
    throw new StoreError(`appendEvent: invalid event ${JSON.stringify({ run_id: event.run_id, seq, at: event.at, type: event.type, iteration })}`);
  }
  return { run_id: event.run_id, seq, at: event.at, type: event.type, iteration, payload: JSON.parse(payload) as unknown };
}

/** A run's events after `afterSeq`, at most `limit`. */
export function listEvents(s: SqliteDb, runId: string, afterSeq: number, limit: number | null): EventRow[] {
  return s
    .q(`SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = :runId AND seq > :after ORDER BY seq LIMIT :limit`)
    .all({ runId, after: afterSeq, limit: limit ?? -1 })
    .map((row) => eventRowSchema.parse(row));
}

/** The highest seq of a run (0 when none). */
export function lastEventSeq(s: SqliteDb, runId: string): number {
  return (s.q('SELECT COALESCE(MAX(seq), 0) AS seq FROM events WHERE run_id = :runId').get({ runId }) as { seq: number }).seq;
}

/** Every run's events after global id `afterId` (the rowid), in insertion order. */
export function listEventsAfterId(s: SqliteDb, afterId: number, limit: number): EventRowWithId[] {
  const rows = s
    .q(`SELECT rowid AS id, ${EVENT_COLUMNS} FROM events WHERE rowid > :after ORDER BY rowid LIMIT :limit`)
    .all({ after: afterId, limit }) as Array<{ id: number }>;
  return rows.map((row) => ({ ...eventRowSchema.parse(row), id: row.id }));
}

/** The highest global event id (0 when none). */
export function lastEventId(s: SqliteDb): number {
  return (s.q('SELECT COALESCE(MAX(rowid), 0) AS id FROM events').get() as { id: number }).id;
}

/** Writes a control request for the run's owner. */
export function requestControl(s: SqliteDb, request: NewControl): ControlRow {
  if (s.q('SELECT 1 FROM runs WHERE id = :id').get({ id: request.run_id }) === undefined) throw new StoreError(`requestControl: no run ${request.run_id}`);
  const row = s
    .q(`INSERT INTO control_requests (run_id, action, options_json, requested_by, requested_at) VALUES (:run_id, :action, :options, :by, :at) RETURNING ${CONTROL_COLUMNS}`)
    .get({ run_id: request.run_id, action: request.action, options: JSON.stringify(request.options ?? {}), by: request.requested_by ?? null, at: request.requested_at });
  return controlRowSchema.parse(row);
}

/** Unanswered requests of one run, or of every run, oldest first. */
export function pendingControls(s: SqliteDb, runId: string | null): ControlRow[] {
  const rows =
    runId === null
      ? s.q(`SELECT ${CONTROL_COLUMNS} FROM control_requests WHERE handled_at IS NULL ORDER BY id`).all()
      : s.q(`SELECT ${CONTROL_COLUMNS} FROM control_requests WHERE run_id = :runId AND handled_at IS NULL ORDER BY id`).all({ runId });
  return rows.map((row) => controlRowSchema.parse(row));
}

/** One request, or null. */
export function getControl(s: SqliteDb, id: number): ControlRow | null {
  const row = s.q(`SELECT ${CONTROL_COLUMNS} FROM control_requests WHERE id = :id`).get({ id });
  return row === undefined ? null : controlRowSchema.parse(row);
}

/** Answers a request (the first answer wins). */
export function markControlHandled(s: SqliteDb, id: number, now: number, result: string): void {
  s.run('UPDATE control_requests SET handled_at = :now, result = :result WHERE id = :id AND handled_at IS NULL', { id, now, result });
}
