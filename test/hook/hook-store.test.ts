// Hook loops in the store: a run per loop, an event per decision, iteration rows, the run's end; the log file without a store.
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { runStopHook, type StopHookContext } from '../../src/hook/stop-hook.js';
import { readTracker } from '../../src/hook/tracker.js';
import { databasePath } from '../../src/store/paths.js';
import { homeEnv, openTestStore, testHome, useFreshHome } from '../helpers/home.js';
import { runCli } from './cli-process.js';
import { memoryIO } from './memory-io.js';

let project = '';
useFreshHome();
const NOW = new Date('2026-11-22T10:00:00.000Z');

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'rm-hook-store-'));
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

const ctx: () => StopHookContext = () => ({ env: homeEnv(), cwd: project, now: () => NOW, lock: { timeoutMs: 200, retryMs: 5 } });
const stdin = (over: Record<string, unknown> = {}): string =>
  JSON.stringify({ session_id: 's1', transcript_path: null, cwd: project, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'working', ...over });
const logPath = (): string => join(project, '.ringmaster', 'hook-decisions.log');
const dbPath = (): string => databasePath(testHome());

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function createStore(): Promise<void> {
  await (await openTestStore()).close();
}

async function startLoop(...extra: string[]): Promise<string | null> {
  const io = memoryIO(project);
  expect(await main(['loop', 'start', 'Do it', '--max-iterations', '2', '--completion-marker', 'DONE', ...extra], io)).toBe(0);
  expect(io.err()).toBe('');
  const tracker = await readTracker(project);
  return tracker?.frontmatter.run_id ?? null;
}

async function events(runId: string): Promise<unknown[]> {
  const store = await openTestStore({ create: false });
  try {
    return (await store.listEvents(runId)).map((e) => {
      const { run_id: ownRun, seq, time, type, ...rest } = e.payload as Record<string, unknown>;
      expect([ownRun, seq, type, typeof time]).toEqual([runId, e.seq, e.type, 'number']);
      return [e.type, e.iteration, rest];
    });
  } finally {
    await store.close();
  }
}

const payload = (decision: string, reason: string, iteration: number, stopHookActive: boolean): Record<string, unknown> => ({
  decision,
  reason,
  iteration,
  max_iterations: 2,
  session_id: 's1',
  stop_hook_active: stopHookActive,
  warning: null,
});

describe('hook loops in the store', () => {
  it('records the loop as a run: one event per decision, one iteration per turn, completed on the promise', async () => {
    await createStore();
    const runId = await startLoop();
    expect(runId).toMatch(/^[0-9a-z]{13}$/);
    expect((await runStopHook(stdin(), ctx())).decision).toBe('block');
    expect((await runStopHook(stdin({ stop_hook_active: true }), ctx())).decision).toBe('block');
    const done = await runStopHook(stdin({ stop_hook_active: true, last_assistant_message: '<promise>DONE</promise>' }), ctx());
    expect(done).toEqual({ stdout: '', decision: 'allow', reason: 'promise', warning: null });
    expect(await exists(logPath())).toBe(false);

    const show = await runCli(['show', runId ?? '', '--json'], { cwd: project });
    expect(show.stderr).toBe('');
    expect(show.exitCode).toBe(0);
    const out = JSON.parse(show.stdout) as { run: Record<string, unknown>; iterations: Record<string, unknown>[] };
    expect(out.run).toMatchObject({ id: runId, agent: 'claude-hook', status: 'completed', stop_reason: 'success_signal' });
    expect(out.run.spec).toEqual({
      mode: 'hook',
      task: 'Do it',
      max_iterations: 2,
      completion_marker: 'DONE',
      session_id: null,
      continue_message: null,
      verify: null,
      tracker: join(project, '.ringmaster', 'loop-tracker.md'),
    });
    expect(out.iterations.map((i) => [i.number, i.status, i.completion_signal_found, i.session_id])).toEqual([
      [1, 'success', false, 's1'],
      [2, 'success', false, 's1'],
      [3, 'complete', true, 's1'],
    ]);
    expect(await events(runId ?? '')).toEqual([
      ['hook_decision', 1, payload('block', 'continue', 1, false)],
      ['hook_decision', 2, payload('block', 'continue', 2, true)],
      ['hook_decision', null, payload('allow', 'promise', 2, true)],
    ]);
    const runs = await runCli(['runs', '--json'], { cwd: project });
    expect(runs.exitCode).toBe(0);
    expect(runs.stdout).toContain(`"id": "${runId}"`);
  });

  it("carries a note in the Stop hook's continuation once (notes: docs/notes.md)", async () => {
    await createStore();
    const runId = (await startLoop()) ?? '';
    const io = memoryIO(project);
    expect(await main(['note', runId, 'Check the README too.'], io)).toBe(0);
    expect(io.out()).toBe(`note 1 added to run ${runId}: it goes into the prompt of the next iteration that starts\n`);
    const first = JSON.parse((await runStopHook(stdin(), ctx())).stdout) as { decision: string; reason: string };
    expect(first.decision).toBe('block');
    expect(first.reason).toContain('## Notes from the user (sent while the loop was running)');
    expect(first.reason.split('Check the README too.').length - 1).toBe(1);
    const second = JSON.parse((await runStopHook(stdin({ stop_hook_active: true }), ctx())).stdout) as { reason: string };
    expect(second.reason).not.toContain('Check the README too.');
    const noteEvents = (await events(runId)).filter((e) => String((e as unknown[])[0]).startsWith('note_'));
    expect(noteEvents).toEqual([
      ['note_added', null, { note_id: 1, text: 'Check the README too.', by: 'user' }],
      ['note_delivered', 1, { note_id: 1, iteration: 1 }],
    ]);
  });

  it('ends the run completed/max_iterations at the cap, and stopped/user_stop on cancel', async () => {
    await createStore();
    const capped = await startLoop();
    await runStopHook(stdin(), ctx());
    await runStopHook(stdin({ stop_hook_active: true }), ctx());
    expect((await runStopHook(stdin({ stop_hook_active: true }), ctx())).reason).toBe('max_iterations');
    const cancelled = await startLoop();
    await runStopHook(stdin(), ctx());
    expect(await main(['loop', 'cancel'], memoryIO(project))).toBe(0);
    expect(await runStopHook(stdin({ stop_hook_active: true }), ctx())).toMatchObject({ decision: 'allow', reason: 'inactive' });

    const store = await openTestStore({ create: false });
    try {
      expect(await store.getRun(capped ?? '')).toMatchObject({ status: 'completed', stop_reason: 'max_iterations' });
      expect((await store.listIterations(capped ?? '')).map((i) => [i.number, i.status])).toEqual([
        [1, 'success'],
        [2, 'success'],
        [3, 'success'],
      ]);
      expect(await store.getRun(cancelled ?? '')).toMatchObject({ status: 'stopped', stop_reason: 'user_stop' });
      expect((await store.listEvents(cancelled ?? '')).map((e) => (e.payload as { reason: string }).reason)).toEqual(['continue']);
    } finally {
      await store.close();
    }
    // The decision after the loop ended has no run: it goes to the log file.
    expect((await readFile(logPath(), 'utf8')).trim().split('\n').map((l) => (JSON.parse(l) as { reason: string }).reason)).toEqual(['inactive']);
  });

  it('without a store: creates none, writes only the log file', async () => {
    expect(await startLoop()).toBeNull();
    expect((await runStopHook(stdin(), ctx())).decision).toBe('block');
    expect(await exists(dbPath())).toBe(false);
    expect((await readFile(logPath(), 'utf8')).trim().split('\n')).toHaveLength(1);
  });

  it('fails open to the log file when the store cannot record (the decision is unchanged)', async () => {
    await createStore();
    await startLoop();
    await writeFile(dbPath(), 'not a database');
    const outcome = await runStopHook(stdin(), ctx());
    expect(outcome.decision).toBe('block');
    // The notes of the loop cannot be read either: both are said.
    expect(outcome.warning).toMatch(/^cannot read the loop's notes: .*cannot record the decision in the store: /);
    const lines = (await readFile(logPath(), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ decision: 'block', reason: 'continue', iteration: 1 });
    expect(String(lines[0]?.warning)).toMatch(/^cannot read the loop's notes: .*cannot record the decision in the store: /);
  });
});
