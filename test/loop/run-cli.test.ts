// End-to-end: `ringmaster run` as a real process with a fake agent; exact progress lines and exit codes.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEventSchema } from '../../src/runner/events.js';
import { cleanEnv, normalise, planAgent, runCli, useWorkspace } from '../helpers/cli.js';
import { removeDir, tempRepo } from '../git/git-repo.js';

const ws = useWorkspace('Do the work. When everything is done, print <promise>COMPLETE</promise>.\n');

const fast = ['--cooldown', '0s'];
const env = () => cleanEnv({ RINGMASTER_LOOP_BACKOFF: '0s' });

describe('ringmaster run (seed 001 examples)', () => {
  it('limited iterations, happy path: three successes then max iterations, exit 2', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('ok'), '--max-iterations', '3', ...fast], { cwd: ws.dir, env: env() });
    expect(normalise(r.stdout)).toBe(
      [
        '[T] Starting procedure: PROMPT.md (max 3 iterations)',
        '[T] Iteration 1/3 starting...',
        '[T] Iteration 1/3 completed in Xs (success)',
        '[T] Iteration 2/3 starting...',
        '[T] Iteration 2/3 completed in Xs (success)',
        '[T] Iteration 3/3 starting...',
        '[T] Iteration 3/3 completed in Xs (success)',
        '[T] Reached max iterations: 3 (total: X)',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe(`WARNING: ${ws.dir} is not a git repository: checkpoints are off\n`);
    expect(r.code).toBe(2);
  });

  it('consecutive failure abort: fails on 4, 5, 6 of 10 and aborts with exit 1', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('ok,ok,ok,fail,fail,fail,ok'), '--max-iterations', '10', ...fast], { cwd: ws.dir, env: env() });
    const lines = normalise(r.stdout).split('\n');
    expect(lines.slice(7)).toEqual([
      '[T] Iteration 4/10 starting...',
      '[T] Iteration 4/10 completed in Xs (failure, consecutive: 1/3)',
      '  reason: something broke',
      '[T] Iteration 5/10 starting...',
      '[T] Iteration 5/10 completed in Xs (failure, consecutive: 2/3)',
      '  reason: something broke',
      '[T] Iteration 6/10 starting...',
      '[T] Iteration 6/10 completed in Xs (failure, consecutive: 3/3)',
      '  reason: something broke',
      '[T] ERROR: Aborting after 3 consecutive failures (6 iterations completed, total: X)',
      '',
    ]);
    expect(r.code).toBe(1);
  });

  it('a success after failures resets the consecutive counter (unlimited display)', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('ok,ok,fail,ok,fail,complete'), '--unlimited', ...fast], { cwd: ws.dir, env: env() });
    const lines = normalise(r.stdout).split('\n').filter((l) => !l.startsWith('  reason'));
    expect(lines[0]).toBe('[T] Starting procedure: PROMPT.md (unlimited)');
    expect(lines).toContain('[T] Iteration 3 completed in Xs (failure, consecutive: 1/3)');
    expect(lines).toContain('[T] Iteration 4 completed in Xs (success)');
    expect(lines).toContain('[T] Iteration 5 completed in Xs (failure, consecutive: 1/3)');
    expect(lines).toContain('[T] Iteration 6 completed in Xs (complete)');
    expect(lines).toContain('[T] Success signal received: job complete after 6 iterations (total: X)');
    expect(r.code).toBe(0);
  });

  it('verbose mode streams the agent output between the iteration lines', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('ok'), '--max-iterations', '2', '--verbose', ...fast], { cwd: ws.dir, env: env() });
    expect(normalise(r.stdout)).toBe(
      [
        '[T] Starting procedure: PROMPT.md (max 2 iterations)',
        '[T] Iteration 1/2 starting...',
        'working on iteration 1',
        '[T] Iteration 1/2 completed in Xs (success)',
        '[T] Iteration 2/2 starting...',
        'working on iteration 2',
        '[T] Iteration 2/2 completed in Xs (success)',
        '[T] Reached max iterations: 2 (total: X)',
        '',
      ].join('\n'),
    );
  });

  it('without --verbose the agent output is not shown but is in the iteration log', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('ok'), '--max-iterations', '1', '--json', ...fast], { cwd: ws.dir, env: env() });
    expect(r.stdout).not.toContain('working on iteration');
    const started = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((e) => e.type === 'iteration_started');
    expect(readFileSync(String(started?.log_path), 'utf8')).toBe('working on iteration 1\n');
  });
});

describe('outcome matrix through the CLI', () => {
  const cases: Array<[string, string, number, string]> = [
    ['exit 0, no signal', 'ok', 2, '(success)'],
    ['exit 0, SUCCESS', 'success', 0, '(complete)'],
    ['exit 0, FAILURE', 'failsig', 1, '(failure, consecutive: 1/1)'],
    ['exit 1, no signal', 'fail', 1, '(failure, consecutive: 1/1)'],
    ['exit 1, COMPLETE (signal wins)', 'complete-exit1', 0, '(complete)'],
    ['exit 2, FAILURE', 'bothfail', 1, '(failure, consecutive: 1/1)'],
    ['SUCCESS and FAILURE (success wins)', 'both', 0, '(complete)'],
  ];
  it.each(cases)('%s', async (_name, plan, code, outcome) => {
    const r = await runCli(['run', '--agent-command', planAgent(plan), '--max-iterations', '1', '--failure-threshold', '1', ...fast], { cwd: ws.dir, env: env() });
    expect(normalise(r.stdout)).toContain(`[T] Iteration 1/1 completed in Xs ${outcome}`);
    expect(r.code).toBe(code);
  });

  it('MaxIterations = 1 with threshold 1: a failed iteration aborts rather than reaching the limit', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('fail'), '--max-iterations', '1', '--failure-threshold', '1', ...fast], { cwd: ws.dir, env: env() });
    expect(normalise(r.stdout)).toContain('[T] ERROR: Aborting after 1 failed iteration (1 iteration completed, total: X)');
    expect(r.code).toBe(1);
  });
});

describe('signals', () => {
  it('finds a signal split across output chunks, with whitespace and case differences', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('split'), '--max-iterations', '2', ...fast], { cwd: ws.dir, env: env() });
    expect(normalise(r.stdout)).toContain('[T] Iteration 1/2 completed in Xs (complete)');
    expect(r.code).toBe(0);
  });

  it('never matches the signal in the prompt itself (the agent received it on stdin)', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('ok'), '--max-iterations', '2', ...fast], { cwd: ws.dir, env: env() });
    expect(readFileSync(join(ws.dir, '.plan-agent-prompt-1'), 'utf8')).toContain('<promise>COMPLETE</promise>');
    expect(r.code).toBe(2);
  });

  it('an agent that echoes the prompt (which quotes the signal) has not signalled; what it adds after does count', async () => {
    const echo = await runCli(['run', '--agent-command', 'cat', '--max-iterations', '2', ...fast], { cwd: ws.dir, env: env() });
    expect(normalise(echo.stdout)).toContain('[T] Reached max iterations: 2 (total: X)');
    expect(echo.code).toBe(2);
    const script = join(ws.dir, 'echo-then-done.sh');
    writeFileSync(script, '#!/bin/sh\ncat\necho "done: <promise>COMPLETE</promise>"\n', { mode: 0o755 });
    const done = await runCli(['run', '--agent-command', script, '--max-iterations', '2', ...fast], { cwd: ws.dir, env: env() });
    expect(normalise(done.stdout)).toContain('[T] Iteration 1/2 completed in Xs (complete)');
    expect(done.code).toBe(0);
  });

  it.each([
    ['output before the echo', 'echo "Starting up..."; cat'],
    ['the prompt echoed twice', String.raw`p=$(cat); printf '%s\n%s\n' "$p" "$p"`],
    ['quoted as You said: "..."', String.raw`printf 'You said: "%s"\nWorking on it.\n' "$(cat)"`],
    ['quoted as a markdown block', 'sed "s/^/> /"'],
  ])('an echo of the prompt with %s has not signalled', async (_name, shell) => {
    const r = await runCli(['run', '--agent-command', `sh -c '${shell.replace(/'/g, `'\\''`)}'`, '--max-iterations', '1', ...fast], { cwd: ws.dir, env: env() });
    expect(normalise(r.stdout)).toContain('[T] Reached max iterations: 1 (total: X)');
    expect(r.code).toBe(2);
  });

  it('uses configured completion and failure signals', async () => {
    writeFileSync(join(ws.dir, 'ringmaster.yml'), 'loop:\n  completion_signals: ["all done"]\n  failure_signal: "working on"\n');
    const r = await runCli(['run', '--agent-command', planAgent('ok,complete'), '--max-iterations', '3', ...fast], { cwd: ws.dir, env: env() });
    const out = normalise(r.stdout);
    expect(out).toContain('[T] Iteration 1/3 completed in Xs (failure, consecutive: 1/3)');
    expect(out).toContain('[T] Iteration 2/3 completed in Xs (complete)');
    expect(r.code).toBe(0);
  });
});

describe('timeouts and failures that are not the agent saying so', () => {
  it('idle timeout kills a silent agent and counts a failure', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('hang'), '--max-iterations', '1', '--failure-threshold', '1', '--idle-timeout', '1s', ...fast], { cwd: ws.dir, env: env() });
    const out = normalise(r.stdout);
    expect(out).toContain('[T] Iteration 1/1 completed in Xs (failure, consecutive: 1/1)');
    expect(out).toContain('  reason: no output for 1s: agent killed');
    expect(r.code).toBe(1);
  });

  it('the hard iteration timeout kills an agent that keeps printing', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('chatter'), '--max-iterations', '1', '--failure-threshold', '1', '--iteration-timeout', '1s', '--idle-timeout', '10s', ...fast], { cwd: ws.dir, env: env() });
    expect(normalise(r.stdout)).toContain('  reason: iteration ran longer than 1s: agent killed');
    expect(r.code).toBe(1);
  });

  it('max runtime stops the run, killing the iteration in progress (exit 2)', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('hang'), '--max-iterations', '5', '--max-runtime', '1s', ...fast], { cwd: ws.dir, env: env() });
    const out = normalise(r.stdout);
    expect(out).toContain('  reason: the run reached max_runtime: agent killed');
    expect(out).toContain('[T] Reached max runtime: 1s (1 iteration completed, total: X)');
    expect(r.code).toBe(2);
  });

  it('a missing agent binary stops the run at once with a clear message', async () => {
    const r = await runCli(['run', '--agent-command', '/nonexistent/agent --flag', '--max-iterations', '5', ...fast], { cwd: ws.dir, env: env() });
    const out = normalise(r.stdout);
    expect(out).toContain('[T] Iteration 1/5 completed in Xs (failure, consecutive: 1/3)');
    expect(out).toContain('[T] ERROR: command not found: /nonexistent/agent (1 iteration completed, total: X)');
    expect(r.code).toBe(1);
  });

  it('a warning that comes back every iteration is said twice, then no more', async () => {
    // git refuses the path sub/.GIT: change tracking fails the same way after every iteration.
    const dir = tempRepo({ 'PROMPT.md': 'work\n' });
    try {
      const r = await runCli(['run', '--agent-command', "sh -c 'mkdir -p sub; echo x > sub/.GIT'", '--max-iterations', '4', '--checkpoint-interval', '0', ...fast], { cwd: dir, env: env() });
      expect(r.code).toBe(2);
      const warnings = r.stderr.split('\n').filter((line) => line.startsWith('WARNING: change tracking:'));
      expect(warnings).toEqual([
        "WARNING: change tracking: git -c core.untrackedCache=true add --all -- . failed (exit 128): error: invalid path 'sub/.GIT'",
        "WARNING: change tracking: git -c core.untrackedCache=true add --all -- . failed (exit 128): error: invalid path 'sub/.GIT'",
      ]);
      expect(r.stderr).toContain('fatal: adding files failed (again: not repeated further in this run)\n');
      expect(normalise(r.stdout)).toContain('[T] Iteration 4/4 completed in Xs (success)');
    } finally {
      removeDir(dir);
    }
  });

  it('an agent that is not executable stops the run at once, saying how to fix it', async () => {
    writeFileSync(join(ws.dir, 'noexec.sh'), '#!/bin/sh\necho hi\n', { mode: 0o644 });
    const r = await runCli(['run', '--agent-command', './noexec.sh', '--max-iterations', '5', ...fast], { cwd: ws.dir, env: env() });
    expect(normalise(r.stdout)).toContain('[T] ERROR: cannot run ./noexec.sh: permission denied (EACCES): it must be an executable file (chmod +x ./noexec.sh), not a directory (1 iteration completed, total: X)');
    expect(r.code).toBe(1);
  });
});

describe('prompts, dry run and JSON', () => {
  it('dry run of a procedure with context prints the command and the OODA prompt, runs nothing', async () => {
    const r = await runCli(['run', '--agent-command', 'my-agent --fast', '--procedure', 'build', '--context', 'focus on the auth module', '--dry-run'], { cwd: ws.dir, env: env() });
    const build = (p: string) => readFileSync(join(import.meta.dirname, '..', '..', 'procedures', 'build', `${p}.md`), 'utf8').trimEnd();
    expect(r.stdout).toBe(
      [
        '[DRY RUN] Procedure: build',
        '[DRY RUN] Would execute with: my-agent --fast',
        '',
        '# OODA Loop Iteration',
        '',
        '## CONTEXT',
        'focus on the auth module',
        '',
        '## OBSERVE',
        build('observe'),
        '',
        '## ORIENT',
        build('orient'),
        '',
        '## DECIDE',
        build('decide'),
        '',
        '## ACT',
        build('act'),
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(0);
    expect(existsSync(join(ws.dir, '.ringmaster'))).toBe(false);
  });

  it('a sandbox setting given while the sandbox is off is a warning, not silently ignored', async () => {
    const r = await runCli(['run', '--agent-command', 'my-agent', '--dry-run'], { cwd: ws.dir, env: { ...env(), RINGMASTER_SANDBOX_MEMORY: '2GB' } });
    expect(r.stderr).toBe('WARNING: sandbox.memory is set (env RINGMASTER_SANDBOX_MEMORY) but the sandbox is off: it applies only with --sandbox (sandbox.enabled)\n');
    expect(r.code).toBe(0);
  });

  it('dry run shows secrets as a run does: a secret option and the environment\'s secrets redacted', async () => {
    const r = await runCli(['run', '--agent-command', 'my-agent --token=abcdefgh12345678', '--prompt', 'use sk-test-DRYRUNSECRET here', '--dry-run'], { cwd: ws.dir, env: { ...env(), MY_API_KEY: 'sk-test-DRYRUNSECRET' } });
    expect(r.stdout).toBe('[DRY RUN] Procedure: prompt\n[DRY RUN] Would execute with: my-agent \'--token=[REDACTED]\'\n\nuse [REDACTED:MY_API_KEY] here\n');
    expect(r.code).toBe(0);
  });

  it('--prompt text goes to the agent on stdin; procedures from config resolve phase files relative to it', async () => {
    for (const p of ['o', 'r', 'd', 'a']) writeFileSync(join(ws.dir, `${p}.md`), `phase ${p}\n`);
    writeFileSync(join(ws.dir, 'ringmaster.yml'), 'procedures:\n  mine:\n    observe: o.md\n    orient: r.md\n    decide: d.md\n    act: a.md\n    default_max_iterations: 2\n');
    const r = await runCli(['run', '--agent-command', planAgent('ok'), '--procedure', 'mine', ...fast], { cwd: ws.dir, env: env() });
    expect(normalise(r.stdout).split('\n')[0]).toBe('[T] Starting procedure: mine (max 2 iterations)');
    expect(readFileSync(join(ws.dir, '.plan-agent-prompt-1'), 'utf8')).toBe('# OODA Loop Iteration\n\n## OBSERVE\nphase o\n\n## ORIENT\nphase r\n\n## DECIDE\nphase d\n\n## ACT\nphase a\n');
    const inline = await runCli(['run', '--agent-command', planAgent('ok'), '--prompt', 'inline prompt', '--max-iterations', '1', ...fast], { cwd: ws.dir, env: env() });
    expect(inline.code).toBe(2);
    expect(readFileSync(join(ws.dir, '.plan-agent-prompt-3'), 'utf8')).toBe('inline prompt');
  });

  it('--json prints one JSON event per line and nothing else', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('ok,complete'), '--max-iterations', '3', '--json', ...fast], { cwd: ws.dir, env: env() });
    const events = r.stdout.trim().split('\n').map((l) => runEventSchema.parse(JSON.parse(l)));
    expect(events.map((e) => [e.seq, e.run_id])).toEqual(events.map((_, i) => [i + 1, events[0]?.run_id]));
    expect(events[0]).toMatchObject({ type: 'run_started', kind: 'prompt', resumed: false });
    expect(events[1]).toMatchObject({ type: 'warning', message: `${ws.dir} is not a git repository: checkpoints are off` });
    expect(events.map((e) => e.type)).toEqual([
      'run_started', 'warning', 'iteration_started', 'iteration_completed', 'iteration_started', 'completion_signal_detected', 'iteration_completed', 'completed', 'run_finished',
    ]);
    expect(events[3]).toMatchObject({ iteration: 1, outcome: 'success', exit_code: 0, completion_signal_found: false, cost_usd: null });
    expect(events[6]).toMatchObject({ iteration: 2, outcome: 'complete', completion_signal_found: true });
    expect(events[8]).toMatchObject({ status: 'completed', stop_reason: 'success_signal', iterations: 2 });
    expect(r.code).toBe(0);
  });

  it('a missing prompt file is a usage error (exit 64) without a stack trace', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('ok'), '--prompt-file', 'NOPE.md'], { cwd: ws.dir, env: env() });
    expect(r.stderr).toBe(`ringmaster run: prompt file not found: ${join(ws.dir, 'NOPE.md')}\n`);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(64);
  });
});
