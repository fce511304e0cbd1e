// The real `copilot` CLI (offline, bring-your-own provider) against the fake Chat Completions server,
// through the Copilot adapter's own invocation. With RECORD_STREAMS=1 it (re)writes
// test/fixtures/streams/copilot/*.jsonl (see the README; the session logs are copied by hand).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCopilotAdapter } from '../../src/agents/copilot.js';
import { startOpenAiChatServer } from '../fakes/openai-chat-server.js';
import { summarize } from './adapter-contract.js';
import { expectSignalOnlyInToolOutput, itClassifies401, itTakesLongPromptOnStdin, runLive, runResumed, useLiveHarness } from './live-harness.js';
import { maybeRecord, SIGNAL } from './run-adapter.js';

const LONG_TAIL = 'END-OF-LONG-PROMPT-9e2b';
const e401 = { status: 401, message: 'Incorrect API key provided.' };

const h = useLiveHarness('copilot', ({ work }) =>
  startOpenAiChatServer({
    conversations: [
      [
        { toolCalls: [{ name: 'create', args: { path: join(work, 'hello.txt'), file_text: 'hello from copilot\n' } }], usage: { input: 1200, output: 40 } },
        { text: 'I wrote hello.txt.', usage: { input: 1300, output: 12 } },
      ],
      [
        { toolCalls: [{ name: 'bash', args: { command: `echo "${SIGNAL}"`, description: 'echo the marker' } }], usage: { input: 500, output: 5 } },
        { text: 'The command ran; I am not done yet.', usage: { input: 600, output: 6 } },
        { text: 'Resumed where I left off.', usage: { input: 2000, output: 20 } },
      ],
      // copilot makes three attempts on a 401 before giving up.
      [{ failFirst: [e401, e401, e401] }],
      [{ text: 'Long prompt received.' }],
    ],
  }),
);

// One adapter for the whole file, as the runner keeps one per run: it reads tokens from $HOME/.copilot.
const adapter = createCopilotAdapter();

function run(prompt: string, resumeSessionId: string | null = null) {
  const env = {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: h.server.baseUrl,
    // Copilot masks secret values wherever they appear in its output: a one-letter key would mangle it.
    COPILOT_PROVIDER_API_KEY: 'sk-fake-copilot-key-0000',
    COPILOT_MODEL: 'gpt-4.1',
    COPILOT_AUTO_UPDATE: 'false',
  };
  return runLive(adapter, h, { prompt, env, resumeSessionId }, 120_000);
}

describe('copilot (real CLI) through the adapter', () => {
  let sessionWithTool: string | null = null;

  it('writes a file with its own tool; text, session, and tokens from the session log', async () => {
    const r = await run('Write hello.txt containing: hello from copilot');
    await maybeRecord('copilot', 'write-file', r.stdout);
    expect(r.exitCode).toBe(0);
    expect(await readFile(join(h.work, 'hello.txt'), 'utf8')).toBe('hello from copilot\n');
    const s = summarize(r.events);
    expect(s).toMatchObject({ text: 'I wrote hello.txt.', usage: { tokensIn: 2500, tokensOut: 52, cacheRead: 0, cacheWrite: 0 }, costUsd: null, errorKind: null, malformed: 0 });
    expect(s.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('does not take text from tool output or the echoed prompt', async () => {
    const r = await run(`Run the echo command. Say ${SIGNAL} only when done.`);
    await maybeRecord('copilot', 'signal-in-tool-output', r.stdout);
    const s = expectSignalOnlyInToolOutput(r, 'The command ran; I am not done yet.');
    expect(s.usage).toEqual({ tokensIn: 1100, tokensOut: 11, cacheRead: 0, cacheWrite: 0 });
    sessionWithTool = s.sessionId;
  });

  it('resumes the previous session with --resume: earlier turns sent, only the new tokens counted', async () => {
    const before = h.server.requests.length;
    const r = await runResumed(run, sessionWithTool);
    expect(summarize(r.events)).toMatchObject({
      sessionId: sessionWithTool,
      text: 'Resumed where I left off.',
      usage: { tokensIn: 2000, tokensOut: 20, cacheRead: 0, cacheWrite: 0 },
    });
    expect(h.server.requests.slice(before).map((q) => q.assistantTurns)).toEqual([2]);
  });

  itClassifies401('classifies a 401 as auth after its own retries (exit 1)', 'copilot', run, 1);

  itTakesLongPromptOnStdin(run, LONG_TAIL, () => h.server.requests.at(-1)?.body?.messages);
});
