// The dashboard's live link to the server: one WebSocket on /api/ws subscribed to every run, reopened
// after any drop with the last seq seen of each run (`since`), so nothing is missed and nothing is
// applied twice (EventFeed). Events are handed on in batches; agent activity as it comes.
import { EventFeed } from '../lib/event-feed.js';
import { retryDelay } from '../lib/reconnect.js';
import type { FeedEvent } from '../lib/run-reducer.js';
import { runEventSchema, serverMessageSchema, type AgentActivity, type SubscribeMessage } from './api-types.js';
import { eventsAfter } from './client.js';

/** State of the connection, for the banner. */
export type LinkState =
  | { kind: 'connecting'; attempt: number }
  | { kind: 'open' }
  | { kind: 'closed'; attempt: number; retryAt: number; reason: string };

/** What the connection reports to the app. */
export interface LiveHandlers {
  /** Events in seq order per run, each once. */
  events(batch: FeedEvent[]): void;
  /** Agent activity of running iterations (live only). */
  activity(batch: Array<{ run_id: string; activity: AgentActivity }>): void;
  /** A run sent events before any snapshot of it was seeded: fetch it, then call `seed`. */
  unknownRun(runId: string): void;
  /** The connection (re)opened: snapshots may be stale, refetch them. */
  opened(): void;
  state(state: LinkState): void;
}

/** How often queued events are handed on (ms): many events, one render. */
export const FLUSH_MS = 50;

function toFeedEvent(message: { run_id: string; seq: number; time: number; event: unknown }): FeedEvent {
  const body = message.event !== null && typeof message.event === 'object' ? message.event : {};
  const parsed = runEventSchema.safeParse({ ...body, run_id: message.run_id, seq: message.seq, time: message.time });
  if (parsed.success) return parsed.data;
  const type = (body as { type?: unknown }).type;
  return { type: 'unknown', run_id: message.run_id, seq: message.seq, time: message.time, original_type: typeof type === 'string' ? type : '?' };
}

/** The live connection. Call `start()` once; `stop()` closes it for good. */
export class LiveConnection {
  readonly feed = new EventFeed<FeedEvent>();
  readonly #url: string;
  readonly #handlers: LiveHandlers;
  #socket: WebSocket | null = null;
  #attempt = 0;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  #flushTimer: ReturnType<typeof setTimeout> | null = null;
  #queuedEvents: FeedEvent[] = [];
  #queuedActivity: Array<{ run_id: string; activity: AgentActivity }> = [];
  readonly #backfilling = new Set<string>();
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
    this.#socket?.close(1000, 'page closed');
    this.#socket = null;
  }

  /** Retries at once (the "Reconnect now" button, the browser coming back online). */
  retryNow(): void {
    if (this.#stopped || this.#socket !== null) return;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#open();
  }

  /** A snapshot of a run reflects its events up to `lastSeq`: later held-back events are delivered. */
  seed(runId: string, lastSeq: number): void {
    this.#queue(this.feed.seed(runId, lastSeq));
  }

  #open(): void {
    this.#retryTimer = null;
    this.#handlers.state({ kind: 'connecting', attempt: this.#attempt });
    const socket = new WebSocket(this.#url);
    this.#socket = socket;
    socket.onopen = () => {
      this.#attempt = 0;
      const subscribe: SubscribeMessage = { type: 'subscribe', runs: '*', since: this.feed.since() };
      socket.send(JSON.stringify(subscribe));
      this.#handlers.state({ kind: 'open' });
      this.#handlers.opened();
    };
    socket.onmessage = (message: MessageEvent) => {
      if (typeof message.data === 'string') this.#receive(message.data);
    };
    socket.onclose = (close: CloseEvent) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      if (this.#stopped) return;
      const delay = retryDelay(this.#attempt, Math.random());
      this.#attempt++;
      this.#handlers.state({ kind: 'closed', attempt: this.#attempt, retryAt: Date.now() + delay, reason: close.reason || `connection closed (${close.code})` });
      this.#retryTimer = setTimeout(() => this.#open(), delay);
    };
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
    if (message.type === 'activity') {
      this.#queuedActivity.push({ run_id: message.run_id, activity: message.activity });
      this.#scheduleFlush();
    } else if (message.type === 'event') {
      this.#accept(toFeedEvent(message));
    }
  }

  #accept(event: FeedEvent): void {
    const result = this.feed.accept(event);
    this.#queue(result.ready);
    if (result.needsSeed) this.#handlers.unknownRun(event.run_id);
    if (result.gap !== null) void this.#backfill(result.gap.run_id, result.gap.after_seq);
  }

  async #backfill(runId: string, afterSeq: number): Promise<void> {
    if (this.#backfilling.has(runId)) return;
    this.#backfilling.add(runId);
    try {
      const events = await eventsAfter(runId, afterSeq);
      for (const event of events) this.#accept(event);
    } catch {
      // The next reconnect resubscribes with `since` and gets the same events replayed.
    } finally {
      this.#backfilling.delete(runId);
    }
  }

  #queue(events: FeedEvent[]): void {
    if (events.length === 0) return;
    this.#queuedEvents.push(...events);
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#flushTimer !== null) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = null;
      const events = this.#queuedEvents;
      const activity = this.#queuedActivity;
      this.#queuedEvents = [];
      this.#queuedActivity = [];
      if (events.length > 0) this.#handlers.events(events);
      if (activity.length > 0) this.#handlers.activity(activity);
    }, FLUSH_MS);
  }
}

/** The WebSocket URL of the API on the page's own origin. */
export function liveUrl(location: Location): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/ws`;
}
