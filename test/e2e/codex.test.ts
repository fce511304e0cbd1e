// End-to-end: `ringmaster run --agent codex` drives the real Codex CLI against the fake OpenAI Responses API:
// a two-iteration loop (file written by codex's own shell tool, then the signal; cost from tokens x the
// price table), a 401 that stops the run at once, an overload that is retried, and fallback to claude.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RunEvent } from '../../src/runner/events.js';
import { claudeFakeEnv, startFakeAnthropic, type FakeAnthropicServer } from '../fakes/anthropic-server.js';
import { codexFakeEnv, startFakeResponses, writeCodexHome, type FakeResponsesServer } from '../fakes/openai-responses-server.js';
import { cleanEnv, ROOT, runCli } from '../helpers/cli.js';

const PROMPT = 'Create hello.txt in this directory. When everything is done, print <promise>COMPLETE</promise>.\n';
let root: string;
let repo: string;
let home: string;
let server: FakeResponsesServer | null = null;
let anthropic: FakeAnthropicServer | null = null;

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ringmaster-e2e-codex-'));
  repo = join(root, 'repo');
  home = join(root, 'home');
  git(root, 'init', '-q', repo);
  git(repo, 'config', 'user.email', 'e2e@example.invalid');
  git(repo, 'config', 'user.name', 'e2e');
  writeFileSync(join(repo, 'PROMPT.md'), PROMPT);
  git(repo, 'add', 'PROMPT.md');
  git(repo, 'commit', '-q', '-m', 'prompt');
  spawnSync('mkdir', ['-p', home]);
});
afterEach(async () => {
  await server?.close();
  await anthropic?.close();
  server = null;
  anthropic = null;
  rmSync(root, { recursive: true, force: true });
});

async function env(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const codexHome = await writeCodexHome(join(home, '.codex'), server!.url);
  return cleanEnv({
    PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    ...codexFakeEnv(codexHome),
    RINGMASTER_LOOP_BACKOFF: '0s',
    ...extra,
  });
}

function events(stdout: string): RunEvent[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as RunEvent);
}

function completed(all: RunEvent[]) {
  return all.filter((e): e is Extract<RunEvent, { type: 'iteration_completed' }> => e.type === 'iteration_completed');
}

const ARGS = ['run', '--agent', 'codex', '--max-iterations', '4', '--cooldown', '0s', '--json'];

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
  const all = events(r.stdout);
  const rows = completed(all).map((e) => ({
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
  const costs = completed(all).map((e) => e.cost_usd);
  expect(costs[0]).toBeCloseTo(1300 * 5e-6 + 52 * 30e-6 + 800 * 0.5e-6, 12);
  expect(costs[1]).toBeCloseTo(900 * 5e-6 + 15 * 30e-6, 12);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', iterations: 2 });
});

it('codex: a 401 stops the run at once with a clear message', { timeout: 180_000 }, async () => {
  server = await startFakeResponses({ conversations: [[{ type: 'error', status: 401 }], [{ type: 'error', status: 401 }]] });
  const r = await runCli(ARGS, { cwd: repo, env: await env() });
  expect(r.code).toBe(1);
  const all = events(r.stdout);
  expect(completed(all).map((e) => [e.iteration, e.error_kind])).toEqual([[1, 'auth']]);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', stop_reason: 'fatal_error', iterations: 1 });
  expect(JSON.stringify(all.at(-1))).toContain('401 Unauthorized');
});

it('codex: an overload is retried and does not count as a failure', { timeout: 180_000 }, async () => {
  server = await startFakeResponses({
    conversations: [[{ type: 'error', status: 500 }], [{ type: 'text', text: 'Done. <promise>COMPLETE</promise>' }]],
  });
  const r = await runCli([...ARGS, '--failure-threshold', '1'], { cwd: repo, env: await env() });
  expect(r.code).toBe(0);
  const all = events(r.stdout);
  expect(completed(all).map((e) => [e.iteration, e.outcome, e.error_kind])).toEqual([
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
  const all = events(r.stdout);
  expect(all.find((e) => e.type === 'agent_switched')).toMatchObject({ from: 'codex', to: 'claude' });
  expect(completed(all).map((e) => [e.iteration, e.agent, e.error_kind])).toEqual([
    [1, 'codex', 'usage_limit'],
    [2, 'claude', 'none'],
  ]);
});
