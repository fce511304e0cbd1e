// End-to-end: `ringmaster tasks run --agent claude` drives the real Claude Code CLI against the fake Anthropic
// API through two small tasks: A writes hello.txt with claude's Write tool and answers with a
// <ringmaster-result> block (file_exists check passes); B claims completion without its file (the verify
// gate turns it down and feeds the test's verdict back), then writes it. One commit per task, the tracker
// done, cost and tokens per iteration, every iteration tagged with its task.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { claudeFakeEnv, messageText, startFakeAnthropic, type FakeAnthropicServer } from '../fakes/anthropic-server.js';
import { runCli } from '../helpers/cli.js';
import { agentEnv, completedIterations, createSandbox, runEvents, type Sandbox } from './real-cli.js';
import { sh } from '../git/git-repo.js';

let sandbox: Sandbox;
let server: FakeAnthropicServer | null = null;

beforeEach(() => {
  sandbox = createSandbox('claude-tasks');
});
afterEach(async () => {
  await server?.close();
  server = null;
  sandbox.cleanup();
});

const TASKS = [
  { id: 'A', title: 'Create hello.txt', priority: 2, completion: { type: 'file_exists', path: 'hello.txt' } },
  { id: 'B', title: 'Create bye.txt', priority: 1, completion: { type: 'test', command: 'test -f bye.txt' } },
];

it('claude works through two tasks; the verify gate turns down a false completion', { timeout: 240_000 }, async () => {
  const { repo, home } = sandbox;
  const tracker = TASKS.map((t) => `${JSON.stringify(t)}\n`).join('');
  writeFileSync(join(repo, 'tasks.jsonl'), tracker);
  sh(repo, ['add', 'tasks.jsonl']);
  sh(repo, ['commit', '-q', '-m', 'tasks']);
  const write = (file: string) => (ctx: { cwd: string | null }) => ({ type: 'tool_use' as const, name: 'Write', input: { file_path: join(ctx.cwd ?? repo, file), content: `${file}\n` }, usage: { input_tokens: 1000, output_tokens: 30 } });
  server = await startFakeAnthropic({
    conversations: [
      [write('hello.txt'), { type: 'text', text: 'Wrote it.\n<ringmaster-result>{"status":"complete","artifacts":["hello.txt"]}</ringmaster-result>', usage: { input_tokens: 1100, output_tokens: 20 } }],
      [{ type: 'text', text: 'All done. <promise>COMPLETE</promise>', usage: { input_tokens: 900, output_tokens: 10 } }],
      [write('bye.txt'), { type: 'text', text: 'Now it exists. <promise>COMPLETE</promise>', usage: { input_tokens: 1200, output_tokens: 10 } }],
    ],
  });
  const env = agentEnv(home, { ...claudeFakeEnv(server.url, join(home, '.claude')), CLAUDE_CODE_MAX_RETRIES: '0' });
  const r = await runCli(['tasks', 'run', '--agent', 'claude', '--json'], { cwd: repo, env });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const all = runEvents(r.stdout);
  expect(completedIterations(all).map((e) => [e.iteration, e.unit?.id, e.unit?.iteration, e.outcome, e.error_kind])).toEqual([
    [1, 'A', 1, 'complete', 'none'],
    [2, 'B', 1, 'failure', 'verify_failed'],
    [3, 'B', 2, 'complete', 'none'],
  ]);
  for (const e of completedIterations(all)) expect(e.cost_usd).toBeGreaterThan(0);
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', iterations: 3, message: 'every task is done (2 done and 0 blocked by this run)' });
  expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello.txt\n');
  expect(sh(repo, ['log', '--format=%s']).trim().split('\n')).toEqual(['[ringmaster] B: Create bye.txt', '[ringmaster] A: Create hello.txt', 'tasks', 'prompt']);
  expect(readFileSync(join(repo, 'tasks.jsonl'), 'utf8')).toBe(tracker.replace(/}}\n/g, '},"status":"done"}\n'));
  // What the model was told: the task, and on B's second try the failed check.
  const firsts = server.mainRequests().filter((q) => q.step === 0).map((q) => messageText(q.body?.messages?.[0]?.content));
  expect(firsts).toHaveLength(3);
  expect(firsts[0]).toContain('# Task A: Create hello.txt');
  expect(firsts[1]).toContain('# Task B: Create bye.txt');
  expect(firsts[2]).toContain("## The last check failed\ntest command 'test -f bye.txt' exited 1");
});
