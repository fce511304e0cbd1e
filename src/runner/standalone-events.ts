// Events written by a process that does not drive the run (closing an orphaned run, a rollback): stamped with
// the run's next seq numbers so they join its one ordered stream.
import type { Store } from '../store/index.js';
import type { RunEvent, RunEventBody } from './events.js';

/**
 * Appends bodies to the run's stream after its last stored event; returns the stamped events. The row's
 * iteration column is the event's `iteration` field unless `iteration` says otherwise.
 */
export async function appendEventBodies(store: Store, runId: string, bodies: readonly RunEventBody[], iteration?: number | null): Promise<RunEvent[]> {
  let seq = await store.lastEventSeq(runId);
  const stamped: RunEvent[] = [];
  for (const body of bodies) {
    seq += 1;
    const event: RunEvent = { ...body, run_id: runId, seq };
    const own = iteration !== undefined ? iteration : 'iteration' in event ? event.iteration : null;
    await store.appendEvent({ run_id: runId, seq, type: event.type, payload: event, at: event.time, iteration: own === 0 ? null : own });
    stamped.push(event);
  }
  return stamped;
}
