// Fake OpenAI Chat Completions server (POST /v1/chat/completions, SSE) serving a script of turns.
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { sendJson, sendSse, sleep, startFakeHttp, startSse, type FakeServer } from './fake-http.js';
import { DEFAULT_USAGE, splitDeltas, TurnScript, type Conversation, type Turn } from './turn-script.js';

const messageSchema = z.looseObject({
  role: z.string(),
  content: z.unknown().optional(),
});

const requestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(messageSchema),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).optional(),
  tools: z.array(z.unknown()).optional(),
});

/** A chat completions request body, as far as the fake reads it. */
export type ChatRequest = z.infer<typeof requestSchema>;

/** One request the fake received and what it answered. */
export interface ChatLogEntry {
  path: string;
  model: string | null;
  stream: boolean;
  /** Number of assistant messages in the request. */
  assistantTurns: number;
  answered: 'turn' | 'error' | 'exhausted' | 'title' | 'invalid' | 'not_found';
  conversation: number | null;
  turn: number | null;
  body: ChatRequest | null;
}

/** The running fake, its request log and its base URL for clients (`${url}/v1`). */
export interface OpenAiChatServer extends FakeServer {
  readonly baseUrl: string;
  readonly requests: ChatLogEntry[];
}

/** Options of the fake: the conversations, and the title text answered to title requests. */
export interface OpenAiChatServerOptions {
  conversations: readonly Conversation[];
  title?: string;
}

/** Extracts the text of a message content (string or array of text parts). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string' ? part.text : '',
      )
      .join('');
  }
  return '';
}

/** opencode asks for a thread title in a side request; it must not consume the script. */
function isTitleRequest(body: ChatRequest): boolean {
  return body.messages.some((m) => m.role === 'system' && contentText(m.content).includes('You are a title generator'));
}

/** Starts the fake on 127.0.0.1 with a free port. */
export async function startOpenAiChatServer(options: OpenAiChatServerOptions): Promise<OpenAiChatServer> {
  const script = new TurnScript(options.conversations);
  const requests: ChatLogEntry[] = [];
  let counter = 0;
  const server = await startFakeHttp(async (req, res, _raw, json) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      requests.push({ path, model: null, stream: false, assistantTurns: 0, answered: 'not_found', conversation: null, turn: null, body: null });
      sendJson(res, 404, { error: { message: `no route ${req.method ?? ''} ${path}` } });
      return;
    }
    const parsed = requestSchema.safeParse(json);
    if (!parsed.success) {
      requests.push({ path, model: null, stream: false, assistantTurns: 0, answered: 'invalid', conversation: null, turn: null, body: null });
      sendJson(res, 400, { error: { message: 'invalid request body' } });
      return;
    }
    const body = parsed.data;
    const model = body.model ?? 'fake-model';
    const stream = body.stream === true;
    const assistantTurns = body.messages.filter((m) => m.role === 'assistant').length;
    const entry = { path, model, stream, assistantTurns, body };
    counter += 1;
    const id = `chatcmpl-fake-${counter}`;
    if (isTitleRequest(body)) {
      requests.push({ ...entry, answered: 'title', conversation: null, turn: null });
      await reply(res, id, model, stream, includeUsage(body), { text: options.title ?? 'Fake title', usage: { input: 20, output: 3 } });
      return;
    }
    const answer = script.next(assistantTurns);
    requests.push({ ...entry, answered: answer.kind, conversation: answer.conversation, turn: answer.turn });
    if (answer.kind === 'error') {
      sendJson(res, answer.error.status, { error: { message: answer.error.message, type: 'fake_error', code: answer.error.status } });
      return;
    }
    const turn: Turn = answer.kind === 'turn' ? answer.reply : { text: 'The fake model script is exhausted.' };
    await reply(res, id, model, stream, includeUsage(body), turn);
  });
  return { ...server, baseUrl: `${server.url}/v1`, requests };
}

/** True when a streaming client asked for usage in a final chunk (`stream_options.include_usage`). */
function includeUsage(body: ChatRequest): boolean {
  return body.stream_options?.include_usage === true;
}

/** Writes one turn as SSE chunks (or one JSON completion when not streaming); usage last when asked. */
async function reply(res: ServerResponse, id: string, model: string, stream: boolean, withUsage: boolean, turn: Turn): Promise<void> {
  if (turn.delayMs !== undefined) await sleep(turn.delayMs);
  const usageNumbers = turn.usage ?? DEFAULT_USAGE;
  const usage = { prompt_tokens: usageNumbers.input, completion_tokens: usageNumbers.output, total_tokens: usageNumbers.input + usageNumbers.output };
  const toolCalls = (turn.toolCalls ?? []).map((call, index) => ({
    index,
    id: call.id ?? `call_${id}_${index}`,
    type: 'function' as const,
    function: { name: call.name, arguments: JSON.stringify(call.args) },
  }));
  const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
  const created = Math.floor(Date.now() / 1000);
  if (!stream) {
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: turn.text ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls.map(({ index: _i, ...c }) => c) } : {}) }, finish_reason: finishReason }],
      usage,
    });
    return;
  }
  const chunk = (delta: unknown, finish: string | null): unknown => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  startSse(res);
  sendSse(res, chunk({ role: 'assistant', content: '' }, null));
  if (turn.text !== undefined) for (const piece of splitDeltas(turn.text)) sendSse(res, chunk({ content: piece }, null));
  for (const call of toolCalls) sendSse(res, chunk({ tool_calls: [call] }, null));
  sendSse(res, chunk({}, finishReason));
  if (withUsage) sendSse(res, { id, object: 'chat.completion.chunk', created, model, choices: [], usage });
  sendSse(res, '[DONE]');
  res.end();
}
