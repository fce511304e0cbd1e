// The output view's link to the live run: stored activity of the iterations from the view's first one to the newest,
// then live activity as it arrives. Each time the server confirms the run's subscription (on opening and after every
// reconnect) it syncs again from the last iteration it has, holding live pieces back meanwhile; stored and live
// copies of a piece are taken once (OutputLog merges by index and byte offset).
import { useEffect, useRef, useState } from 'react';
import type { AgentActivity } from '../api/api-types.js';
import { ApiError, iterationActivity } from '../api/client.js';
import type { OutputLog } from '../lib/output-log.js';
import { useLive } from './live.js';

/** An iteration's stored activity; an iteration that has not started yet has no log: nothing to show. */
export async function storedActivity(runId: string, iteration: number): Promise<{ activity: AgentActivity[]; truncated: boolean }> {
  return iterationActivity(runId, iteration).catch((e: unknown) => {
    if (e instanceof ApiError && e.code === 'not_found') return { activity: [], truncated: false };
    throw e;
  });
}

/** What the sync says: a load error, whether a log was cut, whether the first load is done. */
export interface SyncState {
  loadError: string | null;
  truncated: boolean;
  synced: boolean;
}

/**
 * Keeps `log` in sync with the run from `iteration` (only that one with `only`); with `listening`, live activity is
 * appended as it comes. `onAdded` hears how many rows each batch added.
 */
export function useOutputSync(log: OutputLog, o: { runId: string; iteration: number; only: boolean; listening: boolean; latest: () => number; onAdded: (rows: number) => void }): SyncState {
  const { onActivity, onSubscribed, connection } = useLive();
  const [state, setState] = useState<SyncState>({ loadError: null, truncated: false, synced: false });
  const latest = useRef(o.latest);
  const onAdded = useRef(o.onAdded);
  useEffect(() => {
    latest.current = o.latest;
    onAdded.current = o.onAdded;
  });
  const { runId, iteration, only, listening } = o;

  useEffect(() => {
    let generation = 0;
    let inSync = false;
    const held: AgentActivity[] = [];
    const add = (batch: AgentActivity[]) => {
      const added = log.append(batch);
      if (added > 0) onAdded.current(added);
    };
    const sync = async (): Promise<void> => {
      const current = ++generation;
      inSync = false;
      const from = log.lastIteration ?? iteration;
      const heldLast = held.reduce((max, a) => Math.max(max, a.iteration), 0);
      const to = only ? iteration : Math.max(from, latest.current(), heldLast);
      const stored: AgentActivity[] = [];
      let cut = false;
      let loadError: string | null = null;
      try {
        for (let n = from; n <= to; n++) {
          const result = await storedActivity(runId, n);
          stored.push(...result.activity);
          cut ||= result.truncated;
        }
      } catch (e) {
        loadError = (e as Error).message;
      }
      if (current !== generation) return;
      add([...stored, ...held]);
      held.length = 0;
      inSync = true;
      setState((s) => ({ loadError, truncated: s.truncated || cut, synced: true }));
    };
    if (!listening) {
      void sync();
      return () => {
        generation++;
      };
    }
    const offActivity = onActivity(runId, (batch) => {
      const pieces = batch.filter((a) => (only ? a.iteration === iteration : a.iteration >= iteration));
      if (inSync) add(pieces);
      else held.push(...pieces);
    });
    const offSubscribed = onSubscribed(runId, () => void sync());
    connection.watch(runId);
    return () => {
      generation++;
      offActivity();
      offSubscribed();
      connection.unwatch(runId);
    };
  }, [log, onActivity, onSubscribed, connection, runId, iteration, only, listening]);
  return state;
}
