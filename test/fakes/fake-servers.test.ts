// The fake model servers over real HTTP: SSE bodies, usage, tool calls, errors with status, title requests.
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeServer } from './fake-http.js';
import { startGeminiServer } from './gemini-server.js';
import { startOpenAiChatServer } from './openai-chat-server.js';

let server: FakeServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function sseData(body: string): unknown[] {
  return body
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice(6))
    .map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as unknown)));
}

async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

describe('fake OpenAI Chat Completions server', () => {
  it('streams text deltas, tool calls and (when asked) usage; answers title requests aside; errors carry the status', async () => {
    const fake = await startOpenAiChatServer({
      conversations: [[{ text: 'hello world, this is long', toolCalls: [{ name: 'write', args: { a: 1 }, id: 'c1' }], usage: { input: 7, output: 3 } }], [{ failFirst: [{ status: 429, message: 'slow down' }] }]],
    });
    server = fake;
    const url = `${fake.baseUrl}/chat/completions`;
    const title = await post(url, { model: 'm', stream: true, messages: [{ role: 'system', content: 'You are a title generator. ...' }, { role: 'user', content: 'x' }] });
    expect(title.status).toBe(200);
    const first = await post(url, { model: 'm', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] });
    const chunks = sseData(first.text) as { choices: { delta: { content?: string; tool_calls?: unknown[] }; finish_reason: string | null }[]; usage?: unknown }[];
    expect(chunks.at(-1)).toBe('[DONE]');
    const text = chunks.slice(0, -1).map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('hello world, this is long');
    expect(chunks.slice(0, -1).flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])).toEqual([
      { index: 0, id: 'c1', type: 'function', function: { name: 'write', arguments: '{"a":1}' } },
    ]);
    expect(chunks.slice(0, -1).map((c) => c.choices[0]?.finish_reason).filter((f) => f)).toEqual(['tool_calls']);
    expect(chunks.at(-2)).toMatchObject({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });
    const error = await post(url, { model: 'm', stream: true, messages: [{ role: 'user', content: 'again' }] });
    expect(error.status).toBe(429);
    expect(JSON.parse(error.text)).toEqual({ error: { message: 'slow down', type: 'fake_error', code: 429 } });
    expect(fake.requests.map((q) => [q.answered, q.conversation, q.turn])).toEqual([
      ['title', null, null],
      ['turn', 0, 0],
      ['error', 1, 0],
    ]);
  });
});

describe('fake Gemini server', () => {
  it('streams text and function calls with usage on the last chunk; errors carry the status', async () => {
    const fake = await startGeminiServer({
      conversations: [[{ text: 'abc', toolCalls: [{ name: 'write_file', args: { file_path: '/x' } }], usage: { input: 5, output: 2 } }], [{ failFirst: [{ status: 401, message: 'bad key' }] }]],
    });
    server = fake;
    const url = `${fake.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`;
    const ok = await post(url, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    const chunks = sseData(ok.text) as { candidates: { content: { parts: unknown[] }; finishReason?: string }[]; usageMetadata?: unknown }[];
    expect(chunks.flatMap((c) => c.candidates[0]?.content.parts ?? [])).toEqual([{ text: 'abc' }, { functionCall: { name: 'write_file', args: { file_path: '/x' } } }, { text: '' }]);
    expect(chunks.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 } });
    const error = await post(url, { contents: [{ role: 'user', parts: [{ text: 'again' }] }] });
    expect(error.status).toBe(401);
    expect(JSON.parse(error.text)).toEqual({ error: { code: 401, message: 'bad key', status: 'UNAUTHENTICATED' } });
    const missing = await post(`${fake.url}/v1/other`, {});
    expect(missing.status).toBe(404);
    expect(fake.requests.map((q) => [q.answered, q.conversation, q.modelTurns])).toEqual([
      ['turn', 0, 0],
      ['error', 1, 0],
      ['not_found', null, 0],
    ]);
  });
});
