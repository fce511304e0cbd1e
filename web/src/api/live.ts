// The dashboard's live link to the server: one WebSocket on /api/ws subscribed to every run ('*', activity as
// summaries) and, in full, to the runs a page watches. It is reopened after any drop with the last seq seen of
// each run (`since`), so nothing is missed and nothing is applied twice (EventFeed). Events are handed on in
// batches; agent activity as it comes. A ping every PING_MS finds a connection that died silently.
import { EventFeed } from '../lib/event-feed.js';
import { retryDelay } from '../lib/reconnect.js';
import { serverMessageSchema, type AgentActivity, type ClientMessage, type RunEvent } from './api-types.js';
import { eventsAfter } from './client.js';

/** State of the connection, for the banner. */
export type LinkState =
  | { kind: 'connecting'; attempt: number }
  | { kind: 'open' }
  | { kind: 'closed'; attempt: number; retryAt: number; reason: string };

/** A piece of live activity of a run; `summary`: the once-a-second short form sent for '*' (not a whole piece). */
export interface LiveActivity {
  run_id: string;
  activity: AgentActivity;
  summary: boolean;
}

/** What the connection reports to the app. */
export interface LiveHandlers {
  /** Events in seq order per run, each once. */
  events(batch: RunEvent[]): void;
  /** Agent activity of running iterations (live only). */
  activity(batch: LiveActivity[]): void;
  /** A run sent events before any snapshot of it was seeded: fetch it, then call `seed`. */
  unknownRun(runId: string): void;
  /** The server confirmed a subscription: events from here on come live (watched runs: activity too). */
  subscribed(runs: '*' | string[]): void;
  /** The connection opened; `reconnected` when it had been open before (snapshots may be stale). */
  opened(reconnected: boolean): void;
  state(state: LinkState): void;
}

/** How often queued events are handed on (ms): many events, one render. */
export const FLUSH_MS = 50;

/** A ping this often (ms); a connection with nothing received for twice as long is closed and reopened. */
export const PING_MS = 20_000;

/** The live connection. Call `start()` once; `stop()` closes it for good. */
export class LiveConnection {
  readonly feed = new EventFeed<RunEvent>();
  readonly #url: string;
  readonly #handlers: LiveHandlers;
  #socket: WebSocket | null = null;
  #attempt = 0;
  #everOpened = false;
  #lastHeard = 0;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  #flushTimer: ReturnType<typeof setTimeout> | null = null;
  #pingTimer: ReturnType<typeof setInterval> | null = null;
  #queuedEvents: RunEvent[] = [];
  #queuedActivity: LiveActivity[] = [];
  readonly #backfilling = new Set<string>();
  /** Runs a page shows in full, with how many pages watch each. */
  readonly #watched = new Map<string, number>();
  #stopped = false;

  constructor(url: string, handlers: LiveHandlers) {
    this.#url = url;
    this.#handlers = handlers;
  }

  /** Opens the socket (and keeps reopening it until `stop`). */
  start(): void {
    this.#stopped = false;
    this.#open();
  }

  /** Closes the socket and cancels every timer. */
  stop(): void {
    this.#stopped = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    if (this.#pingTimer) clearInterval(this.#pingTimer);
    this.#socket?.close(1000, 'page closed');
    this.#socket = null;
  }

  /** Retries at once (the "Reconnect now" button, the browser coming back online). */
  retryNow(): void {
    if (this.#stopped || this.#socket !== null) return;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#open();
  }

  /** True while the socket is open. */
  get isOpen(): boolean {
    return this.#socket?.readyState === WebSocket.OPEN;
  }

  /** A snapshot of a run reflects its events up to `lastSeq`: a run not followed yet is followed from there. */
  seed(runId: string, lastSeq: number): void {
    this.#queue(this.feed.seed(runId, lastSeq));
  }

  /**
   * The events a snapshot that reflects `lastSeq` misses, up to what the feed has delivered (from memory, or from
   * GET /api/runs/:id/events when the snapshot is further behind than the feed remembers).
   */
  async catchUp(runId: string, lastSeq: number): Promise<RunEvent[]> {
    const recent = this.feed.deliveredAfter(runId, lastSeq);
    if (recent !== null) return recent;
    const fetched = await eventsAfter(runId, lastSeq, 10_000);
    return [...fetched, ...(this.feed.deliveredAfter(runId, fetched.at(-1)?.seq ?? lastSeq) ?? [])];
  }

  /**
   * Follows a run in full (its activity whole, not summarised) until `unwatch`. Every call subscribes again, so
   * every watcher gets a `subscribed` confirmation to start from.
   */
  watch(runId: string): void {
    this.#watched.set(runId, (this.#watched.get(runId) ?? 0) + 1);
    this.#subscribeWatched([runId]);
  }

  /** Stops following a run in full (its events still come through '*'). */
  unwatch(runId: string): void {
    const count = this.#watched.get(runId) ?? 0;
    if (count > 1) {
      this.#watched.set(runId, count - 1);
      return;
    }
    this.#watched.delete(runId);
    this.#send({ type: 'unsubscribe', runs: [runId] });
  }

  #subscribeWatched(runs: string[]): void {
    if (runs.length === 0) return;
    const since: Record<string, number> = {};
    for (const id of runs) {
      const last = this.feed.lastSeq(id);
      if (last !== null) since[id] = last;
    }
    this.#send({ type: 'subscribe', runs, since, activity: 'full' });
  }

  #send(message: ClientMessage): void {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(message));
  }

  #open(): void {
    this.#retryTimer = null;
    this.#handlers.state({ kind: 'connecting', attempt: this.#attempt });
    const socket = new WebSocket(this.#url);
    this.#socket = socket;
    socket.onopen = () => {
      this.#attempt = 0;
      this.#lastHeard = Date.now();
      this.#send({ type: 'subscribe', runs: '*', since: this.feed.since(), activity: 'summary' });
      this.#subscribeWatched([...this.#watched.keys()]);
      this.#pingTimer = setInterval(() => this.#ping(socket), PING_MS);
      this.#handlers.state({ kind: 'open' });
      this.#handlers.opened(this.#everOpened);
      this.#everOpened = true;
    };
    socket.onmessage = (message: MessageEvent) => {
      this.#lastHeard = Date.now();
      if (typeof message.data === 'string') this.#receive(message.data);
    };
    socket.onclose = (close: CloseEvent) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      if (this.#pingTimer) clearInterval(this.#pingTimer);
      this.#pingTimer = null;
      if (this.#stopped) return;
      const delay = retryDelay(this.#attempt, Math.random());
      this.#attempt++;
      this.#handlers.state({ kind: 'closed', attempt: this.#attempt, retryAt: Date.now() + delay, reason: close.reason || `connection closed (${close.code})` });
      this.#retryTimer = setTimeout(() => this.#open(), delay);
    };
  }

  #ping(socket: WebSocket): void {
    if (Date.now() - this.#lastHeard > 2 * PING_MS) {
      socket.close(4000, 'no answer from the server');
      return;
    }
    this.#send({ type: 'ping' });
  }

  #receive(text: string): void {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return;
    }
    const parsed = serverMessageSchema.safeParse(data);
    if (!parsed.success) return;
    const message = parsed.data;
    switch (message.type) {
      case 'activity':
        this.#queuedActivity.push({ run_id: message.run_id, activity: message.activity, summary: message.summary === true });
        this.#scheduleFlush();
        return;
      case 'event':
        this.#accept(message.event);
        return;
      case 'subscribed':
        // Events queued before the confirmation go first: whoever reacts to it sees a feed that is up to date.
        this.#flush();
        this.#handlers.subscribed(message.runs);
        return;
      case 'error':
        console.warn(`ringmaster server: ${message.error.code}: ${message.error.message}`);
        return;
      case 'hello':
      case 'pong':
        return;
    }
  }

  #accept(event: RunEvent): void {
    const result = this.feed.accept(event);
    this.#queue(result.ready);
    if (result.needsSeed) this.#handlers.unknownRun(event.run_id);
    if (result.gap !== null) void this.#backfill(result.gap.run_id, result.gap.after_seq);
  }

  async #backfill(runId: string, afterSeq: number): Promise<void> {
    if (this.#backfilling.has(runId)) return;
    this.#backfilling.add(runId);
    try {
      for (const event of await eventsAfter(runId, afterSeq)) this.#accept(event);
    } catch {
      // The next reconnect resubscribes with `since` and gets the same events replayed.
    } finally {
      this.#backfilling.delete(runId);
    }
  }

  #queue(events: RunEvent[]): void {
    if (events.length === 0) return;
    this.#queuedEvents.push(...events);
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#flushTimer !== null) return;
    this.#flushTimer = setTimeout(() => this.#flush(), FLUSH_MS);
  }

  #flush(): void {
    if (this.#flushTimer !== null) clearTimeout(this.#flushTimer);
    this.#flushTimer = null;
    const events = this.#queuedEvents;
    const activity = this.#queuedActivity;
    this.#queuedEvents = [];
    this.#queuedActivity = [];
    if (events.length > 0) this.#handlers.events(events);
    if (activity.length > 0) this.#handlers.activity(activity);
  }
}

/** The WebSocket URL of the API on the page's own origin. */
export function liveUrl(location: Location): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/ws`;
}
