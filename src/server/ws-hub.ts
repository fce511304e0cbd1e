// The WebSocket fan-out: clients subscribe to runs (or '*') with the last seq they have of each; the hub replays
// stored events after it, then streams live ones. Per client and run, events leave in seq order and never twice;
// a client whose send queue grows past its bound is disconnected with a reason (a slow client never slows a loop).
import type { WebSocket } from 'ws';
import type { AgentActivity, RunEvent } from '../runner/events.js';
import { storedEvent } from '../manager/event-rows.js';
import type { Store } from '../store/index.js';
import { clientMessageSchema, type ClientMessage, type ServerMessage } from './schemas.js';

/** What the hub needs from the rest of the server. */
export interface HubDeps {
  store: Store;
  /** Events of runs driven in this process that the store does not have yet. */
  unstoredEvents(runId: string): RunEvent[];
  version: string;
  now(): number;
  /** A client with more than this many bytes waiting to be sent is disconnected (default 1 MiB). */
  maxBufferedBytes?: number;
  /** Summaries of activity for '*' subscribers are sent at most this often per run (default 1000 ms). */
  summaryIntervalMs?: number;
}

type ActivityMode = 'full' | 'summary' | 'none';

interface Client {
  ws: WebSocket;
  all: boolean;
  allActivity: ActivityMode;
  runs: Map<string, ActivityMode>;
  /** Last seq sent per run: nothing at or below it is sent again. */
  lastSent: Map<string, number>;
  /** Runs being replayed: live events for them wait here, in order. */
  replaying: Map<string, RunEvent[]>;
  /** Latest activity per run not yet sent as a summary. */
  summaries: Map<string, AgentActivity>;
  /** Whether its credential still holds (a browser session can end); null: it cannot end (a token, --no-auth). */
  allowed: (() => boolean) | null;
}

/** Close code of a client disconnected for falling behind. */
export const SLOW_CLIENT_CLOSE = 4008;
/** Close code of a client whose session ended (signed out). */
export const SESSION_ENDED_CLOSE = 4001;
const REPLAY_PAGE = 1000;

/** The WebSocket clients of one server. */
export class EventHub {
  private readonly clients = new Set<Client>();
  private readonly deps: HubDeps;
  private readonly summaryTimer: NodeJS.Timeout;

  constructor(deps: HubDeps) {
    this.deps = deps;
    this.summaryTimer = setInterval(() => this.flushSummaries(), deps.summaryIntervalMs ?? 1000);
    this.summaryTimer.unref();
  }

  /** Number of connected clients. */
  get size(): number {
    return this.clients.size;
  }

  /** Takes over a connected socket; `allowed` says whether its credential still holds (checked by recheck()). */
  attach(ws: WebSocket, allowed: (() => boolean) | null = null): void {
    const client: Client = { ws, all: false, allActivity: 'summary', runs: new Map(), lastSent: new Map(), replaying: new Map(), summaries: new Map(), allowed };
    this.clients.add(client);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return this.send(client, { type: 'error', error: { code: 'invalid_request', message: 'messages are JSON text' } });
      void this.onMessage(client, Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8'));
    });
    ws.on('close', () => this.clients.delete(client));
    ws.on('error', () => this.clients.delete(client));
    this.send(client, { type: 'hello', version: this.deps.version, time: this.deps.now() });
  }

  /** Disconnects the clients whose credential no longer holds (a session was ended): they get nothing more. */
  recheck(): void {
    for (const client of this.clients) {
      if (client.allowed === null || client.allowed()) continue;
      this.clients.delete(client);
      client.ws.close(SESSION_ENDED_CLOSE, 'the session has ended: sign in again');
    }
  }

  /** A new event of any run: to every client subscribed to it, in order. */
  publish(event: RunEvent): void {
    let text: string | null = null;
    for (const client of this.clients) {
      if (!client.all && !client.runs.has(event.run_id)) continue;
      const buffer = client.replaying.get(event.run_id);
      if (buffer) {
        buffer.push(event);
        continue;
      }
      if (event.seq <= (client.lastSent.get(event.run_id) ?? 0)) continue;
      client.lastSent.set(event.run_id, event.seq);
      text ??= JSON.stringify(eventMessage(event));
      this.sendText(client, text);
    }
  }

  /** Live activity of a running iteration: in full to clients that named the run, as a summary to '*'. */
  activity(runId: string, activity: AgentActivity): void {
    let text: string | null = null;
    for (const client of this.clients) {
      const mode = client.runs.get(runId) ?? (client.all ? client.allActivity : 'none');
      if (mode === 'full') {
        text ??= JSON.stringify({ type: 'activity', run_id: runId, activity } satisfies ServerMessage);
        this.sendText(client, text);
      } else if (mode === 'summary' && activity.kind !== 'tool_result') {
        client.summaries.set(runId, activity);
      }
    }
  }

  /** Closes every client (server shutdown). */
  close(): void {
    clearInterval(this.summaryTimer);
    for (const client of this.clients) client.ws.close(1001, 'server shutting down');
    this.clients.clear();
  }

  private async onMessage(client: Client, text: string): Promise<void> {
    let message: ClientMessage;
    try {
      const parsed = clientMessageSchema.safeParse(JSON.parse(text));
      if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'invalid message');
      message = parsed.data;
    } catch (error) {
      this.send(client, { type: 'error', error: { code: 'invalid_request', message: `bad message: ${(error as Error).message}` } });
      return;
    }
    switch (message.type) {
      case 'ping':
        this.send(client, { type: 'pong' });
        return;
      case 'unsubscribe':
        if (message.runs === '*') client.all = false;
        else for (const id of message.runs) client.runs.delete(id);
        return;
      case 'subscribe':
        await this.subscribe(client, message);
    }
  }

  private async subscribe(client: Client, message: Extract<ClientMessage, { type: 'subscribe' }>): Promise<void> {
    const since = message.since ?? {};
    let replay: string[];
    if (message.runs === '*') {
      client.all = true;
      client.allActivity = message.activity ?? 'summary';
      replay = Object.keys(since);
    } else {
      for (const id of message.runs) client.runs.set(id, message.activity ?? 'full');
      replay = message.runs;
    }
    // Live events of these runs are held from now on, so none falls between the replay and the live stream.
    for (const id of replay) if (!client.replaying.has(id)) client.replaying.set(id, []);
    const replayed: Record<string, number> = {};
    for (const id of replay) {
      const after = Math.max(since[id] ?? 0, client.lastSent.get(id) ?? 0);
      client.lastSent.set(id, after);
      try {
        await this.replay(client, id, after);
      } catch (error) {
        this.send(client, { type: 'error', error: { code: 'internal', message: `replay of run ${id}: ${(error as Error).message}` } });
      }
      for (const event of client.replaying.get(id) ?? []) this.deliver(client, event);
      client.replaying.delete(id);
      replayed[id] = client.lastSent.get(id) ?? after;
    }
    this.send(client, { type: 'subscribed', runs: message.runs, replayed });
  }

  private async replay(client: Client, runId: string, after: number): Promise<void> {
    let cursor = after;
    for (;;) {
      const rows = await this.deps.store.listEvents(runId, { afterSeq: cursor, limit: REPLAY_PAGE });
      for (const row of rows) this.deliver(client, storedEvent(row));
      if (rows.length < REPLAY_PAGE) break;
      cursor = rows.at(-1)?.seq ?? cursor;
      if (client.ws.readyState !== client.ws.OPEN) return;
    }
    for (const event of this.deps.unstoredEvents(runId)) this.deliver(client, event);
  }

  private deliver(client: Client, event: RunEvent): void {
    if (event.seq <= (client.lastSent.get(event.run_id) ?? 0)) return;
    client.lastSent.set(event.run_id, event.seq);
    this.send(client, eventMessage(event));
  }

  private flushSummaries(): void {
    for (const client of this.clients) {
      if (client.summaries.size === 0) continue;
      for (const [runId, activity] of client.summaries) this.send(client, { type: 'activity', run_id: runId, activity: summarize(activity), summary: true });
      client.summaries.clear();
    }
  }

  private send(client: Client, message: ServerMessage): void {
    this.sendText(client, JSON.stringify(message));
  }

  private sendText(client: Client, text: string): void {
    const { ws } = client;
    if (ws.readyState !== ws.OPEN) return;
    const max = this.deps.maxBufferedBytes ?? 1024 * 1024;
    if (ws.bufferedAmount + text.length > max) {
      this.clients.delete(client);
      ws.close(SLOW_CLIENT_CLOSE, `slow client: more than ${max} bytes waiting to be sent`);
      return;
    }
    ws.send(text);
  }
}

function eventMessage(event: RunEvent): ServerMessage {
  return { type: 'event', run_id: event.run_id, seq: event.seq, time: event.time, event };
}

/** The short form of an activity that a board card shows: the tool in use, or the last line of output. */
function summarize(activity: AgentActivity): AgentActivity {
  if (activity.kind === 'tool_call') return { ...activity, input: activity.input.slice(0, 200) };
  if (activity.kind === 'text' || activity.kind === 'output') {
    const lines = activity.text.split('\n').filter((l) => l.trim() !== '');
    return { ...activity, text: (lines.at(-1) ?? '').slice(0, 300) };
  }
  return activity;
}
