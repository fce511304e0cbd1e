// Runs driven by other processes (a terminal's `ringmaster run`, a worker) reach the WebSocket through the store:
// their new event rows are polled in insertion order and published like the events of runs driven here.
import { storedEvent } from '../manager/event-rows.js';
import type { RunEvent } from '../runner/events.js';
import type { Store } from '../store/index.js';

/** Options of the watcher. */
export interface StoreWatcherOptions {
  store: Store;
  /** True for runs whose events this process already publishes as they are emitted. */
  isLocal(runId: string): boolean;
  publish(event: RunEvent): void;
  intervalMs?: number;
  onError?(error: Error): void;
}

/** Polls the store for events written by other processes; stop() ends it. */
export async function watchStore(options: StoreWatcherOptions): Promise<{ stop(): void }> {
  let cursor = await options.store.lastEventId();
  let busy = false;
  const poll = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      for (;;) {
        const rows = await options.store.listEventsAfterId(cursor, 1000);
        for (const row of rows) if (!options.isLocal(row.run_id)) options.publish(storedEvent(row));
        cursor = rows.at(-1)?.id ?? cursor;
        if (rows.length < 1000) break;
      }
    } catch (error) {
      options.onError?.(error as Error);
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void poll(), options.intervalMs ?? 200);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
