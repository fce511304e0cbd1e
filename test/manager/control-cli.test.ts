// Controlling a live run from another process of the real CLI, through the store: pause at the iteration
// boundary and resume, stop and then resume (it continues), SIGHUP of the terminal, and an agent that wipes its
// workspace (`git clean -fdx`, `rm -rf .ringmaster`) without losing any of Ringmaster's state.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/runner/events.js';
import { agentPidPath, workspaceKey, workspaceLockPath } from '../../src/store/paths.js';
import { removeDir, tempRepo } from '../git/git-repo.js';
import { cleanEnv, normalise, planAgent, runCli, startCli } from '../helpers/cli.js';
import { testHome } from '../helpers/home.js';
import { until } from '../helpers/until.js';
import { alive, processState } from '../helpers/proc.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) removeDir(dir);
});

function env(): Record<string, string> {
  return cleanEnv({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
}

function repo(): string {
  const dir = tempRepo({ 'README.md': 'hello\n' });
  dirs.push(dir);
  return dir;
}


/** How many iterations the plan agent has started in `dir`. */
function agentCount(dir: string): number {
  return existsSync(join(dir, '.plan-agent-count')) ? Number(readFileSync(join(dir, '.plan-agent-count'), 'utf8')) : 0;
}

interface RunsRow { id: string; status: string; stop_reason: string | null; iterations: number }

async function onlyRun(dir: string): Promise<RunsRow | null> {
  const r = await runCli(['runs', '--json'], { cwd: dir, env: env() });
  if (r.code !== 0) return null;
  const rows = JSON.parse(r.stdout) as RunsRow[];
  return rows[0] ?? null;
}

async function events(dir: string, id: string): Promise<RunEvent[]> {
  const r = await runCli(['show', id, '--events', '--json'], { cwd: dir, env: env() });
  return (JSON.parse(r.stdout) as { events: Array<{ payload: RunEvent }> }).events.map((e) => e.payload);
}

describe('pause and resume from another process', () => {
  it('pauses after the current iteration, runs no agent while paused, resumes where it stopped', async () => {
    const dir = repo();
    const live = startCli(['run', '--prompt', 'work', '--agent-command', planAgent('gate,gate,complete'), '--max-iterations', '5', '--checkpoint-interval', '5'], { cwd: dir, env: env() });
    const run = await until('the run', () => onlyRun(dir));
    await until('iteration 1', () => (agentCount(dir) === 1 ? true : null));
    // Running, not paused: resume with a higher limit raises it, and the run goes on.
    expect(await runCli(['resume', run.id, '--max-iterations', '6'], { cwd: dir, env: env() })).toMatchObject({
      code: 0,
      stdout: `run ${run.id}: iteration limit raised to 6\nrun ${run.id} is running (not paused): it goes on with the new limit\n`,
    });

    const pause = await runCli(['pause', run.id], { cwd: dir, env: env() });
    expect(pause).toMatchObject({ code: 0, stdout: `asked run ${run.id} to pause: it pauses after its current iteration\n` });
    expect((await runCli(['pause', run.id], { cwd: dir, env: env() })).stdout).toBe(`run ${run.id} is already pausing\n`);
    writeFileSync(join(dir, '.gate-1'), '');
    const paused = await until('paused', async () => ((await onlyRun(dir))?.status === 'paused' ? true : null));
    expect(paused).toBe(true);
    expect(agentCount(dir)).toBe(1);
    expect(existsSync(agentPidPath(testHome(), run.id))).toBe(true);
    expect((await runCli(['pause', run.id], { cwd: dir, env: env() })).stdout).toBe(`run ${run.id} is already paused\n`);
    // Seed 000's PAUSED state takes a checkpoint (checkpoints are on; the interval alone would not make one here).
    const checkpoints = async (): Promise<Array<{ iteration: number; state: string }>> =>
      (JSON.parse((await runCli(['show', run.id, '--json'], { cwd: dir, env: env() })).stdout) as { checkpoints: Array<{ iteration: number; state: string }> }).checkpoints;
    expect(await until('the pause checkpoint', async () => ((await checkpoints()).length > 0 ? checkpoints() : null))).toMatchObject([{ iteration: 1, state: 'committed' }]);

    // Its limit, as it runs, can only be raised (an extension, stored with its spec).
    expect(await runCli(['resume', run.id, '--max-iterations', '6'], { cwd: dir, env: env() })).toMatchObject({
      code: 64,
      stderr: `ringmaster resume: --max-iterations 6: run ${run.id} is driven by pid ${live.child.pid} with a limit of 6, which can only be raised as it runs\n`,
    });
    expect(await runCli(['resume', run.id, '--max-iterations', '7'], { cwd: dir, env: env() })).toMatchObject({ code: 0, stdout: `run ${run.id}: iteration limit raised to 7\nresumed run ${run.id}\n` });
    await until('iteration 2', () => (agentCount(dir) === 2 ? true : null));
    writeFileSync(join(dir, '.gate-2'), '');
    const ended = await live.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(normalise(ended.stdout)).toContain(
      [
        '[T] Iteration 1/5 starting...',
        '[T] Iteration limit raised to 6 (by user)',
        '[T] Pause requested (by user): pausing after the current iteration...',
        '[T] Iteration 1/6 completed in Xs (success)',
        '[T] Paused (by user) after iteration 1',
        '[T] Iteration limit raised to 7 (by user)',
        '[T] Resumed',
        '[T] Iteration 2/7 starting...',
      ].join('\n'),
    );
    const types = (await events(dir, run.id)).map((e) => e.type);
    // No iteration started while the run was paused: the order of the stored events says so.
    expect(types.slice(types.indexOf('paused'), types.indexOf('paused') + 5)).toEqual(['paused', 'checkpoint_created', 'limits_changed', 'resumed', 'iteration_started']);
    expect(await onlyRun(dir)).toMatchObject({ status: 'completed', stop_reason: 'success_signal', iterations: 3 });
  }, 60_000);

  it('refuses to pause a run that is not running, and names an orphaned one', async () => {
    const dir = repo();
    const done = await runCli(['run', '--prompt', 'w', '--agent-command', planAgent('complete'), '--checkpoint-interval', '0'], { cwd: dir, env: env() });
    expect(done.code).toBe(0);
    const run = await onlyRun(dir);
    expect(await runCli(['pause', run?.id ?? ''], { cwd: dir, env: env() })).toMatchObject({
      code: 64,
      stderr: `ringmaster pause: run ${run?.id ?? ''} is not running (completed, success_signal)\n`,
    });
  }, 30_000);
});


const ticks = (dir: string, n: number): number => (existsSync(join(dir, `.ticks-${n}`)) ? Number(readFileSync(join(dir, `.ticks-${n}`), 'utf8')) : 0);
const tickerPid = (dir: string): number | null => {
  const file = join(dir, '.plan-agent-pids');
  const pid = existsSync(file) ? Number(readFileSync(file, 'utf8')) : 0;
  return pid > 0 ? pid : null;
};

describe('pause --now', () => {
  it('suspends the agent mid-iteration (SIGSTOP) with its idle timeout held; resume continues the same iteration', async () => {
    const dir = repo();
    const live = startCli(['run', '--prompt', 'work', '--agent-command', planAgent('ticker,complete'), '--max-iterations', '3', '--checkpoint-interval', '1', '--idle-timeout', '2s'], { cwd: dir, env: env() });
    const run = await until('the run', () => onlyRun(dir));
    const pid = await until('the agent', () => tickerPid(dir));
    await until('ticks', () => (ticks(dir, 1) >= 3 ? true : null));

    const pause = await runCli(['pause', '--now', run.id], { cwd: dir, env: env() });
    expect(pause).toMatchObject({ code: 0, stdout: `run ${run.id} is paused: its agent is suspended mid-iteration ('ringmaster resume ${run.id}' continues it)\n` });
    expect(processState(pid)).toBe('T');
    const held = ticks(dir, 1);
    // Longer than the idle timeout: a timer that was not held would kill the silent agent meanwhile. A fixed wait is
    // the only way to show that something does not happen (no event marks it); it asserts nothing about time.
    await new Promise((r) => setTimeout(r, 2500));
    expect(processState(pid)).toBe('T');
    expect(ticks(dir, 1)).toBe(held);
    expect(await onlyRun(dir)).toMatchObject({ status: 'paused', iterations: 1 });
    expect((await runCli(['pause', '--now', run.id], { cwd: dir, env: env() })).stdout).toBe(`run ${run.id} is already paused\n`);

    expect(await runCli(['resume', run.id], { cwd: dir, env: env() })).toMatchObject({ code: 0, stdout: `resumed run ${run.id}\n` });
    await until('ticking again', () => (ticks(dir, 1) > held ? true : null));
    expect(processState(pid)).not.toBe('T');
    writeFileSync(join(dir, '.gate-1'), '');
    const ended = await live.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(normalise(ended.stdout)).toContain(
      [
        '[T] Iteration 1/3 starting...',
        '[T] Pause requested (by user): suspending the agent now...',
        '[T] Paused (by user) during iteration 1: agent suspended',
        '[T] Resumed',
        '[T] Iteration 1/3 completed in Xs (success)',
        '[T] Iteration 2/3 starting...',
      ].join('\n'),
    );
    const stored = await events(dir, run.id);
    const paused = stored.find((e) => e.type === 'paused');
    expect(paused).toMatchObject({ after_iteration: 0, suspended: true, by: 'user' });
    expect(stored.find((e) => e.type === 'pause_requested')).toMatchObject({ now: true });
    expect(stored.find((e) => e.type === 'resumed')).toMatchObject({ type: 'resumed' });
    // The agent was frozen mid-edit: no checkpoint while paused; the first is iteration 1's, after it ended.
    const types = stored.map((e) => e.type);
    expect(types.slice(types.indexOf('paused'), types.indexOf('resumed') + 1)).toEqual(['paused', 'resumed']);
    expect(stored.filter((e) => e.type === 'checkpoint_created').map((e) => e.iteration)).toEqual([1, 2]);
    expect(await onlyRun(dir)).toMatchObject({ status: 'completed', stop_reason: 'success_signal', iterations: 2 });
  }, 60_000);

  it('stop of a suspended run kills the stopped agent (SIGTERM is delivered: it is continued) and ends the run stopped', async () => {
    const dir = repo();
    const live = startCli(['run', '--prompt', 'work', '--agent-command', planAgent('ticker'), '--max-iterations', '3', '--checkpoint-interval', '0'], { cwd: dir, env: env() });
    const run = await until('the run', () => onlyRun(dir));
    const pid = await until('the agent', () => tickerPid(dir));
    await until('ticks', () => (ticks(dir, 1) >= 1 ? true : null));
    expect((await runCli(['pause', '--now', run.id], { cwd: dir, env: env() })).code).toBe(0);
    expect(processState(pid)).toBe('T');
    const stop = await runCli(['stop', run.id], { cwd: dir, env: env() });
    expect(stop.stdout).toContain(`run ${run.id} stopped (stopped, user_stop)\n`);
    expect((await live.done).code).toBe(130);
    expect(alive(pid)).toBe(false);
    expect(await onlyRun(dir)).toMatchObject({ status: 'stopped', stop_reason: 'user_stop' });
  }, 60_000);

  it('between iterations (no agent running) it is an ordinary pause, taken at once', async () => {
    const dir = repo();
    const live = startCli(['run', '--prompt', 'work', '--agent-command', planAgent('ok,complete'), '--max-iterations', '3', '--checkpoint-interval', '0', '--cooldown', '1h'], { cwd: dir, env: env() });
    const run = await until('the run', () => onlyRun(dir));
    await until('the cooldown after iteration 1', async () => ((await onlyRun(dir))?.iterations === 1 && agentCount(dir) === 1 ? true : null));
    await until('iteration 1 recorded', async () => ((await events(dir, run.id)).some((e) => e.type === 'iteration_completed') ? true : null));
    const pause = await runCli(['pause', '--now', run.id], { cwd: dir, env: env() });
    expect(pause).toMatchObject({ code: 0, stdout: `run ${run.id} is paused: no agent was running\n` });
    expect((await events(dir, run.id)).find((e) => e.type === 'paused')).toMatchObject({ after_iteration: 1, suspended: false });
    expect((await runCli(['stop', run.id], { cwd: dir, env: env() })).code).toBe(0);
    expect((await live.done).code).toBe(130);
  }, 60_000);
});

describe('stop, then resume', () => {
  it('a stopped run continues with the next iteration when resumed (it does not stop again)', async () => {
    const dir = repo();
    const live = startCli(['run', '--prompt', 'work', '--agent-command', planAgent('gate,complete'), '--max-iterations', '4', '--checkpoint-interval', '0', '--json'], { cwd: dir, env: env() });
    const run = await until('the run', () => onlyRun(dir));
    await until('iteration 1', () => (agentCount(dir) === 1 ? true : null));
    const stop = await runCli(['stop', run.id], { cwd: dir, env: env() });
    expect(stop.stdout).toBe(`asked run ${run.id} (pid ${live.child.pid ?? ''}) to stop\nrun ${run.id} stopped (stopped, user_stop)\n`);
    expect((await live.done).code).toBe(130);

    const resumed = await runCli(['resume', run.id], { cwd: dir, env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(normalise(resumed.stdout)).toContain(`Resuming run ${run.id} after 1 iteration(s), cost unknown\n`);
    expect(normalise(resumed.stdout)).toContain('[T] Iteration 2/4 starting...');
    expect(await onlyRun(dir)).toMatchObject({ status: 'completed', stop_reason: 'success_signal', iterations: 2 });
    const seqs = (await events(dir, run.id)).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  }, 60_000);
});

describe('the terminal closes', () => {
  it('SIGHUP kills the agent and records the run as interrupted (resumable)', async () => {
    const dir = repo();
    const live = startCli(['run', '--prompt', 'work', '--agent-command', planAgent('grandchild'), '--max-iterations', '3', '--checkpoint-interval', '0'], { cwd: dir, env: env() });
    const pids = await until('the agent', () => {
      const file = join(dir, '.plan-agent-pids');
      return existsSync(file) && readFileSync(file, 'utf8').includes(' ') ? readFileSync(file, 'utf8').split(' ').map(Number) : null;
    });
    live.child.kill('SIGHUP');
    const ended = await live.done;
    expect(ended.code).toBe(130);
    for (const pid of pids) expect(alive(pid), `agent process ${pid}`).toBe(false);
    expect(await onlyRun(dir)).toMatchObject({ status: 'stopped', stop_reason: 'interrupted', iterations: 1 });
  }, 30_000);
});

describe('an agent that wipes its workspace', () => {
  it('git clean -fdx and rm -rf .ringmaster lose no history and no lock', async () => {
    const dir = repo();
    const r = await runCli(['run', '--prompt', 'work', '--agent-command', planAgent('clean'), '--max-iterations', '3', '--checkpoint-interval', '1', '--json'], { cwd: dir, env: env() });
    expect(r.code, r.stderr).toBe(2);
    const run = await onlyRun(dir);
    expect(run).toMatchObject({ status: 'completed', stop_reason: 'max_iterations', iterations: 3 });
    const shown = JSON.parse((await runCli(['show', run?.id ?? '', '--json'], { cwd: dir, env: env() })).stdout) as { iterations: Array<{ status: string; log_path: string }>; checkpoints: unknown[] };
    expect(shown.iterations.map((i) => i.status)).toEqual(['success', 'success', 'success']);
    for (const it of shown.iterations) expect(readFileSync(it.log_path, 'utf8')).toBe('cleaned (git exit 0)\n');
    expect(shown.checkpoints).toHaveLength(3);
    expect(existsSync(workspaceLockPath(testHome(), workspaceKey(dir)))).toBe(false);
    const logs = await runCli(['logs', run?.id ?? '', '--iteration', '3'], { cwd: dir, env: env() });
    expect(logs.stdout).toBe('cleaned (git exit 0)\n');
  }, 30_000);
});
