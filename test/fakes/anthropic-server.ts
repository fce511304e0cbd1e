// A scripted fake of the Anthropic Messages API (SSE streaming) for driving the real `claude` CLI in tests.
//
// API
//   const server = await startFakeAnthropic({ conversations: [[turn0, turn1, ...], [...]] });
//   env: ANTHROPIC_BASE_URL=server.url  ANTHROPIC_API_KEY=sk-fake  CLAUDE_CONFIG_DIR=<tmp>
//        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1
//   ... run claude ...
//   server.requests          every request received, in order (method, url, headers, parsed body, role)
//   server.mainRequests()    only the model turns that were answered from the script
//   await server.close()     stops listening and drops every connection (also stops by itself after `lifetimeMs`)
//
// How an answer is chosen
//   - `HEAD /` (the CLI's connectivity probe) gets 200; `POST /v1/messages/count_tokens` gets {input_tokens}.
//   - A POST /v1/messages without `tools` (title generation and other side requests) is "auxiliary":
//     it gets `auxiliaryText` and does not touch the script.
//   - Every other POST /v1/messages is a model turn of one conversation. A conversation is one agent
//     session: keyed by the `x-claude-code-session-id` header (or metadata.user_id's session_id); a request
//     of an unknown session with no assistant message starts the next conversation (= the next loop
//     iteration of a process loop). Conversation i uses `conversations[i]`.
//   - Inside a conversation the step is the number of assistant messages in the request (0 for the
//     first answer, 1 after one answer, ...), so tool calls, hook feedback and retries land right.
//   - A step is one Turn or an array of Turns served in order to repeated requests at that step (retries
//     after an error answer); the last element repeats. Example: [{type:'error',status:529}, {type:'text',text:'ok'}].
//   - A Turn may also be a function of the request (e.g. to build an absolute path from `ctx.cwd`).
//   - When the script has no answer, `exhausted` is served (default: a short end_turn text), and the
//     request is marked `exhausted: true` in the log.
//
// Turns
//   { type: 'text', text }                                   one text block, stop_reason end_turn
//   { type: 'tool_use', name, input, text?, id? }           optional text block then a tool_use block
//                                                            (input streamed as input_json_delta), stop_reason tool_use
//   { type: 'error', status, body?, headers? }              HTTP error with a JSON body (default: Anthropic's
//                                                            {type:'error',error:{type,message}} for the status);
//                                                            e.g. 401, 429 with {'retry-after':'3600',
//                                                            'anthropic-ratelimit-unified-reset': '<epoch s>'}, 529
//   every Turn takes `delayMs` (wait before answering) and `waitFor` (a promise to await before answering,
//   e.g. "until the other session finished"); text/tool_use take `usage` (token counts).
//
// Tests of the claude CLI usually also want CLAUDE_CODE_MAX_RETRIES=0 when they script errors.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Token counts the fake reports for one answer. */
export interface FakeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** What the model "says" at one step. */
export type FakeTurn =
  | { type: 'text'; text: string; usage?: FakeUsage; delayMs?: number; waitFor?: Promise<unknown> }
  | {
      type: 'tool_use';
      name: string;
      input: Record<string, unknown>;
      text?: string;
      id?: string;
      usage?: FakeUsage;
      delayMs?: number;
      waitFor?: Promise<unknown>;
    }
  | { type: 'error'; status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number; waitFor?: Promise<unknown> };

/** Facts about the request being answered, for turns written as functions. */
export interface FakeRequestContext {
  /** 0-based conversation number. */
  conversation: number;
  /** Number of assistant messages in the request. */
  step: number;
  /** 0-based count of earlier requests at the same conversation and step (retries). */
  attempt: number;
  /** The working directory from the system prompt ("Primary working directory: ..."), or null. */
  cwd: string | null;
  /** The text of the last user message (e.g. "Stop hook feedback:\n..."). */
  lastUserText: string;
  body: MessagesRequestBody;
}

/** A scripted answer: a turn, or a function of the request that returns one. */
export type FakeAnswer = FakeTurn | ((ctx: FakeRequestContext) => FakeTurn);

/** One step of a conversation: one answer, or answers for repeated requests at that step (last repeats). */
export type FakeStep = FakeAnswer | FakeAnswer[];

/** Options of `startFakeAnthropic`. */
export interface FakeAnthropicOptions {
  /** conversations[i][step]: the answers of the i-th conversation. */
  conversations: FakeStep[][];
  /** Answer when the script has none (default: text "(fake: no scripted answer)"). */
  exhausted?: FakeTurn;
  /** Answer to auxiliary requests (no tools): default "Fake title". */
  auxiliaryText?: string;
  /** Model name echoed in message_start when the request names none. */
  model?: string;
  /** The server closes itself after this many ms (default 120 000) so a failed test leaves nothing behind. */
  lifetimeMs?: number;
}

/** The parts of a Messages API request body the fake reads (the rest is kept as-is in the log). */
export interface MessagesRequestBody {
  model?: string;
  system?: unknown;
  messages?: { role: string; content: unknown }[];
  tools?: unknown[];
  metadata?: { user_id?: string };
  stream?: boolean;
  [key: string]: unknown;
}

/** One logged request. */
export interface FakeRequestLog {
  index: number;
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or null (HEAD, empty or non-JSON body). */
  body: MessagesRequestBody | null;
  kind: 'main' | 'auxiliary' | 'probe' | 'count_tokens' | 'other';
  conversation: number | null;
  step: number | null;
  /** The turn that was served (main requests only). */
  turn: FakeTurn | null;
  /** True when the script had no answer and `exhausted` was served. */
  exhausted: boolean;
}

/** A running fake server. */
export interface FakeAnthropicServer {
  /** Base URL for ANTHROPIC_BASE_URL, e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  /** Every request, in arrival order. */
  readonly requests: readonly FakeRequestLog[];
  /** The requests answered from the script (kind 'main'). */
  mainRequests(): FakeRequestLog[];
  /** Number of conversations started so far. */
  conversationCount(): number;
  close(): Promise<void>;
}

/** The environment that points the real `claude` CLI at a fake server, isolated and offline (add process.env's PATH yourself). */
export function claudeFakeEnv(url: string, configDir: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-fake',
    CLAUDE_CONFIG_DIR: configDir,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    IS_SANDBOX: '1',
  };
}

/** Concatenated text of a message's content (string, or the text of its text/tool_result blocks). */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content as unknown[]) {
    if (typeof block !== 'object' || block === null) continue;
    const b = block as { type?: unknown; text?: unknown; content?: unknown };
    if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
    else if (b.type === 'tool_result') parts.push(messageText(b.content));
  }
  return parts.join('\n');
}

/** Text of the last user message of a request body ('' when none). */
export function lastUserText(body: MessagesRequestBody | null): string {
  const messages = body?.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === 'user') return messageText(m.content);
  }
  return '';
}

/** Every user-message text of a request body, in order. */
export function userTexts(body: MessagesRequestBody | null): string[] {
  return (body?.messages ?? []).filter((m) => m.role === 'user').map((m) => messageText(m.content));
}

function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  return messageText(system);
}

function workingDirectory(body: MessagesRequestBody): string | null {
  const texts = [systemText(body.system), ...(body.messages ?? []).map((m) => messageText(m.content))];
  for (const text of texts) {
    const match = /Primary working directory: (.+)/.exec(text);
    if (match?.[1]) return match[1].trim();
  }
  return null;
}

function sessionKey(req: IncomingMessage, body: MessagesRequestBody): string | null {
  const header = req.headers['x-claude-code-session-id'];
  if (typeof header === 'string' && header !== '') return header;
  const userId = body.metadata?.user_id;
  if (typeof userId === 'string') {
    try {
      const parsed = JSON.parse(userId) as { session_id?: unknown };
      if (typeof parsed.session_id === 'string') return parsed.session_id;
    } catch {
      const match = /session_([0-9a-f-]{8,})/.exec(userId);
      if (match?.[1]) return match[1];
    }
  }
  return null;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function defaultErrorBody(status: number): unknown {
  const type = ERROR_TYPES[status] ?? 'api_error';
  const message =
    status === 401 ? 'invalid x-api-key' : status === 429 ? 'Rate limited' : status === 529 ? 'Overloaded' : `Error ${status}`;
  return { type: 'error', error: { type, message } };
}

function sse(res: ServerResponse, type: string, data: Record<string, unknown>): void {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

function streamTurn(res: ServerResponse, turn: Exclude<FakeTurn, { type: 'error' }>, model: string, id: string): void {
  const usage = turn.usage ?? { input_tokens: 100, output_tokens: 20 };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${id}` });
  sse(res, 'message_start', {
    message: {
      id: `msg_${id}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input_tokens,
        output_tokens: 1,
        cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
        cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
      },
    },
  });
  let index = 0;
  const text = turn.type === 'text' ? turn.text : turn.text;
  if (text !== undefined) {
    sse(res, 'content_block_start', { index, content_block: { type: 'text', text: '' } });
    sse(res, 'content_block_delta', { index, delta: { type: 'text_delta', text } });
    sse(res, 'content_block_stop', { index });
    index++;
  }
  if (turn.type === 'tool_use') {
    const toolId = turn.id ?? `toolu_${id}`;
    sse(res, 'content_block_start', { index, content_block: { type: 'tool_use', id: toolId, name: turn.name, input: {} } });
    sse(res, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(turn.input) } });
    sse(res, 'content_block_stop', { index });
  }
  sse(res, 'message_delta', {
    delta: { stop_reason: turn.type === 'tool_use' ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  sse(res, 'message_stop', {});
  res.end();
}

function sendTurn(res: ServerResponse, turn: FakeTurn, model: string, id: string): void {
  if (turn.type === 'error') {
    res.writeHead(turn.status, { 'content-type': 'application/json', ...(turn.headers ?? {}) });
    res.end(JSON.stringify(turn.body ?? defaultErrorBody(turn.status)));
    return;
  }
  streamTurn(res, turn, model, id);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text: string): MessagesRequestBody | null {
  if (text.trim() === '') return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as MessagesRequestBody) : null;
  } catch {
    return null;
  }
}

/** Starts the fake on 127.0.0.1 with a free port. */
export async function startFakeAnthropic(options: FakeAnthropicOptions): Promise<FakeAnthropicServer> {
  const requests: FakeRequestLog[] = [];
  const sessions = new Map<string, number>();
  /** attempts[conversation][step] = requests seen so far at that step. */
  const attempts: number[][] = [];
  let conversations = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const exhaustedTurn: FakeTurn = options.exhausted ?? { type: 'text', text: '(fake: no scripted answer)' };

  function pick(ctx: Omit<FakeRequestContext, 'attempt'>): { turn: FakeTurn; exhausted: boolean } {
    const row = (attempts[ctx.conversation] ??= []);
    const attempt = row[ctx.step] ?? 0;
    row[ctx.step] = attempt + 1;
    const step = options.conversations[ctx.conversation]?.[ctx.step];
    if (step === undefined) return { turn: exhaustedTurn, exhausted: true };
    const list = Array.isArray(step) ? step : [step];
    const answer = list[Math.min(attempt, list.length - 1)];
    if (answer === undefined) return { turn: exhaustedTurn, exhausted: true };
    return { turn: typeof answer === 'function' ? answer({ ...ctx, attempt }) : answer, exhausted: false };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const body = parseJson(raw);
    const url = req.url ?? '/';
    const log: FakeRequestLog = {
      index: requests.length,
      method: req.method ?? 'GET',
      url,
      headers: { ...req.headers },
      body,
      kind: 'other',
      conversation: null,
      step: null,
      turn: null,
      exhausted: false,
    };
    requests.push(log);
    const path = url.split('?')[0] ?? '/';
    if (req.method === 'HEAD' || req.method === 'GET') {
      log.kind = 'probe';
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end();
      return;
    }
    if (path.endsWith('/messages/count_tokens')) {
      log.kind = 'count_tokens';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }));
      return;
    }
    if (!path.endsWith('/v1/messages') || body === null) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no route ${url}` } }));
      return;
    }
    const model = typeof body.model === 'string' ? body.model : (options.model ?? 'claude-fake');
    const id = String(log.index + 1).padStart(4, '0');
    if (!Array.isArray(body.tools) || body.tools.length === 0) {
      log.kind = 'auxiliary';
      streamTurn(res, { type: 'text', text: options.auxiliaryText ?? 'Fake title' }, model, id);
      return;
    }
    log.kind = 'main';
    const messages = body.messages ?? [];
    const step = messages.filter((m) => m.role === 'assistant').length;
    const key = sessionKey(req, body);
    let conversation = key !== null ? sessions.get(key) : undefined;
    if (conversation === undefined) {
      conversation = step === 0 || conversations === 0 ? conversations++ : conversations - 1;
      if (key !== null) sessions.set(key, conversation);
    }
    log.conversation = conversation;
    log.step = step;
    const { turn, exhausted } = pick({ conversation, step, cwd: workingDirectory(body), lastUserText: lastUserText(body), body });
    log.turn = turn;
    log.exhausted = exhausted;
    if (turn.delayMs !== undefined && turn.delayMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, turn.delayMs);
        timers.add(timer);
      });
    }
    if (turn.waitFor !== undefined) await turn.waitFor.catch(() => undefined);
    if (!res.destroyed) sendTurn(res, turn, model, id);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(error) } }));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | null = null;
  function close(): Promise<void> {
    closed ??= new Promise<void>((resolve) => {
      clearTimeout(lifetime);
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
    });
    return closed;
  }
  const lifetime = setTimeout(() => void close(), options.lifetimeMs ?? 120_000);
  lifetime.unref();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    mainRequests: () => requests.filter((r) => r.kind === 'main'),
    conversationCount: () => conversations,
    close,
  };
}
