// Stored event rows as run events: the row's run id, seq and time are the truth (payloads of databases written
// before events carried them lack them).
import type { RunEvent } from '../runner/events.js';
import type { EventRow } from '../store/rows.js';

/** The run event a stored row holds. */
export function storedEvent(row: EventRow): RunEvent {
  const payload = typeof row.payload === 'object' && row.payload !== null ? (row.payload as Record<string, unknown>) : {};
  return { ...payload, type: row.type, run_id: row.run_id, seq: row.seq, time: row.at } as RunEvent;
}
