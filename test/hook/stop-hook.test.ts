// `ringmaster hook stop`: fail-open paths, project resolution, the decision log, and concurrent Stops under the lock.
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startLoop } from '../../src/hook/loop-lifecycle.js';
import { runStopHook, type StopHookContext } from '../../src/hook/stop-hook.js';
import { readTracker } from '../../src/hook/tracker.js';
import { runCli } from './cli-process.js';
import { memoryIO } from './memory-io.js';
import { homeEnv } from '../helpers/home.js';

let project = '';
const NOW = new Date('2026-11-22T10:00:00.000Z');

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'rm-stop-hook-'));
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

const ctx = (env: Record<string, string> = {}): StopHookContext => ({ env: homeEnv(env), cwd: project, now: () => NOW, lock: { timeoutMs: 200, retryMs: 5 } });
const stdin = (over: Record<string, unknown> = {}): string =>
  JSON.stringify({ session_id: 's1', transcript_path: null, cwd: project, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'working', ...over });

async function start(maxIterations = 3): Promise<void> {
  await startLoop({
    projectDir: project,
    task: 'Do it',
    maxIterations,
    completionMarker: 'DONE',
    template: null,
    sessionId: null,
    continueMessage: null,
    verify: null,
    verifyTimeoutMs: 600_000,
    env: homeEnv(),
    force: false,
    now: NOW,
  });
}

async function log(): Promise<Record<string, unknown>[]> {
  const text = await readFile(join(project, '.ringmaster', 'hook-decisions.log'), 'utf8');
  return text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('runStopHook', () => {
  it('allows silently where no loop was ever started (no files created)', async () => {
    expect(await runStopHook(stdin(), ctx())).toEqual({ stdout: '', decision: 'allow', reason: 'no_loop', warning: null });
    await expect(readFile(join(project, '.ringmaster', 'hook-decisions.log'))).rejects.toThrow(/ENOENT/);
  });

  it('blocks with the decision JSON, then records every decision as a JSON line', async () => {
    await start(1);
    const first = await runStopHook(stdin(), ctx());
    expect(first.decision).toBe('block');
    const parsed = JSON.parse(first.stdout) as { decision: string; reason: string };
    expect(parsed.decision).toBe('block');
    expect(parsed.reason.split('\n')[0]).toBe('Ringmaster loop: continuation 1 of at most 1. The task is not finished yet; keep working on it.');
    expect(await runStopHook(stdin({ stop_hook_active: true }), ctx())).toEqual({ stdout: '', decision: 'allow', reason: 'max_iterations', warning: null });
    expect(await log()).toEqual([
      { time: NOW.toISOString(), session_id: 's1', stop_hook_active: false, decision: 'block', reason: 'continue', iteration: 1, max_iterations: 1, warning: null },
      { time: NOW.toISOString(), session_id: 's1', stop_hook_active: true, decision: 'allow', reason: 'max_iterations', iteration: 1, max_iterations: 1, warning: null },
    ]);
    const tracker = await readTracker(project);
    expect(tracker?.frontmatter).toMatchObject({ active: false, iteration: 1, session_id: 's1', stop_reason: 'max_iterations', ended_at: NOW.toISOString() });
  });

  it('prefers CLAUDE_PROJECT_DIR over the event cwd', async () => {
    await start();
    const elsewhere = join(project, 'sub');
    await mkdir(elsewhere);
    const outcome = await runStopHook(stdin({ cwd: elsewhere }), ctx({ CLAUDE_PROJECT_DIR: project }));
    expect(outcome.decision).toBe('block');
    expect((await runStopHook(stdin({ cwd: elsewhere }), ctx())).reason).toBe('no_loop');
  });

  it('a project without a loop: a plain event is allowed as no_loop, an event the schema refuses fails open with its warning', async () => {
    const none = { stdout: '', decision: 'allow', reason: 'no_loop', warning: null };
    expect(await runStopHook(stdin(), ctx())).toEqual(none);
    expect(await runStopHook(stdin({ transcript_path: null, last_assistant_message: null, extra: 1 }), ctx())).toEqual(none);
    const refused = await runStopHook(JSON.stringify({ session_id: 's1', cwd: project, stop_hook_active: 'yes' }), ctx());
    expect(refused).toMatchObject({ decision: 'allow', reason: 'error' });
    expect(refused.warning).toMatch(/^allowing the stop after an error: stdin: stop_hook_active: /);
  });

  it('fails open on bad stdin, missing fields, an unreadable tracker and a held lock', async () => {
    await start();
    expect(await runStopHook('not json', ctx())).toEqual({
      stdout: '',
      decision: 'allow',
      reason: 'error',
      warning: 'allowing the stop after an error: stdin is not JSON: Unexpected token \'o\', "not json" is not valid JSON',
    });
    const missing = await runStopHook(JSON.stringify({ cwd: project, stop_hook_active: false }), ctx());
    expect(missing.decision).toBe('allow');
    expect(missing.warning).toMatch(/^allowing the stop after an error: stdin: session_id: /);

    await writeFile(join(project, '.ringmaster', 'loop-tracker.md.lock'), `${process.pid}\n`);
    const locked = await runStopHook(stdin(), ctx());
    expect(locked.decision).toBe('allow');
    expect(locked.warning).toMatch(/^allowing the stop after an error: .*loop-tracker\.md\.lock: lock still held after \d+ ms$/);
    await rm(join(project, '.ringmaster', 'loop-tracker.md.lock'));

    await rm(join(project, '.ringmaster', 'loop-tracker.md'));
    await mkdir(join(project, '.ringmaster', 'loop-tracker.md'));
    const unreadable = await runStopHook(stdin(), ctx());
    expect(unreadable.decision).toBe('allow');
    expect(unreadable.warning).toMatch(/loop-tracker\.md: cannot read: EISDIR/);
    expect((await log()).map((r) => [r.decision, r.reason])).toEqual([
      ['allow', 'error'],
      ['allow', 'error'],
      ['allow', 'error'],
      ['allow', 'error'],
    ]);
  });

  it('takes over a lock left by a dead process', async () => {
    await start();
    const lock = join(project, '.ringmaster', 'loop-tracker.md.lock');
    await writeFile(lock, '999999999\n');
    // Left behind a few seconds ago: a dead owner's lock is only taken over once it is not brand new.
    const past = new Date(Date.now() - 5000);
    await utimes(lock, past, past);
    expect((await runStopHook(stdin(), ctx())).decision).toBe('block');
  });
});

describe('hook stop command', () => {
  it('prints the block JSON on stdout, warnings on stderr, and always exits 0', async () => {
    await start();
    const io = memoryIO(project, {}, stdin());
    expect(await main(['hook', 'stop'], io)).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({ decision: 'block' });
    const bad = memoryIO(project, {}, '{');
    expect(await main(['hook', 'stop'], bad)).toBe(0);
    expect(bad.out()).toBe('');
    expect(bad.err()).toMatch(/^ringmaster hook stop: warning: allowing the stop after an error: stdin is not JSON: /);
  });

  it('serialises concurrent Stop events: no lost increments, never more than max_iterations blocks', async () => {
    await start(5);
    const runs = await Promise.all(Array.from({ length: 8 }, () => runCli(['hook', 'stop'], { cwd: project, stdin: stdin() })));
    expect(runs.map((r) => r.exitCode)).toEqual(Array(8).fill(0));
    const blocks = runs.filter((r) => r.stdout.startsWith('{"decision":"block"'));
    expect(blocks.length).toBe(5);
    expect(runs.filter((r) => r.stdout === '').length).toBe(3);
    const records = await log();
    expect(records.filter((r) => r.decision === 'block').map((r) => r.iteration).sort()).toEqual([1, 2, 3, 4, 5]);
    expect((await readTracker(project))?.frontmatter).toMatchObject({ iteration: 5, active: false, stop_reason: 'max_iterations' });
  });
});
