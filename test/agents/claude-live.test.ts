// The real `claude` CLI against the fake Anthropic server, parsed by the Claude adapter. With
// RECORD_STREAMS=1 it (re)writes test/fixtures/streams/claude/*.jsonl (see the README there).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClaudeAdapter } from '../../src/agents/claude.js';
import { claudeFakeEnv, startFakeAnthropic, type FakeAnthropicServer } from '../fakes/anthropic-server.js';
import { summarize } from './adapter-contract.js';
import { invocationOptions, maybeRecord, runAdapter } from './run-adapter.js';

const SIGNAL = '<promise>COMPLETE</promise>';
const USAGE_LIMIT_TEXT = "You've hit your limit · resets 5pm (UTC)";

let server: FakeAnthropicServer;
let work: string;
let config: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rm-claude-work-'));
  config = await mkdtemp(join(tmpdir(), 'rm-claude-config-'));
  await writeFile(join(work, 'notes.txt'), `the done marker is ${SIGNAL}\n`);
  server = await startFakeAnthropic({
    conversations: [
      // 0: success: write a file through the Write tool, then finish with the signal.
      [
        (ctx) => ({ type: 'tool_use', name: 'Write', input: { file_path: join(ctx.cwd ?? work, 'hello.txt'), content: 'hello\n' }, text: 'Writing hello.txt.' }),
        { type: 'text', text: `Wrote hello.txt. ${SIGNAL}`, usage: { input_tokens: 120, output_tokens: 15, cache_read_input_tokens: 30 } },
      ],
      // 1: the signal only in a tool result.
      [
        (ctx) => ({ type: 'tool_use', name: 'Read', input: { file_path: join(ctx.cwd ?? work, 'notes.txt') } }),
        { type: 'text', text: 'I read the notes.' },
      ],
      [{ type: 'error', status: 401 }],
      [{ type: 'error', status: 529 }],
      [{ type: 'error', status: 429, body: { type: 'error', error: { type: 'rate_limit_error', message: USAGE_LIMIT_TEXT } } }],
      [{ type: 'error', status: 429 }],
    ],
  });
});

afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
  await rm(config, { recursive: true, force: true });
});

const adapter = createClaudeAdapter();

function run(prompt: string) {
  const env = { PATH: process.env.PATH, HOME: config, ...claudeFakeEnv(server.url, config), CLAUDE_CODE_MAX_RETRIES: '0' };
  return runAdapter(adapter, invocationOptions({ prompt, cwd: work, env }));
}

describe('claude (real CLI) through the adapter', () => {
  it('writes a file with its own tool; text, usage, cost and session parsed', async () => {
    const r = await run('Create hello.txt');
    await maybeRecord('claude', 'success', r.stdout);
    expect(r.exitCode).toBe(0);
    expect(await readFile(join(work, 'hello.txt'), 'utf8')).toBe('hello\n');
    const s = summarize(r.events);
    expect(s.text).toBe(`Writing hello.txt.Wrote hello.txt. ${SIGNAL}`);
    expect(s.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.usage?.tokensIn).toBeGreaterThan(0);
    expect(s.costUsd).toBeGreaterThan(0);
    expect(s.errorKind).toBeNull();
    expect(r.events.filter((e) => e.type === 'tool_call').map((e) => e.type === 'tool_call' && e.name)).toEqual(['Write']);
  });

  it('does not take text from a tool result', async () => {
    const r = await run('Read the notes');
    await maybeRecord('claude', 'tool-output-signal', r.stdout);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(SIGNAL);
    expect(summarize(r.events).text).toBe('I read the notes.');
  });

  it.each([
    ['auth-401', 'auth'],
    ['overloaded-529', 'overloaded'],
    ['usage-limit-429', 'usage_limit'],
    ['rate-limit-429', 'rate_limit'],
  ] as const)('classifies %s as %s', async (name, kind) => {
    const r = await run('Say hi');
    await maybeRecord('claude', name, r.stdout);
    expect(r.exitCode).toBe(1);
    const s = summarize(r.events);
    expect(s.errorKind).toBe(kind);
    if (kind === 'usage_limit') {
      expect(s.resetAtMs).toBeGreaterThan(Date.now());
      expect(s.resetAtMs! - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);
    }
  });
});
