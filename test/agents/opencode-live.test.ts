// The real `opencode` CLI against the fake Chat Completions server, through the opencode adapter's own
// invocation. With RECORD_STREAMS=1 it (re)writes test/fixtures/streams/opencode/*.jsonl (see the README).
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpencodeAdapter } from '../../src/agents/opencode.js';
import { startOpenAiChatServer, type OpenAiChatServer } from '../fakes/openai-chat-server.js';
import { summarize } from './adapter-contract.js';
import { invocationOptions, maybeRecord, runAdapter } from './run-adapter.js';

const SIGNAL = '<promise>COMPLETE</promise>';
const LONG_TAIL = 'END-OF-LONG-PROMPT-5c1d';

let server: OpenAiChatServer;
let root: string;
let work: string;
let home: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rm-opencode-live-'));
  work = join(root, 'work');
  home = join(root, 'home');
  await mkdir(work);
  await mkdir(home);
  server = await startOpenAiChatServer({
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
  });
});

afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const adapter = createOpencodeAdapter();

function run(prompt: string, resumeSessionId: string | null = null) {
  const config = {
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        options: { baseURL: server.baseUrl, apiKey: 'sk-fake-opencode-key' },
        models: { 'fake-model': { cost: { input: 2, output: 10 } } },
      },
    },
    model: 'fake/fake-model',
    autoupdate: false,
    share: 'disabled',
  };
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
  };
  return runAdapter(adapter, invocationOptions({ prompt, cwd: work, env, model: 'fake/fake-model', resumeSessionId }), 120_000);
}

describe('opencode (real CLI) through the adapter', () => {
  let sessionWithTool: string | null = null;

  it('writes a file with its own tool; text, per-step usage and cost, session parsed', async () => {
    const r = await run('Write hello.txt containing: hello from opencode');
    await maybeRecord('opencode', 'write-file', r.stdout);
    expect(r.exitCode).toBe(0);
    expect(await readFile(join(work, 'hello.txt'), 'utf8')).toBe('hello from opencode\n');
    const s = summarize(r.events);
    expect(s).toMatchObject({ text: 'I wrote hello.txt.', usage: { tokensIn: 2500, tokensOut: 52, cacheRead: 0, cacheWrite: 0 }, errorKind: null, malformed: 0 });
    expect(s.costUsd).toBeCloseTo(0.00552, 12);
    expect(s.sessionId).toMatch(/^ses_\w+$/);
  });

  it('does not take text from tool output', async () => {
    const r = await run(`Run the echo command. Say ${SIGNAL} only when done.`);
    await maybeRecord('opencode', 'signal-in-tool-output', r.stdout);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(SIGNAL);
    const s = summarize(r.events);
    expect(s.text).toBe('The command ran; I am not done yet.');
    sessionWithTool = s.sessionId;
  });

  it('continues the previous session with --session: the model sees the earlier turns', async () => {
    expect(sessionWithTool).not.toBeNull();
    const before = server.requests.length;
    const r = await run('Go on.', sessionWithTool);
    expect(r.args).toContain(sessionWithTool);
    expect(r.exitCode).toBe(0);
    expect(summarize(r.events)).toMatchObject({ sessionId: sessionWithTool, text: 'Resumed where I left off.' });
    expect(server.requests.slice(before).filter((q) => q.answered !== 'title').map((q) => q.assistantTurns)).toEqual([2]);
  });

  it('classifies a 401 as auth (exit 1, error event with statusCode)', async () => {
    const r = await run('hi');
    await maybeRecord('opencode', 'auth-401', r.stdout);
    expect(r.exitCode).toBe(1);
    expect(summarize(r.events).errorKind).toBe('auth');
  });

  it('takes a long prompt on stdin (never argv)', async () => {
    const prompt = `${'Context line that makes the prompt long.\n'.repeat(6000)}${LONG_TAIL}`;
    const r = await run(prompt);
    expect(r.exitCode).toBe(0);
    expect(r.args.join(' ').length).toBeLessThan(200);
    expect(summarize(r.events).text).toBe('Long prompt received.');
    const main = server.requests.filter((q) => q.answered === 'turn').at(-1);
    expect(JSON.stringify(main?.body?.messages)).toContain(LONG_TAIL);
  });
});
