// The fake Anthropic server: its script rules in-process, then one real `claude` run against it.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText, startFakeAnthropic, type FakeAnthropicServer } from './anthropic-server.js';
import { runClaude } from './run-claude.js';

const TOOLS = [{ name: 'Write', input_schema: { type: 'object' } }];

function post(server: FakeAnthropicServer, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

function sseEvents(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

let server: FakeAnthropicServer | null = null;
let dir: string | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = null;
});

describe('fake anthropic server', () => {
  it('streams text and tool_use turns chosen by conversation and assistant count', async () => {
    server = await startFakeAnthropic({
      conversations: [
        [{ type: 'tool_use', name: 'Write', input: { file_path: '/x', content: 'y' }, text: 'writing' }, { type: 'text', text: 'done' }],
        [{ type: 'text', text: 'second conversation' }],
      ],
    });
    const first = await post(server, { model: 'm', tools: TOOLS, messages: [{ role: 'user', content: 'go' }] }, { 'x-claude-code-session-id': 's1' });
    expect(first.status).toBe(200);
    const events = sseEvents(await first.text());
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[5]).toEqual({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"file_path":"/x","content":"y"}' } });
    expect(events[7]).toEqual({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } });

    const second = await post(
      server,
      { model: 'm', tools: TOOLS, messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: 'x' }, { role: 'user', content: [{ type: 'tool_result', content: 'ok' }] }] },
      { 'x-claude-code-session-id': 's1' },
    );
    expect(sseEvents(await second.text())[2]).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'done' } });

    const third = await post(server, { model: 'm', tools: TOOLS, messages: [{ role: 'user', content: 'again' }] }, { 'x-claude-code-session-id': 's2' });
    expect(sseEvents(await third.text())[2]).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'second conversation' } });

    expect(server.mainRequests().map((r) => [r.conversation, r.step, r.exhausted])).toEqual([[0, 0, false], [0, 1, false], [1, 0, false]]);
    expect(lastUserText(server.requests[1]?.body ?? null)).toBe('ok');
    expect(server.conversationCount()).toBe(2);
  });

  it('serves error answers with status, headers and body, then the next answer on retry', async () => {
    server = await startFakeAnthropic({
      conversations: [[[{ type: 'error', status: 429, headers: { 'retry-after': '60' } }, { type: 'text', text: 'after retry' }]]],
    });
    const body = { model: 'm', tools: TOOLS, messages: [{ role: 'user', content: 'go' }] };
    const limited = await post(server, body, { 'x-claude-code-session-id': 's' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
    expect(await limited.json()).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: 'Rate limited' } });
    const retried = await post(server, body, { 'x-claude-code-session-id': 's' });
    expect(sseEvents(await retried.text())[2]).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'after retry' } });
    expect(server.conversationCount()).toBe(1);
  });

  it('answers probes and auxiliary requests without touching the script, and marks exhaustion', async () => {
    server = await startFakeAnthropic({ conversations: [] });
    expect((await fetch(server.url, { method: 'HEAD' })).status).toBe(200);
    const aux = await post(server, { model: 'm', messages: [{ role: 'user', content: 'title?' }] });
    expect(sseEvents(await aux.text())[2]).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Fake title' } });
    await (await post(server, { model: 'm', tools: TOOLS, messages: [{ role: 'user', content: 'go' }] })).text();
    expect(server.requests.map((r) => [r.kind, r.exhausted])).toEqual([['probe', false], ['auxiliary', false], ['main', true]]);
  });

  it('drives the real claude CLI through a Write tool call and a final text', async () => {
    dir = await mkdtemp(join(tmpdir(), 'rm-fake-'));
    const project = join(dir, 'project');
    await mkdir(project);
    server = await startFakeAnthropic({
      conversations: [
        [
          (ctx) => ({ type: 'tool_use', name: 'Write', input: { file_path: join(ctx.cwd ?? '/nowhere', 'hello.txt'), content: 'hi\n' } }),
          { type: 'text', text: 'Wrote it. <promise>COMPLETE</promise>' },
        ],
      ],
    });
    const run = await runClaude({ url: server.url, configDir: join(dir, 'config'), cwd: project, prompt: 'write hello.txt' });
    expect(run.exitCode).toBe(0);
    expect(await readFile(join(project, 'hello.txt'), 'utf8')).toBe('hi\n');
    const result = run.lines.find((l) => l.type === 'result');
    expect(result?.result).toBe('Wrote it. <promise>COMPLETE</promise>');
    expect(result?.is_error).toBe(false);
    expect(server.mainRequests().map((r) => [r.conversation, r.step])).toEqual([[0, 0], [0, 1]]);
  });
});
