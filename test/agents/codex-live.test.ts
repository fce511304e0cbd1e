// The real `codex` CLI against the fake OpenAI Responses server, parsed by the Codex adapter. With
// RECORD_STREAMS=1 it (re)writes test/fixtures/streams/codex/*.jsonl (see the README there).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCodexAdapter } from '../../src/agents/codex.js';
import type { ErrorKind } from '../../src/core/types.js';
import { codexFakeEnv, startFakeResponses, writeCodexHome } from '../fakes/openai-responses-server.js';
import { summarize } from './adapter-contract.js';
import { expectSignalOnlyInToolOutput, itClassifiesErrors, runLive, useLiveHarness } from './live-harness.js';
import { maybeRecord, SIGNAL } from './run-adapter.js';

let codexHome: string;

const h = useLiveHarness('codex', async ({ work }) => {
  await writeFile(join(work, 'notes.txt'), `the done marker is ${SIGNAL}\n`);
  const server = await startFakeResponses({
    conversations: [
      // 0: success: a shell command and apply_patch change files, then the signal.
      [
        { type: 'function_call', name: 'exec_command', arguments: { cmd: "printf 'hello\\n' > hello.txt" }, text: 'Writing hello.txt.', usage: { input_tokens: 200, output_tokens: 30, cached_tokens: 50 } },
        { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch\n*** Add File: patched.txt\n+patched\n*** End Patch\n' },
        { type: 'text', text: `Done. ${SIGNAL}` },
      ],
      // 1: the signal only in a command's output.
      [{ type: 'function_call', name: 'exec_command', arguments: { cmd: 'cat notes.txt' } }, { type: 'text', text: 'I read the notes.' }],
      [{ type: 'error', status: 401 }],
      [{ type: 'error', status: 500 }],
      [{ type: 'error', status: 429, body: { error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: Math.floor(Date.now() / 1000) + 3600 } } }],
      [{ type: 'error', status: 429 }],
    ],
  });
  codexHome = await writeCodexHome(join(work, '.codex-home'), server.url);
  return server;
});

const adapter = createCodexAdapter();

function run(prompt: string, resumeSessionId: string | null = null) {
  return runLive(adapter, h, { prompt, env: { HOME: h.work, ...codexFakeEnv(codexHome) }, resumeSessionId });
}

describe('codex (real CLI) through the adapter', () => {
  let session: string | null = null;

  it('changes files with its own tools; text, usage and session parsed', async () => {
    const r = await run('Create hello.txt');
    await maybeRecord('codex', 'success', r.stdout);
    expect(r.exitCode).toBe(0);
    expect(await readFile(join(h.work, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(await readFile(join(h.work, 'patched.txt'), 'utf8')).toBe('patched\n');
    const s = summarize(r.events);
    expect(s.text).toBe(`Writing hello.txt.Done. ${SIGNAL}`);
    expect(s.usage).toEqual({ tokensIn: 350, tokensOut: 70, cacheRead: 50, cacheWrite: 0 });
    expect(s.costUsd).toBeNull();
    expect(r.events.find((e) => e.type === 'usage')).toMatchObject({ model: 'gpt-5.5' });
    session = s.sessionId;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('does not take text from command output', async () => {
    const r = await run('Read the notes');
    await maybeRecord('codex', 'tool-output-signal', r.stdout);
    expectSignalOnlyInToolOutput(r, 'I read the notes.');
  });

  const cases: [string, ErrorKind][] = [
    ['auth-401', 'auth'],
    ['overloaded-500', 'overloaded'],
    ['usage-limit-429', 'usage_limit'],
    ['rate-limit-429', 'rate_limit'],
  ];
  itClassifiesErrors('codex', cases, run, (s) => {
    // "try again at 2:09 PM": minute precision, so within an hour and a minute from now.
    expect(s.resetAtMs! - Date.now()).toBeGreaterThan(3_500_000);
    expect(s.resetAtMs! - Date.now()).toBeLessThanOrEqual(3_660_000);
  });

  it('resumes the first session with `exec resume <id> -`', async () => {
    const r = await run('Continue', session);
    expect(r.args.slice(0, 2)).toEqual(['exec', 'resume']);
    expect(r.args.slice(-2)).toEqual([session, '-']);
    expect(r.exitCode).toBe(0);
    expect(summarize(r.events).sessionId).toBe(session);
    const resumed = h.server.mainRequests().at(-1);
    expect(resumed?.conversation).toBe(0);
    expect(resumed?.step).toBe(3);
  });
});
