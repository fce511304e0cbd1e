// Hook mode's verify check (`loop start --verify`) through the real CLI: a claimed completion whose check fails is
// blocked with the command and its output in the reason, a passing check lets the session stop, a check that runs
// out of time blocks (and is killed), and the evidence lands on the loop's iteration rows in the store.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTracker } from '../../src/hook/tracker.js';
import { hookTimeoutSeconds, withStopHook } from '../../src/hook/settings-install.js';
import { verifyTimeoutMs } from '../../src/hook/stop-verify.js';
import { openTestStore, useFreshHome } from '../helpers/home.js';
import { alive } from '../helpers/proc.js';
import { until } from '../helpers/until.js';
import { NODE, runCli } from './cli-process.js';

let project = '';
useFreshHome();
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'rm-hook-verify-'));
  // The check: prints and fails, passes, or hangs (its pid written first), as the file `state` says.
  await writeFile(
    join(project, 'check.mjs'),
    [
      "import { readFileSync, writeFileSync } from 'node:fs';",
      "const state = readFileSync('state', 'utf8').trim();",
      "if (state === 'pass') { console.log('all 12 tests passed'); process.exit(0); }",
      "if (state === 'hang') { writeFileSync('check.pid', String(process.pid)); setInterval(() => {}, 1000); }",
      "else { console.log('running 12 tests'); console.error('FAIL test/a.test.ts: expected 2, got 3'); process.exit(1); }",
    ].join('\n'),
  );
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

const stdin = (over: Record<string, unknown> = {}): string =>
  JSON.stringify({ session_id: 's1', transcript_path: null, cwd: project, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: '<promise>DONE</promise>', ...over });
const CHECK = `${NODE} check.mjs`;

async function start(...extra: string[]): Promise<void> {
  const started = await runCli(['loop', 'start', 'Make the tests pass', '--max-iterations', '3', '--completion-marker', 'DONE', '--verify', CHECK, ...extra], { cwd: project });
  expect(started.stderr).toBe('');
  expect(started.exitCode).toBe(0);
}

async function stop(state: string, over: Record<string, unknown> = {}): Promise<{ stdout: string; stderr: string }> {
  await writeFile(join(project, 'state'), state);
  const run = await runCli(['hook', 'stop'], { cwd: project, stdin: stdin(over) });
  expect(run.exitCode).toBe(0);
  return { stdout: run.stdout, stderr: run.stderr };
}

describe('hook mode: the verify check', () => {
  it('blocks a claim whose check fails with its output, then lets the session stop when it passes; evidence in the store', async () => {
    await (await openTestStore()).close();
    await start();
    const runId = (await readTracker(project))?.frontmatter.run_id ?? '';
    const failed = await stop('fail');
    expect(failed.stderr).toBe('');
    const answer = JSON.parse(failed.stdout) as { decision: string; reason: string };
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain(`You signalled completion, but the verify command \`${CHECK}\` exited 1: the work is not done yet.`);
    expect(answer.reason).toContain('running 12 tests\nFAIL test/a.test.ts: expected 2, got 3');
    expect(answer.reason).toContain('Ringmaster loop: continuation 1 of at most 3.');
    expect((await readTracker(project))?.frontmatter).toMatchObject({ active: true, iteration: 1, session_id: 's1' });

    const passed = await stop('pass', { stop_hook_active: true });
    expect(passed).toEqual({ stdout: '', stderr: '' });
    expect((await readTracker(project))?.frontmatter).toMatchObject({ active: false, stop_reason: 'success_signal', iteration: 1 });

    const store = await openTestStore({ create: false });
    try {
      const rows = await store.listIterations(runId);
      expect(rows.map((r) => [r.number, r.status, r.error_kind, r.verify?.passed, r.verify?.exit_code, r.verify?.command])).toEqual([
        [1, 'failure', 'verify_failed', false, 1, CHECK],
        [2, 'complete', null, true, 0, CHECK],
      ]);
      expect(rows[0]?.verify?.output_tail).toBe('running 12 tests\nFAIL test/a.test.ts: expected 2, got 3\n');
      expect((await store.getRun(runId))?.status).toBe('completed');
    } finally {
      await store.close();
    }
  });

  it('blocks when the check runs out of time, kills it, and keeps the evidence in the decision log', async () => {
    await start('--verify-timeout', '1s');
    const late = await stop('hang');
    const answer = JSON.parse(late.stdout) as { decision: string; reason: string };
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain(`You signalled completion, but the verify command \`${CHECK}\` timed out after 1s (killed): it ran out of time, so the completion is not verified`);
    const pid = Number(await readFile(join(project, 'check.pid'), 'utf8'));
    await until('the timed-out check is gone', () => !alive(pid));
    expect((await readTracker(project))?.frontmatter).toMatchObject({ active: true, iteration: 1 });
    const log = (await readFile(join(project, '.ringmaster', 'hook-decisions.log'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(log.map((r) => [r.decision, r.reason, (r.verify as { summary?: string } | undefined)?.summary])).toEqual([['block', 'verify_timeout', 'timed out after 1s (killed)']]);
  });

  it('fits the check inside the installed hook timeout, which covers loop.verify_timeout', () => {
    expect(hookTimeoutSeconds(600_000)).toBe(630);
    expect(hookTimeoutSeconds(1000)).toBe(31);
    expect(verifyTimeoutMs(600_000, 630)).toBe(600_000);
    expect(verifyTimeoutMs(600_000, 60)).toBe(30_000);
    expect(verifyTimeoutMs(600_000, null)).toBe(600_000);
    const installed = withStopHook({}, 'node /a/ringmaster.js hook stop', 630).settings;
    expect(withStopHook(installed, 'node /a/ringmaster.js hook stop', 630).changed).toBe(false);
    expect(withStopHook(installed, 'node /a/ringmaster.js hook stop', 930).changed).toBe(true);
  });
});
