// Stored event rows as run events, parsed with the one event schema: the row's run id, seq and time are the
// truth (payloads of databases written before events carried them lack them). A row no schema of this version
// reads (damaged, or written by a newer version) becomes a warning at its own seq, so readers see no gap.
import { runEventSchema, type RunEvent } from '../runner/events.js';
import type { EventRow } from '../store/rows.js';

/** The run event a stored row holds. */
export function storedEvent(row: EventRow): RunEvent {
  const payload = typeof row.payload === 'object' && row.payload !== null ? (row.payload as Record<string, unknown>) : {};
  const head = { run_id: row.run_id, seq: row.seq, time: row.at };
  const parsed = runEventSchema.safeParse({ ...payload, type: row.type, ...head });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const why = issue === undefined ? 'unreadable' : `${issue.path.join('.') || 'payload'}: ${issue.message}`;
  return { type: 'warning', ...head, message: `stored event ${row.seq} (${row.type}) cannot be read by this version (${why})` };
}
