// End-to-end: `ringmaster run --agent opencode` drives the real opencode CLI against the fake OpenAI Chat
// Completions server. Iteration 1 writes hello.txt through opencode's own write tool; iteration 2 signals
// completion. opencode prices the fake model from its config, so the cost is the CLI's own figure.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startOpenAiChatServer, type OpenAiChatServer } from '../fakes/openai-chat-server.js';
import { runCli } from '../helpers/cli.js';
import { agentEnv, completedIterations, createSandbox, iterationSummary, runArgs, runEvents, type Sandbox } from './real-cli.js';

let sandbox: Sandbox;
let server: OpenAiChatServer | null = null;
beforeEach(() => {
  sandbox = createSandbox('opencode');
});
afterEach(async () => {
  await server?.close();
  server = null;
  sandbox.cleanup();
});

it('opencode: writes the file in iteration 1, completes in iteration 2, tokens and its own cost per iteration', { timeout: 180_000 }, async () => {
  const { repo, home } = sandbox;
  server = await startOpenAiChatServer({
    conversations: [
      [
        { toolCalls: [{ name: 'write', args: { filePath: join(repo, 'hello.txt'), content: 'hello from opencode\n' } }], usage: { input: 1200, output: 40 } },
        { text: 'I wrote hello.txt; more to check next time.', usage: { input: 1300, output: 12 } },
      ],
      [{ text: 'Everything is done. <promise>COMPLETE</promise>', usage: { input: 900, output: 15 } }],
    ],
  });
  const config = {
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        options: { baseURL: server.baseUrl, apiKey: 'sk-fake-opencode-key' },
        // USD per million tokens: opencode computes its own cost from this.
        models: { 'fake-model': { cost: { input: 2, output: 10 } } },
      },
    },
    model: 'fake/fake-model',
    autoupdate: false,
    share: 'disabled',
  };
  const env = agentEnv(home, { OPENCODE_CONFIG_CONTENT: JSON.stringify(config), OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1' });

  const r = await runCli(runArgs('opencode', 'fake/fake-model'), { cwd: repo, env });

  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello from opencode\n');
  const events = runEvents(r.stdout);
  const iterations = iterationSummary(events);
  expect(iterations).toEqual([
    { iteration: 1, outcome: 'success', exit: 0, signal: false, error: 'none', tokens: [2500, 52, 0, 0], model: 'fake/fake-model', malformed: 0 },
    { iteration: 2, outcome: 'complete', exit: 0, signal: true, error: 'none', tokens: [900, 15, 0, 0], model: 'fake/fake-model', malformed: 0 },
  ]);
  // opencode's per-step costs, summed: (1200*2 + 40*10 + 1300*2 + 12*10) / 1e6 and (900*2 + 15*10) / 1e6.
  const costs = completedIterations(events).map((e) => e.cost_usd);
  expect(costs[0]).toBeCloseTo(0.00552, 12);
  expect(costs[1]).toBeCloseTo(0.00195, 12);
  for (const e of completedIterations(events)) expect(e.session_id).toMatch(/^ses_\w+$/);
  expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', iterations: 2, tokens_in: 3400, tokens_out: 67 });
  // Title requests are answered aside; the script saw two fresh conversations, the prompt arrived via stdin.
  const scripted = server.requests.filter((q) => q.answered === 'turn');
  expect(scripted.map((q) => [q.conversation, q.turn])).toEqual([
    [0, 0],
    [0, 1],
    [1, 0],
  ]);
  expect(server.requests.filter((q) => q.answered !== 'turn' && q.answered !== 'title')).toEqual([]);
  expect(JSON.stringify(scripted[0]?.body?.messages)).toContain('Create hello.txt in this directory.');
});
