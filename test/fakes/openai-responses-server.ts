// A scripted fake of the OpenAI Responses API (POST /v1/responses, SSE) for driving the real `codex` CLI.
//
// API
//   const server = await startFakeResponses({ conversations: [[turn0, turn1, ...], [...]] });
//   const home = await writeCodexHome(dir, server.url)      // CODEX_HOME with config.toml pointing at the fake
//   env: { ...codexFakeEnv(home) }                           // CODEX_HOME + FAKE_OPENAI_KEY
//   server.requests / server.mainRequests() / await server.close()
//
// How an answer is chosen
//   - A conversation is one codex thread, keyed by the body's `prompt_cache_key` (codex sets it to the
//     thread id). An unknown key starts the next conversation (= the next loop iteration).
//   - The step is the number of model answers already in `input` (runs of function_call / custom_tool_call /
//     assistant message / reasoning items), so tool calls land right.
//   - A step is one Turn, or an array of Turns served to repeated requests at that step (retries); the last
//     element repeats. A Turn may be a function of the request context.
//
// Turns
//   { type: 'text', text }                              an assistant message (streamed as output_text deltas)
//   { type: 'function_call', name, arguments, text? }   e.g. exec_command {cmd: "..."} (codex's shell tool)
//   { type: 'custom_tool_call', name, input }           e.g. apply_patch with a "*** Begin Patch" body
//   { type: 'error', status, body?, headers? }          HTTP error; default body {error:{type, message, code}}
//   every Turn takes `delayMs`; text and tool calls take `usage`.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Token counts of one answer (Responses API shape, simplified). */
export interface ResponsesUsage {
  input_tokens: number;
  output_tokens: number;
  cached_tokens?: number;
}

/** What the fake model answers at one step. */
export type ResponsesTurn =
  | { type: 'text'; text: string; usage?: ResponsesUsage; delayMs?: number }
  | { type: 'function_call'; name: string; arguments: Record<string, unknown>; text?: string; usage?: ResponsesUsage; delayMs?: number }
  | { type: 'custom_tool_call'; name: string; input: string; usage?: ResponsesUsage; delayMs?: number }
  | { type: 'error'; status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number };

/** Facts about the request being answered. */
export interface ResponsesContext {
  conversation: number;
  step: number;
  attempt: number;
  body: Record<string, unknown>;
}

/** A scripted answer: a turn or a function of the request. */
export type ResponsesAnswer = ResponsesTurn | ((ctx: ResponsesContext) => ResponsesTurn);

/** One step: an answer, or answers for repeated requests at that step (the last repeats). */
export type ResponsesStep = ResponsesAnswer | ResponsesAnswer[];

/** Options of `startFakeResponses`. */
export interface FakeResponsesOptions {
  conversations: ResponsesStep[][];
  /** Answer when the script has none (default: a short text). */
  exhausted?: ResponsesTurn;
  /** The server closes itself after this long (default 120 s). */
  lifetimeMs?: number;
}

/** One logged request. */
export interface ResponsesRequestLog {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown> | null;
  kind: 'main' | 'other';
  conversation: number | null;
  step: number | null;
  turn: ResponsesTurn | null;
  exhausted: boolean;
}

/** A running fake Responses server. */
export interface FakeResponsesServer {
  /** Base URL including `/v1`, for the provider's base_url. */
  url: string;
  port: number;
  readonly requests: readonly ResponsesRequestLog[];
  mainRequests(): ResponsesRequestLog[];
  conversationCount(): number;
  close(): Promise<void>;
}

const DEFAULT_USAGE: ResponsesUsage = { input_tokens: 100, output_tokens: 20 };
const MODEL_ITEMS = new Set(['function_call', 'custom_tool_call', 'reasoning', 'local_shell_call', 'web_search_call', 'tool_search_call']);

/** Number of model answers in a request's input (runs of model-produced items). */
export function modelStep(input: unknown): number {
  if (!Array.isArray(input)) return 0;
  let steps = 0;
  let inModel = false;
  for (const item of input as Record<string, unknown>[]) {
    const produced = MODEL_ITEMS.has(String(item.type)) || (item.type === 'message' && item.role === 'assistant');
    if (produced && !inModel) steps += 1;
    inModel = produced;
  }
  return steps;
}

function errorBody(status: number): unknown {
  const type = status === 401 ? 'invalid_request_error' : status === 429 ? 'rate_limit_exceeded' : 'server_error';
  const message =
    status === 401 ? 'Incorrect API key provided.' : status === 429 ? 'Rate limit reached. Please try again later.' : 'The server is overloaded.';
  return { error: { type, message, code: status === 401 ? 'invalid_api_key' : null } };
}

let idCounter = 0;
function nextId(prefix: string): string {
  idCounter += 1;
  return `${prefix}_${String(idCounter).padStart(4, '0')}`;
}

function sse(res: ServerResponse, type: string, payload: Record<string, unknown>): void {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`);
}

function streamTurn(res: ServerResponse, turn: Exclude<ResponsesTurn, { type: 'error' }>, model: string): void {
  const responseId = nextId('resp');
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  sse(res, 'response.created', { response: { id: responseId, object: 'response', status: 'in_progress', model } });
  let index = 0;
  const text = turn.type === 'text' ? turn.text : turn.type === 'function_call' ? turn.text : undefined;
  if (text !== undefined) {
    const id = nextId('msg');
    sse(res, 'response.output_item.added', { output_index: index, item: { type: 'message', id, role: 'assistant', status: 'in_progress', content: [] } });
    sse(res, 'response.output_text.delta', { item_id: id, output_index: index, content_index: 0, delta: text });
    sse(res, 'response.output_item.done', {
      output_index: index,
      item: { type: 'message', id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] },
    });
    index += 1;
  }
  if (turn.type === 'function_call' || turn.type === 'custom_tool_call') {
    const callId = nextId('call');
    const item =
      turn.type === 'function_call'
        ? { type: 'function_call', id: nextId('fc'), call_id: callId, name: turn.name, arguments: JSON.stringify(turn.arguments), status: 'completed' }
        : { type: 'custom_tool_call', id: nextId('ctc'), call_id: callId, name: turn.name, input: turn.input, status: 'completed' };
    sse(res, 'response.output_item.added', { output_index: index, item });
    sse(res, 'response.output_item.done', { output_index: index, item });
  }
  const u = turn.usage ?? DEFAULT_USAGE;
  sse(res, 'response.completed', {
    response: {
      id: responseId,
      object: 'response',
      status: 'completed',
      model,
      usage: {
        input_tokens: u.input_tokens,
        input_tokens_details: { cached_tokens: u.cached_tokens ?? 0 },
        output_tokens: u.output_tokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: u.input_tokens + u.output_tokens,
      },
    },
  });
  res.end();
}

/** Starts the fake on 127.0.0.1 with a free port. */
export async function startFakeResponses(options: FakeResponsesOptions): Promise<FakeResponsesServer> {
  const requests: ResponsesRequestLog[] = [];
  const conversationKeys = new Map<string, number>();
  const attempts = new Map<string, number>();
  const sockets = new Set<Socket>();

  const answer = (conversation: number, step: number, attempt: number, body: Record<string, unknown>): { turn: ResponsesTurn; exhausted: boolean } => {
    const scripted = options.conversations[conversation]?.[step];
    if (scripted === undefined) return { turn: options.exhausted ?? { type: 'text', text: '(fake: no scripted answer)' }, exhausted: true };
    const list = Array.isArray(scripted) ? scripted : [scripted];
    const chosen = list[Math.min(attempt, list.length - 1)];
    if (chosen === undefined) return { turn: options.exhausted ?? { type: 'text', text: '(fake: no scripted answer)' }, exhausted: true };
    return { turn: typeof chosen === 'function' ? chosen({ conversation, step, attempt, body }) : chosen, exhausted: false };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> => {
    let body: Record<string, unknown> | null;
    try {
      body = raw === '' ? null : (JSON.parse(raw) as Record<string, unknown>);
    } catch {
      body = null;
    }
    const base = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
    if (req.method !== 'POST' || !(req.url ?? '').startsWith('/v1/responses') || body === null) {
      requests.push({ ...base, kind: 'other', conversation: null, step: null, turn: null, exhausted: false });
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const key = typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : `anon-${requests.length}`;
    let conversation = conversationKeys.get(key);
    if (conversation === undefined) {
      conversation = conversationKeys.size;
      conversationKeys.set(key, conversation);
    }
    const step = modelStep(body.input);
    const attemptKey = `${conversation}:${step}`;
    const attempt = attempts.get(attemptKey) ?? 0;
    attempts.set(attemptKey, attempt + 1);
    const { turn, exhausted } = answer(conversation, step, attempt, body);
    requests.push({ ...base, kind: 'main', conversation, step, turn, exhausted });
    if (turn.delayMs !== undefined) await new Promise((r) => setTimeout(r, turn.delayMs));
    if (turn.type === 'error') {
      res.writeHead(turn.status, { 'content-type': 'application/json', ...(turn.headers ?? {}) });
      res.end(JSON.stringify(turn.body ?? errorBody(turn.status)));
      return;
    }
    streamTurn(res, turn, typeof body.model === 'string' ? body.model : 'gpt-5.5');
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(error) } }));
      });
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
  server.unref();
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      if (!server.listening) {
        resolve();
        return;
      }
      server.close(() => resolve());
    });
  const lifetime = setTimeout(() => void close(), options.lifetimeMs ?? 120_000);
  lifetime.unref();
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    mainRequests: () => requests.filter((r) => r.kind === 'main'),
    conversationCount: () => conversationKeys.size,
    close: async () => {
      clearTimeout(lifetime);
      await close();
    },
  };
}

/** Writes a CODEX_HOME whose config.toml points codex at the fake (no retries, no analytics). Returns the dir. */
export async function writeCodexHome(dir: string, url: string, model = 'gpt-5.5'): Promise<string> {
  await mkdir(dir, { recursive: true });
  const toml = [
    `model = "${model}"`,
    'model_provider = "fake"',
    '',
    '[model_providers.fake]',
    'name = "fake"',
    `base_url = "${url}"`,
    'wire_api = "responses"',
    'env_key = "FAKE_OPENAI_KEY"',
    'supports_websockets = false',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
  ].join('\n');
  await writeFile(join(dir, 'config.toml'), toml);
  return dir;
}

/** The environment for a codex run against the fake (add PATH yourself). */
export function codexFakeEnv(codexHome: string): Record<string, string> {
  return { CODEX_HOME: codexHome, FAKE_OPENAI_KEY: 'sk-fake' };
}
