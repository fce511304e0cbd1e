// Hook mode end to end: the real Claude Code CLI, a fake Anthropic server, and `ringmaster hook stop` installed by `hook install`.
// Requires a build (npm test builds first).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastUserText, startFakeAnthropic, type FakeAnthropicServer } from '../fakes/anthropic-server.js';
import { runClaude, type ClaudeRun } from '../fakes/run-claude.js';
import { runCli } from './cli-process.js';

let dir = '';
let project = '';
let server: FakeAnthropicServer | null = null;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rm-hook-e2e-'));
  project = join(dir, 'project');
  await mkdir(project);
  const install = await runCli(['hook', 'install'], { cwd: project });
  expect(install.exitCode).toBe(0);
});

afterEach(async () => {
  await server?.close();
  server = null;
  await rm(dir, { recursive: true, force: true });
});

function claude(url: string, configDir: string, prompt: string): Promise<ClaudeRun> {
  // PATH without node_modules/.bin: the installed hook command must not need `ringmaster` on PATH.
  return runClaude({ url, configDir: join(dir, configDir), cwd: project, prompt, env: { PATH: '/usr/bin:/bin' } });
}

async function tracker(): Promise<string> {
  return readFile(join(project, '.ringmaster', 'loop-tracker.md'), 'utf8');
}

async function decisions(): Promise<Record<string, unknown>[]> {
  const text = await readFile(join(project, '.ringmaster', 'hook-decisions.log'), 'utf8');
  return text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

function sessionOf(run: ClaudeRun): string {
  const init = run.lines.find((l) => l.type === 'system' && l.subtype === 'init');
  return String(init?.session_id);
}

function expectedReason(continuation: number): string {
  return [
    `Ringmaster loop: continuation ${continuation} of at most 5. The task is not finished yet; keep working on it.`,
    '',
    'Task:',
    'Write hello.txt',
    '',
    `Record your progress in ${join(project, '.ringmaster', 'loop-tracker.md')}.`,
    'When the task is completely done, end your reply with <promise>DONE</promise> (and only then).',
  ].join('\n');
}

describe('hook mode with the real claude CLI', () => {
  it('blocks twice, feeds the continue message back, and allows the stop on the promise', async () => {
    const start = await runCli(['loop', 'start', 'Write hello.txt', '--max-iterations', '5', '--completion-marker', 'DONE'], { cwd: project });
    expect(start.exitCode).toBe(0);
    server = await startFakeAnthropic({
      conversations: [
        [
          { type: 'text', text: 'Step one.' },
          { type: 'text', text: 'Step two. DONE' },
          { type: 'text', text: 'All written. <promise>DONE</promise>' },
        ],
      ],
    });
    const run = await claude(server.url, 'config', 'Write hello.txt');
    expect(run.exitCode).toBe(0);
    const main = server.mainRequests();
    expect(main.map((r) => [r.conversation, r.step, r.exhausted])).toEqual([[0, 0, false], [0, 1, false], [0, 2, false]]);
    expect(lastUserText(main[1]?.body ?? null)).toBe(`Stop hook feedback:\n${expectedReason(1)}`);
    expect(lastUserText(main[2]?.body ?? null)).toBe(`Stop hook feedback:\n${expectedReason(2)}`);
    const result = run.lines.find((l) => l.type === 'result');
    expect(result?.result).toBe('All written. <promise>DONE</promise>');

    const session = sessionOf(run);
    const text = await tracker();
    expect(text).toMatch(/^---\niteration: 2\nmax_iterations: 5\ncompletion_marker: DONE\nactive: false\n/);
    expect(text).toContain(`\nsession_id: ${session}\n`);
    expect(text).toContain('\nstop_reason: success_signal\n');
    expect((await decisions()).map((d) => [d.session_id, d.stop_hook_active, d.decision, d.reason, d.iteration])).toEqual([
      [session, false, 'block', 'continue', 1],
      [session, true, 'block', 'continue', 2],
      [session, true, 'allow', 'promise', 2],
    ]);
    const status = await runCli(['loop', 'status'], { cwd: project });
    expect(status.stdout.split('\n').slice(0, 4)).toEqual([
      'loop: inactive (success_signal)',
      'iteration: 2/5',
      'completion marker: DONE',
      `session: ${session}`,
    ]);
  });

  it('finds the promise of a turn that ends after a tool call (empty last message) in the transcript', async () => {
    await runCli(['loop', 'start', 'Write hello.txt', '--max-iterations', '5', '--completion-marker', 'DONE'], { cwd: project });
    server = await startFakeAnthropic({
      conversations: [
        [
          { type: 'text', text: 'Starting.' },
          (ctx) => ({
            type: 'tool_use',
            name: 'Write',
            text: 'Writing the file now. <promise>DONE</promise>',
            input: { file_path: join(ctx.cwd ?? project, 'hello.txt'), content: 'hello\n' },
          }),
          { type: 'text', text: '' },
        ],
      ],
    });
    const run = await claude(server.url, 'config', 'Write hello.txt');
    expect(run.exitCode).toBe(0);
    expect(await readFile(join(project, 'hello.txt'), 'utf8')).toBe('hello\n');
    const log = await decisions();
    expect(log.map((d) => [d.decision, d.reason, d.iteration])).toEqual([
      ['block', 'continue', 1],
      ['allow', 'promise', 1],
    ]);
    expect(await tracker()).toContain('\nactive: false\n');
  });

  it('never blocks a second session while the loop belongs to another one', async () => {
    await runCli(['loop', 'start', 'Write hello.txt', '--max-iterations', '5', '--completion-marker', 'DONE'], { cwd: project });
    let bDone = (): void => undefined;
    const bFinished = new Promise<void>((resolvePromise) => (bDone = resolvePromise));
    server = await startFakeAnthropic({
      conversations: [
        // Session A: blocked once (claims the loop), then answers only after session B has finished.
        [{ type: 'text', text: 'A: first.' }, { type: 'text', text: 'A: done <promise>DONE</promise>', waitFor: bFinished }],
        // Session B: one answer, must be allowed to stop at once.
        [{ type: 'text', text: 'B: hello.' }],
      ],
    });
    const a = claude(server.url, 'config-a', 'Write hello.txt');
    const fake = server;
    await expect.poll(() => fake.mainRequests().length, { timeout: 30_000, interval: 50 }).toBe(2);
    const b = await claude(server.url, 'config-b', 'Say hello').finally(bDone);
    expect(b.exitCode).toBe(0);
    expect(b.lines.find((l) => l.type === 'result')?.result).toBe('B: hello.');
    const runA = await a;
    expect(runA.exitCode).toBe(0);
    const bRequests = server.mainRequests().filter((r) => r.conversation === 1);
    expect(bRequests.length).toBe(1);
    const sessionA = sessionOf(runA);
    const sessionB = sessionOf(b);
    expect((await decisions()).map((d) => [d.session_id, d.decision, d.reason])).toEqual([
      [sessionA, 'block', 'continue'],
      [sessionB, 'allow', 'other_session'],
      [sessionA, 'allow', 'promise'],
    ]);
  });

  it('lets the session stop when the tracker is broken, and records a warning', async () => {
    await mkdir(join(project, '.ringmaster'));
    await writeFile(join(project, '.ringmaster', 'loop-tracker.md'), '---\niteration: [oops\n---\nbody\n');
    server = await startFakeAnthropic({ conversations: [[{ type: 'text', text: 'Only answer.' }]] });
    const run = await claude(server.url, 'config', 'Write hello.txt');
    expect(run.exitCode).toBe(0);
    expect(server.mainRequests().length).toBe(1);
    const [entry, ...more] = await decisions();
    expect(more).toEqual([]);
    expect(entry?.decision).toBe('allow');
    expect(entry?.reason).toBe('error');
    expect(String(entry?.warning)).toMatch(/^allowing the stop after an error: .*loop-tracker\.md: invalid YAML frontmatter: /);
  });
});
