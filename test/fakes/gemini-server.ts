// Fake Gemini API server (POST /v1beta/models/{m}:streamGenerateContent?alt=sse) serving a script of turns.
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { sendJson, sendSse, sleep, startFakeHttp, startSse, type FakeServer } from './fake-http.js';
import { DEFAULT_USAGE, splitDeltas, TurnScript, type Conversation, type Turn } from './turn-script.js';

const contentSchema = z.looseObject({
  role: z.string().optional(),
  parts: z.array(z.looseObject({})).optional(),
});

const requestSchema = z.looseObject({
  contents: z.array(contentSchema),
  systemInstruction: z.unknown().optional(),
  tools: z.array(z.unknown()).optional(),
});

/** A generateContent request body, as far as the fake reads it. */
export type GeminiRequest = z.infer<typeof requestSchema>;

/** One request the fake received and what it answered. */
export interface GeminiLogEntry {
  path: string;
  model: string | null;
  method: string;
  /** Number of `model` contents in the request. */
  modelTurns: number;
  answered: 'turn' | 'error' | 'exhausted' | 'side' | 'invalid' | 'not_found';
  conversation: number | null;
  turn: number | null;
  body: GeminiRequest | null;
}

/** The running fake and its request log. Clients use `url` as GOOGLE_GEMINI_BASE_URL. */
export interface GeminiServer extends FakeServer {
  readonly requests: GeminiLogEntry[];
}

/** Options of the fake: the conversations of the script. */
export interface GeminiServerOptions {
  conversations: readonly Conversation[];
}

const ROUTE = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

/** Starts the fake on 127.0.0.1 with a free port. */
export async function startGeminiServer(options: GeminiServerOptions): Promise<GeminiServer> {
  const script = new TurnScript(options.conversations);
  const requests: GeminiLogEntry[] = [];
  const server = await startFakeHttp(async (req, res, _raw, json) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const route = ROUTE.exec(path);
    if (req.method !== 'POST' || route === null) {
      requests.push({ path, model: null, method: '', modelTurns: 0, answered: 'not_found', conversation: null, turn: null, body: null });
      sendJson(res, 404, { error: { code: 404, message: `no route ${req.method ?? ''} ${path}`, status: 'NOT_FOUND' } });
      return;
    }
    const model = route[1] ?? 'unknown';
    const method = route[2] ?? '';
    const parsed = requestSchema.safeParse(json);
    if (!parsed.success) {
      requests.push({ path, model, method, modelTurns: 0, answered: 'invalid', conversation: null, turn: null, body: null });
      sendJson(res, 400, { error: { code: 400, message: 'invalid request body', status: 'INVALID_ARGUMENT' } });
      return;
    }
    const body = parsed.data;
    const modelTurns = body.contents.filter((c) => c.role === 'model').length;
    const entry = { path, model, method, modelTurns, body };
    if (method === 'countTokens') {
      requests.push({ ...entry, answered: 'side', conversation: null, turn: null });
      sendJson(res, 200, { totalTokens: 100 });
      return;
    }
    if (method === 'generateContent') {
      // Side requests (e.g. next-speaker or loop checks) do not consume the script.
      requests.push({ ...entry, answered: 'side', conversation: null, turn: null });
      sendJson(res, 200, response(model, { text: '{"next_speaker":"user","reasoning":"fake"}' }, true));
      return;
    }
    const answer = script.next(modelTurns);
    requests.push({ ...entry, answered: answer.kind, conversation: answer.conversation, turn: answer.turn });
    if (answer.kind === 'error') {
      sendJson(res, answer.error.status, { error: { code: answer.error.status, message: answer.error.message, status: statusName(answer.error.status) } });
      return;
    }
    const turn: Turn = answer.kind === 'turn' ? answer.reply : { text: 'The fake model script is exhausted.' };
    await stream(res, model, turn);
  });
  return { ...server, requests };
}

/** The Google RPC status name of an HTTP status. */
function statusName(status: number): string {
  if (status === 400) return 'INVALID_ARGUMENT';
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'PERMISSION_DENIED';
  if (status === 429) return 'RESOURCE_EXHAUSTED';
  if (status === 503) return 'UNAVAILABLE';
  return 'INTERNAL';
}

/** One GenerateContentResponse; `last` carries finishReason and usage. */
function response(model: string, turn: Turn, last: boolean, parts?: unknown[]): unknown {
  const usage = turn.usage ?? DEFAULT_USAGE;
  return {
    candidates: [
      {
        content: { role: 'model', parts: parts ?? [{ text: turn.text ?? '' }] },
        index: 0,
        ...(last ? { finishReason: 'STOP' } : {}),
      },
    ],
    ...(last ? { usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output } } : {}),
    modelVersion: model,
  };
}

/** Streams one turn: text deltas, then function calls, then a last chunk with usage. */
async function stream(res: ServerResponse, model: string, turn: Turn): Promise<void> {
  if (turn.delayMs !== undefined) await sleep(turn.delayMs);
  startSse(res);
  if (turn.text !== undefined) for (const piece of splitDeltas(turn.text)) sendSse(res, response(model, turn, false, [{ text: piece }]));
  const calls = (turn.toolCalls ?? []).map((call) => ({ functionCall: { name: call.name, args: call.args, ...(call.id !== undefined ? { id: call.id } : {}) } }));
  if (calls.length > 0) sendSse(res, response(model, turn, false, calls));
  sendSse(res, response(model, turn, true, [{ text: '' }]));
  res.end();
}

