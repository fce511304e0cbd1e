// End-to-end: `ringmaster run --agent claude` drives the real Claude Code CLI against the fake Anthropic API:
// a two-iteration loop (file written by claude's Write tool, then the signal), a 401 that stops the run at
// once, and a usage limit with a reset time that makes the run wait and then continue.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RunEvent } from '../../src/runner/events.js';
import { claudeFakeEnv, startFakeAnthropic, type FakeAnthropicServer } from '../fakes/anthropic-server.js';
import { cleanEnv, ROOT, runCli } from '../helpers/cli.js';

const PROMPT = 'Create hello.txt in this directory. When everything is done, print <promise>COMPLETE</promise>.\n';
let root: string;
let repo: string;
let home: string;
let server: FakeAnthropicServer | null = null;

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ringmaster-e2e-claude-'));
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
  server = null;
  rmSync(root, { recursive: true, force: true });
});

function env(url: string): Record<string, string> {
  return cleanEnv({
    PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    ...claudeFakeEnv(url, join(home, '.claude')),
    CLAUDE_CODE_MAX_RETRIES: '0',
    RINGMASTER_LOOP_BACKOFF: '0s',
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

const ARGS = ['run', '--agent', 'claude', '--max-iterations', '4', '--cooldown', '0s', '--json'];

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
  const all = events(r.stdout);
  const rows = completed(all).map((e) => ({ n: e.iteration, outcome: e.outcome, signal: e.completion_signal_found, error: e.error_kind, tokens: [e.tokens_in, e.tokens_out] }));
  expect(rows).toEqual([
    { n: 1, outcome: 'success', signal: false, error: 'none', tokens: [2100, expect.any(Number) as number] },
    { n: 2, outcome: 'complete', signal: true, error: 'none', tokens: [900, expect.any(Number) as number] },
  ]);
  for (const e of completed(all)) {
    expect(e.cost_usd).toBeGreaterThan(0);
    expect(e.session_id).toMatch(/^[0-9a-f-]{36}$/);
  }
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', iterations: 2 });
});

it('claude: a 401 stops the run at once with a clear message', { timeout: 180_000 }, async () => {
  server = await startFakeAnthropic({ conversations: [[{ type: 'error', status: 401 }], [{ type: 'error', status: 401 }]] });
  const r = await runCli(ARGS, { cwd: repo, env: env(server.url) });
  expect(r.code).toBe(1);
  const all = events(r.stdout);
  expect(completed(all).map((e) => [e.iteration, e.error_kind])).toEqual([[1, 'auth']]);
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
  const all = events(r.stdout);
  expect(completed(all).map((e) => [e.iteration, e.outcome, e.error_kind])).toEqual([
    [1, 'waiting', 'usage_limit'],
    [2, 'complete', 'none'],
  ]);
  const waiting = all.find((e) => e.type === 'waiting');
  expect(waiting).toMatchObject({ type: 'waiting', reason: 'usage_limit' });
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal' });
});
