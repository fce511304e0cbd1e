// End-to-end: `ringmaster run --agent copilot` drives the real GitHub Copilot CLI (offline, bring-your-own
// provider) against the fake OpenAI Chat Completions server. Iteration 1 writes hello.txt through copilot's
// own create tool; iteration 2 signals completion. Tokens come from copilot's session log.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startOpenAiChatServer, type OpenAiChatServer } from '../fakes/openai-chat-server.js';
import { runCli } from '../helpers/cli.js';
import { agentEnv, completedIterations, createSandbox, iterationSummary, runArgs, runEvents, type Sandbox } from './real-cli.js';

let sandbox: Sandbox;
let server: OpenAiChatServer | null = null;
beforeEach(() => {
  sandbox = createSandbox('copilot');
});
afterEach(async () => {
  await server?.close();
  server = null;
  sandbox.cleanup();
});

it('copilot: writes the file in iteration 1, completes in iteration 2, tokens per iteration, cost unknown', { timeout: 180_000 }, async () => {
  const { repo, home } = sandbox;
  server = await startOpenAiChatServer({
    conversations: [
      [
        { toolCalls: [{ name: 'create', args: { path: join(repo, 'hello.txt'), file_text: 'hello from copilot\n' } }], usage: { input: 1200, output: 40 } },
        { text: 'I wrote hello.txt; more to check next time.', usage: { input: 1300, output: 12 } },
      ],
      [{ text: 'Everything is done. <promise>COMPLETE</promise>', usage: { input: 900, output: 15 } }],
    ],
  });
  // The key must be long: copilot masks secret values wherever they appear in its output.
  const env = agentEnv(home, {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: server.baseUrl,
    COPILOT_PROVIDER_API_KEY: 'sk-fake-copilot-key-0000',
    COPILOT_MODEL: 'gpt-4.1',
    COPILOT_AUTO_UPDATE: 'false',
  });

  const r = await runCli(runArgs('copilot', 'gpt-4.1'), { cwd: repo, env });

  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello from copilot\n');
  const events = runEvents(r.stdout);
  const iterations = iterationSummary(events).map((summary, i) => ({ ...summary, cost: completedIterations(events)[i]?.cost_usd }));
  // gpt-4.1 is not in the price table and copilot reports no USD cost: unknown, never a silent 0.
  expect(iterations).toEqual([
    { iteration: 1, outcome: 'success', exit: 0, signal: false, error: 'none', tokens: [2500, 52, 0, 0], cost: null, model: 'gpt-4.1', malformed: 0 },
    { iteration: 2, outcome: 'complete', exit: 0, signal: true, error: 'none', tokens: [900, 15, 0, 0], cost: null, model: 'gpt-4.1', malformed: 0 },
  ]);
  for (const e of completedIterations(events)) expect(e.session_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(events.at(-1)).toMatchObject({
    type: 'run_finished',
    status: 'completed',
    stop_reason: 'success_signal',
    iterations: 2,
    tokens_in: 3400,
    tokens_out: 67,
    cost_unknown: true,
  });
  const scripted = server.requests.filter((q) => q.answered === 'turn');
  expect(scripted.map((q) => [q.conversation, q.turn, q.model])).toEqual([
    [0, 0, 'gpt-4.1'],
    [0, 1, 'gpt-4.1'],
    [1, 0, 'gpt-4.1'],
  ]);
  expect(server.requests.filter((q) => q.answered !== 'turn')).toEqual([]);
  expect(JSON.stringify(scripted[0]?.body?.messages)).toContain('Create hello.txt in this directory.');
});
