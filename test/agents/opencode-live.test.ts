// The real `opencode` CLI against the fake Chat Completions server, through the opencode adapter's own
// invocation. With RECORD_STREAMS=1 it (re)writes test/fixtures/streams/opencode/*.jsonl (see the README).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createOpencodeAdapter } from '../../src/agents/opencode.js';
import { startOpenAiChatServer } from '../fakes/openai-chat-server.js';
import { summarize } from './adapter-contract.js';
import { expectSignalOnlyInToolOutput, itClassifies401, itTakesLongPromptOnStdin, runLive, runResumed, useLiveHarness } from './live-harness.js';
import { maybeRecord, SIGNAL } from './run-adapter.js';

const LONG_TAIL = 'END-OF-LONG-PROMPT-5c1d';

const h = useLiveHarness('opencode', ({ work }) =>
  startOpenAiChatServer({
    conversations: [
      [
        { toolCalls: [{ name: 'write', args: { filePath: join(work, 'hello.txt'), content: 'hello from opencode\n' } }], usage: { input: 1200, output: 40 } },
        { text: 'I wrote hello.txt.', usage: { input: 1300, output: 12 } },
      ],
      [
        { toolCalls: [{ name: 'bash', args: { command: `echo "${SIGNAL}"`, description: 'echo the marker' } }] },
        { text: 'The command ran; I am not done yet.' },
        { text: 'Resumed where I left off.' },
      ],
      [{ failFirst: [{ status: 401, message: 'Incorrect API key provided: sk-fake.' }] }],
      [{ text: 'Long prompt received.' }],
    ],
  }),
);

const adapter = createOpencodeAdapter();

function run(prompt: string, resumeSessionId: string | null = null) {
  const config = {
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        options: { baseURL: h.server.baseUrl, apiKey: 'sk-fake-opencode-key' },
        models: { 'fake-model': { cost: { input: 2, output: 10 } } },
      },
    },
    model: 'fake/fake-model',
    autoupdate: false,
    share: 'disabled',
  };
  const env = {
    XDG_CONFIG_HOME: join(h.home, '.config'),
    XDG_DATA_HOME: join(h.home, '.local', 'share'),
    XDG_CACHE_HOME: join(h.home, '.cache'),
    XDG_STATE_HOME: join(h.home, '.local', 'state'),
    OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
  };
  return runLive(adapter, h, { prompt, env, model: 'fake/fake-model', resumeSessionId }, 120_000);
}

describe('opencode (real CLI) through the adapter', () => {
  let sessionWithTool: string | null = null;

  it('writes a file with its own tool; text, per-step usage and cost, session parsed', async () => {
    const r = await run('Write hello.txt containing: hello from opencode');
    await maybeRecord('opencode', 'write-file', r.stdout);
    expect(r.exitCode).toBe(0);
    expect(await readFile(join(h.work, 'hello.txt'), 'utf8')).toBe('hello from opencode\n');
    const s = summarize(r.events);
    expect(s).toMatchObject({ text: 'I wrote hello.txt.', usage: { tokensIn: 2500, tokensOut: 52, cacheRead: 0, cacheWrite: 0 }, errorKind: null, malformed: 0 });
    expect(s.costUsd).toBeCloseTo(0.00552, 12);
    expect(s.sessionId).toMatch(/^ses_\w+$/);
  });

  it('does not take text from tool output', async () => {
    const r = await run(`Run the echo command. Say ${SIGNAL} only when done.`);
    await maybeRecord('opencode', 'signal-in-tool-output', r.stdout);
    sessionWithTool = expectSignalOnlyInToolOutput(r, 'The command ran; I am not done yet.').sessionId;
  });

  it('continues the previous session with --session: the model sees the earlier turns', async () => {
    const before = h.server.requests.length;
    const r = await runResumed(run, sessionWithTool);
    expect(summarize(r.events)).toMatchObject({ sessionId: sessionWithTool, text: 'Resumed where I left off.' });
    expect(h.server.requests.slice(before).filter((q) => q.answered !== 'title').map((q) => q.assistantTurns)).toEqual([2]);
  });

  itClassifies401('classifies a 401 as auth (exit 1, error event with statusCode)', 'opencode', run, 1);

  itTakesLongPromptOnStdin(run, LONG_TAIL, () => h.server.requests.filter((q) => q.answered === 'turn').at(-1)?.body?.messages);
});
