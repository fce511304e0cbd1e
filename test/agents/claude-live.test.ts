// The real `claude` CLI against the fake Anthropic server, parsed by the Claude adapter. With
// RECORD_STREAMS=1 it (re)writes test/fixtures/streams/claude/*.jsonl (see the README there).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClaudeAdapter } from '../../src/agents/claude.js';
import type { ErrorKind } from '../../src/core/types.js';
import { claudeFakeEnv, startFakeAnthropic } from '../fakes/anthropic-server.js';
import { summarize } from './adapter-contract.js';
import { expectSignalOnlyInToolOutput, itClassifiesErrors, runLive, useLiveHarness } from './live-harness.js';
import { maybeRecord, SIGNAL } from './run-adapter.js';

const USAGE_LIMIT_TEXT = "You've hit your limit · resets 5pm (UTC)";

const h = useLiveHarness('claude', async ({ work }) => {
  await writeFile(join(work, 'notes.txt'), `the done marker is ${SIGNAL}\n`);
  return startFakeAnthropic({
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

const adapter = createClaudeAdapter();

function run(prompt: string) {
  return runLive(adapter, h, { prompt, env: { ...claudeFakeEnv(h.server.url, h.home), CLAUDE_CODE_MAX_RETRIES: '0' } });
}

describe('claude (real CLI) through the adapter', () => {
  it('writes a file with its own tool; text, usage, cost and session parsed', async () => {
    const r = await run('Create hello.txt');
    await maybeRecord('claude', 'success', r.stdout);
    expect(r.exitCode).toBe(0);
    expect(await readFile(join(h.work, 'hello.txt'), 'utf8')).toBe('hello\n');
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
    expectSignalOnlyInToolOutput(r, 'I read the notes.');
  });

  const cases: [string, ErrorKind][] = [
    ['auth-401', 'auth'],
    ['overloaded-529', 'overloaded'],
    ['usage-limit-429', 'usage_limit'],
    ['rate-limit-429', 'rate_limit'],
  ];
  itClassifiesErrors('claude', cases, run, (s) => {
    expect(s.resetAtMs).toBeGreaterThan(Date.now());
    expect(s.resetAtMs! - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);
  });
});
