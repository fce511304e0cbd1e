// End-to-end: `ringmaster run --agent gemini` drives the real Gemini CLI against the fake Gemini API.
// Iteration 1 writes hello.txt through gemini's own write_file tool; iteration 2 signals completion.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startGeminiServer, type GeminiServer } from '../fakes/gemini-server.js';
import { runCli } from '../helpers/cli.js';
import { agentEnv, completedIterations, createSandbox, iterationSummary, runArgs, runEvents, type Sandbox } from './real-cli.js';

let sandbox: Sandbox;
let server: GeminiServer | null = null;
beforeEach(() => {
  sandbox = createSandbox('gemini');
});
afterEach(async () => {
  await server?.close();
  server = null;
  sandbox.cleanup();
});

it('gemini: writes the file in iteration 1, completes in iteration 2, tokens and cost per iteration', { timeout: 180_000 }, async () => {
  const { repo, home } = sandbox;
  server = await startGeminiServer({
    conversations: [
      [
        { toolCalls: [{ name: 'write_file', args: { file_path: join(repo, 'hello.txt'), content: 'hello from gemini\n' } }], usage: { input: 1200, output: 40 } },
        { text: 'I wrote hello.txt; more to check next time.', usage: { input: 1300, output: 12 } },
      ],
      [{ text: 'Everything is done. <promise>COMPLETE</promise>', usage: { input: 900, output: 15 } }],
    ],
  });
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } }),
  );
  const env = agentEnv(home, { GEMINI_API_KEY: 'fake-gemini-key', GOOGLE_GEMINI_BASE_URL: server.url });

  const r = await runCli(runArgs('gemini', 'gemini-2.5-pro'), { cwd: repo, env });

  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello from gemini\n');
  const events = runEvents(r.stdout);
  const iterations = iterationSummary(events);
  expect(iterations).toEqual([
    { iteration: 1, outcome: 'success', exit: 0, signal: false, error: 'none', tokens: [2500, 52, 0, 0], model: 'gemini-2.5-pro', malformed: 0 },
    { iteration: 2, outcome: 'complete', exit: 0, signal: true, error: 'none', tokens: [900, 15, 0, 0], model: 'gemini-2.5-pro', malformed: 0 },
  ]);
  // No CLI cost: tokens x the dated price table (gemini-2.5-pro: $1.25 in / $10 out per million).
  const costs = completedIterations(events).map((e) => e.cost_usd);
  expect(costs[0]).toBeCloseTo(2500 * 1.25e-6 + 52 * 10e-6, 12);
  expect(costs[1]).toBeCloseTo(900 * 1.25e-6 + 15 * 10e-6, 12);
  for (const e of completedIterations(events)) expect(e.session_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', iterations: 2, tokens_in: 3400, tokens_out: 67 });
  // The prompt reached the model through stdin, and each iteration was a fresh conversation.
  const scripted = server.requests.filter((q) => q.answered === 'turn');
  expect(scripted.map((q) => [q.conversation, q.turn, q.model])).toEqual([
    [0, 0, 'gemini-2.5-pro'],
    [0, 1, 'gemini-2.5-pro'],
    [1, 0, 'gemini-2.5-pro'],
  ]);
  expect(JSON.stringify(scripted[0]?.body?.contents)).toContain('Create hello.txt in this directory.');
});
