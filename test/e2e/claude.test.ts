// End-to-end: `ringmaster run --agent claude` drives the real Claude Code CLI against the fake Anthropic API:
// a two-iteration loop (file written by claude's Write tool, then the signal), a 401 that stops the run at
// once, a usage limit with a reset time that makes the run wait and then continue, an overload (529) that
// is retried without counting as a failure, and a usage limit that switches to the fallback agent (codex).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { claudeFakeEnv, startFakeAnthropic, type FakeAnthropicServer } from '../fakes/anthropic-server.js';
import { codexFakeEnv, startFakeResponses, writeCodexHome, type FakeResponsesServer } from '../fakes/openai-responses-server.js';
import { findTagged, runTagMatcher } from '../../src/os/process-tag.js';
import { runCli } from '../helpers/cli.js';
import { agentEnv, completedIterations, createSandbox, lifecycleTypes, runArgs, runEvents, type Sandbox } from './real-cli.js';

let sandbox: Sandbox;
let repo: string;
let home: string;
let server: FakeAnthropicServer | null = null;
let responses: FakeResponsesServer | null = null;

beforeEach(() => {
  sandbox = createSandbox('claude');
  ({ repo, home } = sandbox);
});
afterEach(async () => {
  await server?.close();
  await responses?.close();
  server = null;
  responses = null;
  sandbox.cleanup();
});

function env(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return agentEnv(home, { ...claudeFakeEnv(url, join(home, '.claude')), CLAUDE_CODE_MAX_RETRIES: '0', ...extra });
}


const ARGS = runArgs('claude', null);

it('claude: writes the file in iteration 1, completes in iteration 2, tokens and cost per iteration', { timeout: 180_000 }, async () => {
  server = await startFakeAnthropic({
    conversations: [
      [
        (ctx) => ({ type: 'tool_use', name: 'Write', input: { file_path: join(ctx.cwd ?? repo, 'hello.txt'), content: 'hello from claude\n' }, usage: { input_tokens: 1000, output_tokens: 40 } }),
        { type: 'text', text: 'Wrote hello.txt; more to check next time.', usage: { input_tokens: 1100, output_tokens: 12 } },
      ],
      [{ type: 'text', text: 'Everything is done. <promise>COMPLETE</promise>', usage: { input_tokens: 900, output_tokens: 15 } }],
    ],
  });
  const r = await runCli(ARGS, { cwd: repo, env: env(server.url) });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello from claude\n');
  const all = runEvents(r.stdout);
  const rows = completedIterations(all).map((e) => ({ n: e.iteration, outcome: e.outcome, signal: e.completion_signal_found, error: e.error_kind, tokens: [e.tokens_in, e.tokens_out] }));
  expect(rows).toEqual([
    { n: 1, outcome: 'success', signal: false, error: 'none', tokens: [2100, expect.any(Number) as number] },
    { n: 2, outcome: 'complete', signal: true, error: 'none', tokens: [900, expect.any(Number) as number] },
  ]);
  for (const e of completedIterations(all)) {
    expect(e.cost_usd).toBeGreaterThan(0);
    expect(e.session_id).toMatch(/^[0-9a-f-]{36}$/);
  }
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', iterations: 2 });
});

it('claude: a 401 stops the run at once with a clear message', { timeout: 180_000 }, async () => {
  server = await startFakeAnthropic({ conversations: [[{ type: 'error', status: 401 }], [{ type: 'error', status: 401 }]] });
  const r = await runCli(ARGS, { cwd: repo, env: env(server.url) });
  expect(r.code).toBe(1);
  const all = runEvents(r.stdout);
  expect(completedIterations(all).map((e) => [e.iteration, e.error_kind])).toEqual([[1, 'auth']]);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', stop_reason: 'fatal_error', iterations: 1 });
  expect(JSON.stringify(all.at(-1))).toContain('Invalid API key');
});

it('claude: a usage limit with a reset time waits, then the loop continues', { timeout: 180_000 }, async () => {
  server = await startFakeAnthropic({
    conversations: [
      [{ type: 'error', status: 429, body: { type: 'error', error: { type: 'rate_limit_error', message: "You've hit your limit · resets in 2 seconds" } } }],
      [{ type: 'text', text: 'Done. <promise>COMPLETE</promise>' }],
    ],
  });
  const r = await runCli(ARGS, { cwd: repo, env: env(server.url) });
  expect(r.code).toBe(0);
  const all = runEvents(r.stdout);
  expect(completedIterations(all).map((e) => [e.iteration, e.outcome, e.error_kind])).toEqual([
    [1, 'waiting', 'usage_limit'],
    [2, 'complete', 'none'],
  ]);
  const waiting = all.find((e) => e.type === 'waiting');
  expect(waiting).toMatchObject({ type: 'waiting', reason: 'usage_limit' });
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal' });
});

it('claude: an overload (529) is retried after a backoff and does not count as a failure', { timeout: 180_000 }, async () => {
  server = await startFakeAnthropic({
    conversations: [[{ type: 'error', status: 529 }], [{ type: 'text', text: 'Done. <promise>COMPLETE</promise>' }]],
  });
  const r = await runCli([...ARGS, '--failure-threshold', '1'], { cwd: repo, env: env(server.url, { RINGMASTER_LOOP_BACKOFF: '200ms' }) });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const all = runEvents(r.stdout);
  expect(lifecycleTypes(all)).toEqual(['run_started', 'iteration_started', 'iteration_completed', 'waiting', 'iteration_started', 'iteration_completed', 'run_finished']);
  expect(completedIterations(all).map((e) => [e.iteration, e.outcome, e.error_kind, e.consecutive_failures, e.agent])).toEqual([
    [1, 'waiting', 'overloaded', 0, 'claude'],
    [2, 'complete', 'none', 0, 'claude'],
  ]);
  const waiting = all.find((e) => e.type === 'waiting');
  expect(waiting).toMatchObject({ type: 'waiting', iteration: 1, reason: 'overloaded' });
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', iterations: 2, consecutive_failures: 0 });
  // Iteration 2 was a fresh request to the model after the overload answer.
  expect(server.mainRequests().map((q) => [q.conversation, q.step, q.turn?.type])).toEqual([
    [0, 0, 'error'],
    [1, 0, 'text'],
  ]);
});

it('claude: a usage limit switches to the fallback agent (codex), which completes', { timeout: 180_000 }, async () => {
  server = await startFakeAnthropic({
    conversations: [[{ type: 'error', status: 429, body: { type: 'error', error: { type: 'rate_limit_error', message: "You've hit your limit · resets in 2 hours" } } }]],
  });
  responses = await startFakeResponses({ conversations: [[{ type: 'text', text: 'Done. <promise>COMPLETE</promise>' }]] });
  const codexHome = await writeCodexHome(join(home, '.codex'), responses.url);
  const r = await runCli(ARGS, { cwd: repo, env: env(server.url, { ...codexFakeEnv(codexHome), RINGMASTER_AGENT_FALLBACK: 'codex' }) });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const all = runEvents(r.stdout);
  expect(lifecycleTypes(all)).toEqual([
    'run_started',
    'iteration_started',
    'iteration_completed',
    'agent_switched',
    'iteration_started',
    'iteration_completed',
    'run_finished',
  ]);
  expect(all.find((e) => e.type === 'agent_switched')).toMatchObject({ from: 'claude', to: 'codex' });
  expect(JSON.stringify(all.find((e) => e.type === 'agent_switched'))).toContain("You've hit your limit");
  expect(all.filter((e) => e.type === 'iteration_started').map((e) => e.agent)).toEqual(['claude', 'codex']);
  expect(completedIterations(all).map((e) => [e.iteration, e.agent, e.outcome, e.error_kind])).toEqual([
    [1, 'claude', 'waiting', 'usage_limit'],
    [2, 'codex', 'complete', 'none'],
  ]);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', iterations: 2 });
});

it('claude: the run\'s budget spent in the middle of a turn stops Claude Code there, before its next request', { timeout: 180_000 }, async () => {
  server = await startFakeAnthropic({
    conversations: [
      [
        // The first answer alone costs more than the budget ($2 of input tokens at claude-sonnet prices or more);
        // its tool call would keep the turn going for a minute, then the model would be asked again. Not a leading
        // `sleep 60`: Claude Code may refuse a standalone sleep at once ("Blocked: ..."), and its next request then
        // races the budget's kill.
        (ctx) => ({ type: 'tool_use', name: 'Bash', input: { command: `node -e 'setTimeout(() => {}, 60000)'; touch ${join(ctx.cwd ?? repo, 'late.txt')}`, description: 'wait' }, usage: { input_tokens: 1_000_000, output_tokens: 10 } }),
        { type: 'text', text: 'Done. <promise>COMPLETE</promise>', usage: { input_tokens: 10, output_tokens: 10 } },
      ],
    ],
  });
  const r = await runCli([...ARGS, '--max-cost', '1'], { cwd: repo, env: env(server.url) });
  expect(r.code).toBe(2);
  const all = runEvents(r.stdout);
  expect(completedIterations(all).map((e) => [e.iteration, e.outcome, e.error_kind])).toEqual([[1, 'failure', 'max_cost']]);
  expect(completedIterations(all)[0]?.cost_usd).toBeGreaterThanOrEqual(1);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'max_cost', iterations: 1 });
  // Claude Code never got to send the model its tool's result, its tool never finished, and nothing of it is left.
  const roles = server.mainRequests().map((q) => (q.body as { messages: Array<{ role: string }> }).messages.map((m) => m.role));
  expect(roles.filter((r) => r.includes('assistant'))).toEqual([]);
  expect(existsSync(join(repo, 'late.txt'))).toBe(false);
  expect(findTagged(runTagMatcher(all[0]?.run_id ?? ''))).toEqual([]);
});
