// End-to-end: `ringmaster run --agent codex` drives the real Codex CLI against the fake OpenAI Responses API:
// a two-iteration loop (file written by codex's own shell tool, then the signal; cost from tokens x the
// price table), a 401 that stops the run at once, an overload that is retried, fallback to claude, and a
// usage limit whose reset time ("try again at 3:07 PM", minute precision) makes the run wait and continue.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { claudeFakeEnv, startFakeAnthropic, type FakeAnthropicServer } from '../fakes/anthropic-server.js';
import { codexFakeEnv, startFakeResponses, writeCodexHome, type FakeResponsesServer } from '../fakes/openai-responses-server.js';
import { runCli } from '../helpers/cli.js';
import { agentEnv, completedIterations, createSandbox, lifecycleTypes, runArgs, runEvents, type Sandbox } from './real-cli.js';

let sandbox: Sandbox;
let repo: string;
let home: string;
let server: FakeResponsesServer | null = null;
let anthropic: FakeAnthropicServer | null = null;

beforeEach(() => {
  sandbox = createSandbox('codex');
  ({ repo, home } = sandbox);
});
afterEach(async () => {
  await server?.close();
  await anthropic?.close();
  server = null;
  anthropic = null;
  sandbox.cleanup();
});

async function env(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const codexHome = await writeCodexHome(join(home, '.codex'), server!.url);
  return agentEnv(home, { ...codexFakeEnv(codexHome), ...extra });
}


const ARGS = runArgs('codex', null);

it('codex: writes the file in iteration 1, completes in iteration 2, tokens and cost per iteration', { timeout: 180_000 }, async () => {
  server = await startFakeResponses({
    conversations: [
      [
        { type: 'function_call', name: 'exec_command', arguments: { cmd: "printf 'hello from codex\\n' > hello.txt" }, usage: { input_tokens: 1000, output_tokens: 40 } },
        { type: 'text', text: 'Wrote hello.txt; more to check next time.', usage: { input_tokens: 1100, output_tokens: 12, cached_tokens: 800 } },
      ],
      [{ type: 'text', text: 'Everything is done. <promise>COMPLETE</promise>', usage: { input_tokens: 900, output_tokens: 15 } }],
    ],
  });
  const r = await runCli(ARGS, { cwd: repo, env: await env() });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello from codex\n');
  const all = runEvents(r.stdout);
  const rows = completedIterations(all).map((e) => ({
    n: e.iteration,
    outcome: e.outcome,
    signal: e.completion_signal_found,
    error: e.error_kind,
    tokens: [e.tokens_in, e.tokens_out, e.cache_read, e.cache_write],
    model: e.model,
  }));
  expect(rows).toEqual([
    { n: 1, outcome: 'success', signal: false, error: 'none', tokens: [1300, 52, 800, 0], model: 'gpt-5.5' },
    { n: 2, outcome: 'complete', signal: true, error: 'none', tokens: [900, 15, 0, 0], model: 'gpt-5.5' },
  ]);
  // No CLI cost: tokens x the dated price table (gpt-5.5: $5 in / $30 out / $0.50 cache read per million).
  const costs = completedIterations(all).map((e) => e.cost_usd);
  expect(costs[0]).toBeCloseTo(1300 * 5e-6 + 52 * 30e-6 + 800 * 0.5e-6, 12);
  expect(costs[1]).toBeCloseTo(900 * 5e-6 + 15 * 30e-6, 12);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', iterations: 2 });
});

it('codex: a 401 stops the run at once with a clear message', { timeout: 180_000 }, async () => {
  server = await startFakeResponses({ conversations: [[{ type: 'error', status: 401 }], [{ type: 'error', status: 401 }]] });
  const r = await runCli(ARGS, { cwd: repo, env: await env() });
  expect(r.code).toBe(1);
  const all = runEvents(r.stdout);
  expect(completedIterations(all).map((e) => [e.iteration, e.error_kind])).toEqual([[1, 'auth']]);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', stop_reason: 'fatal_error', iterations: 1 });
  expect(JSON.stringify(all.at(-1))).toContain('401 Unauthorized');
});

it('codex: an overload is retried and does not count as a failure', { timeout: 180_000 }, async () => {
  server = await startFakeResponses({
    conversations: [[{ type: 'error', status: 500 }], [{ type: 'text', text: 'Done. <promise>COMPLETE</promise>' }]],
  });
  const r = await runCli([...ARGS, '--failure-threshold', '1'], { cwd: repo, env: await env() });
  expect(r.code).toBe(0);
  const all = runEvents(r.stdout);
  expect(completedIterations(all).map((e) => [e.iteration, e.outcome, e.error_kind])).toEqual([
    [1, 'waiting', 'overloaded'],
    [2, 'complete', 'none'],
  ]);
});

it('codex: a usage limit switches to the fallback agent (claude)', { timeout: 180_000 }, async () => {
  server = await startFakeResponses({
    conversations: [[{ type: 'error', status: 429, body: { error: { type: 'usage_limit_reached', message: 'limit', plan_type: 'plus', resets_at: Math.floor(Date.now() / 1000) + 3600 } } }]],
  });
  anthropic = await startFakeAnthropic({ conversations: [[{ type: 'text', text: 'Done. <promise>COMPLETE</promise>' }]] });
  const r = await runCli(ARGS, {
    cwd: repo,
    env: await env({ ...claudeFakeEnv(anthropic.url, join(home, '.claude')), RINGMASTER_AGENT_FALLBACK: 'claude' }),
  });
  expect(r.code).toBe(0);
  const all = runEvents(r.stdout);
  expect(all.find((e) => e.type === 'agent_switched')).toMatchObject({ from: 'codex', to: 'claude' });
  expect(completedIterations(all).map((e) => [e.iteration, e.agent, e.error_kind])).toEqual([
    [1, 'codex', 'usage_limit'],
    [2, 'claude', 'none'],
  ]);
});

it('codex: a usage limit with a reset time waits until then, then the loop continues', { timeout: 180_000 }, async () => {
  // Codex prints the reset as local wall-clock time to the minute ("try again at 3:07 PM", seconds cut off),
  // so a reset seconds ahead may read as the current minute, already begun: that means now, not tomorrow.
  const resetsAtMs = (Math.floor(Date.now() / 1000) + 3) * 1000;
  server = await startFakeResponses({
    conversations: [
      [{ type: 'error', status: 429, body: { error: { type: 'usage_limit_reached', message: 'limit', plan_type: 'plus', resets_at: resetsAtMs / 1000 } } }],
      [{ type: 'text', text: 'Done. <promise>COMPLETE</promise>' }],
    ],
  });
  const r = await runCli(ARGS, { cwd: repo, env: await env({ RINGMASTER_LOOP_BACKOFF: '200ms' }) });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const all = runEvents(r.stdout);
  expect(lifecycleTypes(all)).toEqual(['run_started', 'iteration_started', 'iteration_completed', 'waiting', 'iteration_started', 'iteration_completed', 'run_finished']);
  expect(completedIterations(all).map((e) => [e.iteration, e.agent, e.outcome, e.error_kind])).toEqual([
    [1, 'codex', 'waiting', 'usage_limit'],
    [2, 'codex', 'complete', 'none'],
  ]);
  expect(completedIterations(all)[0]?.error_message).toMatch(/^You[’']ve hit your usage limit\..* try again at (?:[A-Z][a-z]{2} \d{1,2}[a-z]{2}, \d{4} )?\d{1,2}:\d{2} [AP]M\.$/);
  const waiting = all.find((e) => e.type === 'waiting');
  expect(waiting).toMatchObject({ type: 'waiting', iteration: 1, reason: 'usage_limit' });
  // The wait ends at the named minute or, when that minute has begun, after the short backoff: never a day.
  if (waiting?.type !== 'waiting') throw new Error('no waiting event');
  const waitedAt = waiting.time;
  expect(waiting.until).toBeGreaterThan(waitedAt);
  expect(waiting.until).toBeLessThanOrEqual(Math.max(resetsAtMs, waitedAt + 1000));
  const second = all.filter((e) => e.type === 'iteration_started')[1];
  expect(second?.time ?? 0).toBeGreaterThanOrEqual(waiting.until);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', iterations: 2 });
});
