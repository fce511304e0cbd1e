// The real `copilot` CLI (offline, bring-your-own provider) against the fake Chat Completions server,
// through the Copilot adapter's own invocation. With RECORD_STREAMS=1 it (re)writes
// test/fixtures/streams/copilot/*.jsonl (see the README; the session logs are copied by hand).
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCopilotAdapter } from '../../src/agents/copilot.js';
import { startOpenAiChatServer, type OpenAiChatServer } from '../fakes/openai-chat-server.js';
import { summarize } from './adapter-contract.js';
import { invocationOptions, maybeRecord, runAdapter } from './run-adapter.js';

const SIGNAL = '<promise>COMPLETE</promise>';
const LONG_TAIL = 'END-OF-LONG-PROMPT-9e2b';
const e401 = { status: 401, message: 'Incorrect API key provided.' };

let server: OpenAiChatServer;
let root: string;
let work: string;
let home: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rm-copilot-live-'));
  work = join(root, 'work');
  home = join(root, 'home');
  await mkdir(work);
  await mkdir(home);
  server = await startOpenAiChatServer({
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
  });
});

afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

// One adapter for the whole file, as the runner keeps one per run: it reads tokens from $HOME/.copilot.
const adapter = createCopilotAdapter();

function run(prompt: string, resumeSessionId: string | null = null) {
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: server.baseUrl,
    // Copilot masks secret values wherever they appear in its output: a one-letter key would mangle it.
    COPILOT_PROVIDER_API_KEY: 'sk-fake-copilot-key-0000',
    COPILOT_MODEL: 'gpt-4.1',
    COPILOT_AUTO_UPDATE: 'false',
  };
  return runAdapter(adapter, invocationOptions({ prompt, cwd: work, env, resumeSessionId }), 120_000);
}

describe('copilot (real CLI) through the adapter', () => {
  let sessionWithTool: string | null = null;

  it('writes a file with its own tool; text, session, and tokens from the session log', async () => {
    const r = await run('Write hello.txt containing: hello from copilot');
    await maybeRecord('copilot', 'write-file', r.stdout);
    expect(r.exitCode).toBe(0);
    expect(await readFile(join(work, 'hello.txt'), 'utf8')).toBe('hello from copilot\n');
    const s = summarize(r.events);
    expect(s).toMatchObject({ text: 'I wrote hello.txt.', usage: { tokensIn: 2500, tokensOut: 52, cacheRead: 0, cacheWrite: 0 }, costUsd: null, errorKind: null, malformed: 0 });
    expect(s.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('does not take text from tool output or the echoed prompt', async () => {
    const r = await run(`Run the echo command. Say ${SIGNAL} only when done.`);
    await maybeRecord('copilot', 'signal-in-tool-output', r.stdout);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(SIGNAL);
    const s = summarize(r.events);
    expect(s.text).toBe('The command ran; I am not done yet.');
    expect(s.usage).toEqual({ tokensIn: 1100, tokensOut: 11, cacheRead: 0, cacheWrite: 0 });
    sessionWithTool = s.sessionId;
  });

  it('resumes the previous session with --resume: earlier turns sent, only the new tokens counted', async () => {
    expect(sessionWithTool).not.toBeNull();
    const before = server.requests.length;
    const r = await run('Go on.', sessionWithTool);
    expect(r.args).toContain(sessionWithTool);
    expect(r.exitCode).toBe(0);
    expect(summarize(r.events)).toMatchObject({
      sessionId: sessionWithTool,
      text: 'Resumed where I left off.',
      usage: { tokensIn: 2000, tokensOut: 20, cacheRead: 0, cacheWrite: 0 },
    });
    expect(server.requests.slice(before).map((q) => q.assistantTurns)).toEqual([2]);
  });

  it('classifies a 401 as auth after its own retries (exit 1)', async () => {
    const r = await run('hi');
    await maybeRecord('copilot', 'auth-401', r.stdout);
    expect(r.exitCode).toBe(1);
    expect(summarize(r.events).errorKind).toBe('auth');
  });

  it('takes a long prompt on stdin (never argv)', async () => {
    const prompt = `${'Context line that makes the prompt long.\n'.repeat(6000)}${LONG_TAIL}`;
    const r = await run(prompt);
    expect(r.exitCode).toBe(0);
    expect(r.args.join(' ').length).toBeLessThan(200);
    expect(summarize(r.events).text).toBe('Long prompt received.');
    expect(JSON.stringify(server.requests.at(-1)?.body?.messages)).toContain(LONG_TAIL);
  });
});
