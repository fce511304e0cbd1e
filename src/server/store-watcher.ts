// Runs driven by other processes (a terminal's `ringmaster run`, a worker) reach the WebSocket through the store:
// their new event rows are read in insertion order and published like the events of runs driven here. With
// PostgreSQL each stored event is announced (NOTIFY), so the watcher reads at once; a slow poll stays as the
// safety net. SQLite has no announcements: it is polled every 200 ms.
import { storedEvent } from '../manager/event-rows.js';
import type { RunEvent } from '../runner/events.js';
import { isWatchable } from '../store/index.js';
import type { Store, Subscription } from '../store/index.js';

/** Options of the watcher. */
export interface StoreWatcherOptions {
  store: Store;
  /** True for runs whose events this process already publishes as they are emitted. */
  isLocal(runId: string): boolean;
  publish(event: RunEvent): void;
  /** Poll interval (default 200 ms; 2 s when the store announces new events). */
  intervalMs?: number;
  onError?(error: Error): void;
}

/** Poll interval of a store that announces new events: only a safety net. */
export const FALLBACK_POLL_MS = 2000;

/** Follows the store's events written by other processes; stop() ends it. */
export async function watchStore(options: StoreWatcherOptions): Promise<{ stop(): Promise<void> }> {
  const { store } = options;
  let cursor = await store.lastEventId();
  let busy = false;
  let again = false;
  const poll = async (): Promise<void> => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        for (;;) {
          const rows = await store.listEventsAfterId(cursor, 1000);
          for (const row of rows) if (!options.isLocal(row.run_id)) options.publish(storedEvent(row));
          cursor = rows.at(-1)?.id ?? cursor;
          if (rows.length < 1000) break;
        }
      } while (again);
    } catch (error) {
      options.onError?.(error as Error);
    } finally {
      busy = false;
    }
  };
  // After every (re)connection the watcher reads what it may have missed while the database was away.
  const subscription: Subscription | null = isWatchable(store) ? await store.watch('events', () => void poll(), () => void poll()) : null;
  const timer = setInterval(() => void poll(), options.intervalMs ?? (subscription ? FALLBACK_POLL_MS : 200));
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await subscription?.close();
    },
  };
}
