// A store that announces new rows (PostgreSQL's LISTEN/NOTIFY) so that watchers wake at once instead of waiting
// for their next poll. Kept apart from the driver: checking for it never loads the PostgreSQL driver.

/** The store's notification channels and their names in the database (`queue`: a run job was queued for the workers). */
export const CHANNELS = { events: 'ringmaster_events', control: 'ringmaster_control', queue: 'ringmaster_queue' } as const;

/** A channel name of CHANNELS. */
export type Channel = keyof typeof CHANNELS;

/** A running subscription. */
export interface Subscription {
  close(): Promise<void>;
}

/** A store that can announce new rows (PostgreSQL); SQLite users poll instead. */
export interface WatchableStore {
  /** Calls `onNotice` with each notification's JSON payload; `onReady` after each (re)connection. */
  watch(channel: Channel, onNotice: (payload: unknown) => void, onReady?: () => void): Promise<Subscription>;
}

/** True when `store` can announce new rows. */
export function isWatchable(store: object): store is WatchableStore {
  return typeof (store as Partial<WatchableStore>).watch === 'function';
}
