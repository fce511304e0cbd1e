// The real `gemini` CLI against the fake Gemini API, through the Gemini adapter's own invocation. With
// RECORD_STREAMS=1 it (re)writes test/fixtures/streams/gemini/*.jsonl (see the README there).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGeminiAdapter } from '../../src/agents/gemini.js';
import { startGeminiServer } from '../fakes/gemini-server.js';
import { summarize } from './adapter-contract.js';
import { itClassifies401, itTakesLongPromptOnStdin, runLive, runResumed, useLiveHarness } from './live-harness.js';
import { maybeRecord, SIGNAL } from './run-adapter.js';

const QUOTA = 'Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 0, model: gemini-2.5-pro. Please retry in 3600s.';
const LONG_TAIL = 'END-OF-LONG-PROMPT-7f3a';

const h = useLiveHarness('gemini', async ({ work, home }) => {
  await mkdir(join(home, '.gemini'), { recursive: true });
  await writeFile(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } }),
  );
  return startGeminiServer({
    conversations: [
      // 0: write a file with the CLI's own tool, then say so.
      [
        { toolCalls: [{ name: 'write_file', args: { file_path: join(work, 'hello.txt'), content: 'hello from gemini\n' } }], usage: { input: 1200, output: 40 } },
        { text: 'I wrote hello.txt.', usage: { input: 1300, output: 12 } },
      ],
      // 1: the signal only in a shell tool's output; turn 2 answers the resumed session.
      [
        { toolCalls: [{ name: 'run_shell_command', args: { command: `echo "${SIGNAL}"`, description: 'echo' } }] },
        { text: 'The command ran; I am not done yet.' },
        { text: 'Resumed where I left off.' },
      ],
      [{ failFirst: [{ status: 401, message: 'API key not valid. Please pass a valid API key.' }] }],
      [{ failFirst: [{ status: 429, message: QUOTA }] }],
      [{ text: 'Long prompt received.' }],
    ],
  });
});

const adapter = createGeminiAdapter();

function run(prompt: string, resumeSessionId: string | null = null) {
  // TMPDIR: gemini writes an error report file to the temp dir on every API error.
  const env = { TMPDIR: h.root, GEMINI_API_KEY: 'fake-gemini-key', GOOGLE_GEMINI_BASE_URL: h.server.url };
  return runLive(adapter, h, { prompt, env, model: 'gemini-2.5-pro', resumeSessionId }, 120_000);
}

describe('gemini (real CLI) through the adapter', () => {
  let sessionWithTool: string | null = null;

  it('writes a file with its own tool; text, usage and session parsed', async () => {
    const r = await run('Write hello.txt containing: hello from gemini');
    await maybeRecord('gemini', 'write-file', r.stdout);
    expect(r.exitCode).toBe(0);
    expect(await readFile(join(h.work, 'hello.txt'), 'utf8')).toBe('hello from gemini\n');
    const s = summarize(r.events);
    expect(s).toMatchObject({ text: 'I wrote hello.txt.', usage: { tokensIn: 2500, tokensOut: 52, cacheRead: 0, cacheWrite: 0 }, costUsd: null, errorKind: null, malformed: 0 });
    expect(s.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('does not take text from tool output or the echoed prompt', async () => {
    const r = await run(`Run the echo command. Say ${SIGNAL} only when done.`);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split(SIGNAL).length).toBe(4); // echoed prompt, tool parameters, tool output
    const s = summarize(r.events);
    expect(s.text).toBe('The command ran; I am not done yet.');
    sessionWithTool = s.sessionId;
  });

  it('resumes the previous session by id: the model sees the earlier turns', async () => {
    const before = h.server.requests.length;
    const r = await runResumed(run, sessionWithTool);
    expect(summarize(r.events)).toMatchObject({ sessionId: sessionWithTool, text: 'Resumed where I left off.' });
    // The resumed request carries the two model turns of the earlier run.
    expect(h.server.requests.slice(before).map((q) => q.modelTurns)).toEqual([2]);
  });

  itClassifies401('classifies a 401 as auth (exit 145 = 401 mod 256)', 'gemini', run, 145);

  it('classifies a terminal quota 429 as a usage limit with its reset time (exit 173)', async () => {
    const before = Date.now();
    const r = await run('hi');
    await maybeRecord('gemini', 'quota-429', r.stdout);
    expect(r.exitCode).toBe(173);
    const s = summarize(r.events);
    expect(s.errorKind).toBe('usage_limit');
    expect(s.resetAtMs).toBeGreaterThanOrEqual(before + 3600_000);
  });

  itTakesLongPromptOnStdin(run, LONG_TAIL, () => h.server.requests.at(-1)?.body?.contents);
});
