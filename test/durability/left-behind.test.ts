// Processes left behind, through the CLI: a daemon the agent moved to its own session is swept after the
// iteration (and by `stop` after a crash); a saved pid is killed only if it is still the agent; a lock bearing our
// own pid or a reused pid is stale.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { DatabaseSync } from 'node:sqlite';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bootId, readStat } from '../../src/os/proc.js';
import { agentPidPath, databasePath, workspaceKey, workspaceLockPath } from '../../src/store/paths.js';
import { BIN, cleanEnv, normalise, runCli, startCli, useWorkspace } from '../helpers/cli.js';
import { testHome } from '../helpers/home.js';
import { alive } from '../helpers/proc.js';
import { until } from '../helpers/until.js';

const ws = useWorkspace('work\n');

/** Polls until `probe` returns a value; a probe that throws (a file not there yet) is asked again. */
async function waitFor<T>(what: string, probe: () => T | null): Promise<T> {
  return until(what, () => {
    try {
      return probe();
    } catch {
      return null;
    }
  }, 10_000);
}

/** An agent that starts a daemon in its own session (setsid, stdio detached or not), then exits or hangs. */
function daemonAgent(dir: string, options: { keepPipes: boolean; hang: boolean }): string {
  const script = join(dir, 'daemon-agent.sh');
  const redirect = options.keepPipes ? '' : '</dev/null >/dev/null 2>&1';
  writeFileSync(
    script,
    `#!/bin/sh
cat >/dev/null
setsid sh -c 'echo $$ > daemon.pid; exec sleep 600' ${redirect} &
while [ ! -s daemon.pid ]; do sleep 0.01; done
echo "started a daemon"
${options.hang ? 'echo $$ > agent.pid; exec sleep 600' : 'exit 0'}
`,
    { mode: 0o755 },
  );
  return script;
}

const pidIn = (path: string): number => Number(readFileSync(path, 'utf8').trim());

/**
 * Starts a run whose agent starts a setsid daemon and hangs, then kill -9s ringmaster (as a crash would): the
 * run is orphaned, its agent and daemon still alive. `cleanup` kills them if a test left them.
 */
async function crashedRun(): Promise<{ agent: number; daemon: number; cleanup: () => void }> {
  const run = spawn(process.execPath, [BIN, 'run', '--agent-command', daemonAgent(ws.dir, { keepPipes: false, hang: true }), '--max-iterations', '1'], {
    cwd: ws.dir,
    env: cleanEnv(),
    detached: true,
    stdio: 'ignore',
  });
  const agent = await waitFor('the agent', () => (existsSync(join(ws.dir, 'agent.pid')) ? pidIn(join(ws.dir, 'agent.pid')) : null));
  const daemon = pidIn(join(ws.dir, 'daemon.pid'));
  const closed = new Promise((r) => run.on('close', r));
  process.kill(-(run.pid ?? 0), 'SIGKILL');
  await closed;
  return { agent, daemon, cleanup: () => [agent, daemon].forEach((pid) => alive(pid) && process.kill(pid, 'SIGKILL')) };
}

/** The id of the (only) run of the workspace. */
async function onlyRun(): Promise<{ id: string; status: string }> {
  const runs = JSON.parse((await runCli(['runs', '--json'], { cwd: ws.dir, env: cleanEnv() })).stdout) as Array<{ id: string; status: string }>;
  expect(runs).toHaveLength(1);
  return runs[0] ?? { id: '', status: '' };
}

/**
 * A crashed run (crashedRun) and an unrelated live process standing for a pid that was reused; `test` gets both,
 * and both are gone after it.
 */
async function withStranger(test: (crashed: { agent: number; daemon: number }, stranger: number) => Promise<void>): Promise<void> {
  const crashed = await crashedRun();
  const unrelated = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
  try {
    await test(crashed, unrelated.pid ?? 0);
  } finally {
    unrelated.kill('SIGKILL');
    crashed.cleanup();
  }
}

/** The run's owner pid now names `pid`, a process that started well after the owner's last heartbeat. */
function giveOwnerPidTo(pid: number): void {
  const db = new DatabaseSync(databasePath(testHome()));
  db.prepare('UPDATE run_owners SET pid = ?, heartbeat_at = ? WHERE ended_at IS NULL').run(pid, Date.now() - 60_000);
  db.close();
}

describe('a daemon the agent started in its own session', () => {
  it.each([[false], [true]])('is gone when the run ends (daemon keeps the output pipes: %s)', async (keepPipes) => {
    const r = await runCli(['run', '--agent-command', daemonAgent(ws.dir, { keepPipes, hang: false }), '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv() });
    const daemon = pidIn(join(ws.dir, 'daemon.pid'));
    try {
      expect(normalise(r.stdout)).toContain('[T] Reached max iterations: 1');
      expect(r.code).toBe(2);
      expect(alive(daemon)).toBe(false);
    } finally {
      if (alive(daemon)) process.kill(daemon, 'SIGKILL');
    }
  }, 30_000);

  it('left by a crashed ringmaster (kill -9) is killed by `ringmaster stop`, with the agent; the iteration counts until then', async () => {
    const { agent, daemon, cleanup } = await crashedRun();
    try {
      const seen = Date.now();
      expect(alive(agent)).toBe(true);
      const run = await onlyRun();
      expect(run.status).toBe('orphaned');
      const stopping = Date.now();
      const stop = await runCli(['stop', run.id], { cwd: ws.dir, env: cleanEnv() });
      expect(stop.code).toBe(0);
      expect(stop.stdout).toContain('left-over agent process group');
      await waitFor('the agent and the daemon to go', () => (!alive(agent) && !alive(daemon) ? true : null));
      // Its agent ran on after the crash, until the stop killed it: that time is the run's (its runtime limit counts it).
      // (It ends when the stop killed the agent, after `stopping`: at the last heartbeat, it would end before `seen`.)
      const shown = JSON.parse((await runCli(['show', run.id, '--json'], { cwd: ws.dir, env: cleanEnv() })).stdout) as { run: { runtime_ms: number }; iterations: Array<{ status: string; duration_ms: number; completed_at: string }> };
      expect(shown.iterations).toHaveLength(1);
      expect(shown.iterations[0]?.status).toBe('interrupted');
      expect(Date.parse(shown.iterations[0]?.completed_at ?? '')).toBeGreaterThanOrEqual(stopping);
      expect(shown.run.runtime_ms).toBeGreaterThanOrEqual(stopping - seen);
    } finally {
      cleanup();
    }
  }, 30_000);
});

describe('an orphaned run whose agent still runs', () => {
  it('has its agent and daemon killed, with a warning, by a new run that takes over its workspace lock', async () => {
    const { agent, daemon, cleanup } = await crashedRun();
    try {
      const orphan = await onlyRun();
      expect(orphan.status).toBe('orphaned');
      const r = await runCli(['run', '--agent-command', 'true', '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv() });
      expect(r.code).toBe(2);
      // (How many of its processes ran outside the agent's group at that moment varies: the daemon, and perhaps
      // the setsid that was starting it.)
      expect(normalise(r.stderr)).toMatch(
        new RegExp(`WARNING: the workspace's lock was left by run ${orphan.id}, whose process had died, with its agent's process group ${agent} and \\d+ more of its processes still running there: killed \\(the run shows as orphaned; 'ringmaster resume ${orphan.id}' goes on with it\\)\n`),
      );
      await waitFor('the agent and the daemon to go', () => (!alive(agent) && !alive(daemon) ? true : null));
    } finally {
      cleanup();
    }
  }, 30_000);
});

describe('a saved agent pid', () => {
  it('that now names an unrelated process group is not killed by `ringmaster stop`', () =>
    // An unrelated process group, as after a reboot or once the agent's pid was reused.
    withStranger(async ({ agent, daemon }, stranger) => {
      process.kill(-agent, 'SIGKILL');
      process.kill(daemon, 'SIGKILL');
      const { id } = await onlyRun();
      const pidFile = agentPidPath(testHome(), id);
      expect(existsSync(pidFile)).toBe(true);
      // The file names the unrelated group, and was written an hour before that process started.
      writeFileSync(pidFile, `${String(stranger).padEnd(11)}\n`);
      const anHourAgo = new Date(Date.now() - 3_600_000);
      utimesSync(pidFile, anHourAgo, anHourAgo);
      const stop = await runCli(['stop', id], { cwd: ws.dir, env: cleanEnv() });
      expect(stop.code).toBe(0);
      expect(stop.stdout).toBe(`stopped orphaned run ${id} (iteration 1 recorded as interrupted)\n`);
      expect(alive(stranger)).toBe(true);
    }), 30_000);
});

describe('the agent.pid file', () => {
  it('names the agent by pid, start time and boot: a live process with that pid but another start time is left alone, even right after', () =>
    withStranger(async ({ agent, daemon }, stranger) => {
      const { id } = await onlyRun();
      const pidFile = agentPidPath(testHome(), id);
      const [pid, start, boot] = readFileSync(pidFile, 'utf8').trim().split(/\s+/);
      expect(Number(pid)).toBe(agent);
      expect(Number(start)).toBe(readStat(agent)?.startTime);
      expect(boot).toBe(bootId());
      expect(statSync(pidFile).mode & 0o777).toBe(0o600);
      process.kill(-agent, 'SIGKILL');
      process.kill(daemon, 'SIGKILL');
      // Written just now (its time alone would say "that is the agent"), but the start time says otherwise.
      writeFileSync(pidFile, `${stranger} ${(readStat(stranger)?.startTime ?? 0) + 7} ${bootId() ?? '-'}`.padEnd(80) + '\n');
      const stop = await runCli(['stop', id], { cwd: ws.dir, env: cleanEnv() });
      expect(stop.stdout).toBe(`stopped orphaned run ${id} (iteration 1 recorded as interrupted)\n`);
      expect(alive(stranger)).toBe(true);
    }), 30_000);
});

describe("a run's owner pid", () => {
  it('that now names a process started after the last heartbeat is not the owner: the run is orphaned, and stop does not signal it', () =>
    withStranger(async (_crashed, stranger) => {
      giveOwnerPidTo(stranger);
      const run = await onlyRun();
      expect(run.status).toBe('orphaned');
      const stop = await runCli(['stop', run.id], { cwd: ws.dir, env: cleanEnv() });
      expect(stop.stdout).toMatch(/^stopped orphaned run /);
      expect(alive(stranger)).toBe(true);
    }), 30_000);

  it('that now names a process started after the last heartbeat does not make resume refuse (or wait), nor is it signalled', () =>
    withStranger(async ({ agent, daemon }, stranger) => {
      giveOwnerPidTo(stranger);
      const { id } = await onlyRun();
      const resumed = await runCli(['resume', id, '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv() });
      expect(resumed.stderr).not.toContain('still running');
      expect(resumed.stdout).toContain(`Resuming run ${id} after 1 iteration(s)`);
      expect(resumed.code).toBe(2);
      expect(alive(stranger)).toBe(true);
      // What the crashed run left behind went with the takeover.
      await waitFor('the agent and the daemon to go', () => (!alive(agent) && !alive(daemon) ? true : null));
    }), 30_000);
});

describe('a workspace lock', () => {
  const lockFile = (): string => workspaceLockPath(testHome(), workspaceKey(ws.dir));
  function writeLock(pid: number | string, since: string): void {
    mkdirSync(dirname(lockFile()), { recursive: true });
    writeFileSync(lockFile(), `{"pid":${pid},"run_id":"old-run","since":"${since}","hostname":"${hostname()}"}\n`);
  }

  it('bearing our own pid, written by an earlier process (a restarted container), is taken over', async () => {
    // The shell writes the lock with its own pid, then becomes ringmaster (exec keeps the pid).
    mkdirSync(dirname(lockFile()), { recursive: true });
    const lock = `{"pid":'$$',"run_id":"old-run","since":"2020-01-01T00:00:00.000Z","hostname":"${hostname()}"}`;
    const script = `echo '${lock}' > '${lockFile()}'; exec "$0" "$@"`;
    const { done } = startCliVia(['sh', '-c', script, process.execPath, BIN, 'run', '--agent-command', 'true', '--max-iterations', '1']);
    const r = await done;
    expect(r.stderr).not.toContain('locked by run old-run');
    expect(r.code).toBe(2);
    expect(existsSync(lockFile())).toBe(false);
  });

  it('bearing the pid of a live process that started after the lock was written (a reused pid), is taken over', async () => {
    const reused = spawn('sleep', ['600'], { stdio: 'ignore' });
    try {
      writeLock(reused.pid ?? 0, '2020-01-01T00:00:00.000Z');
      const r = await runCli(['run', '--agent-command', 'true', '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv() });
      expect(r.stderr).not.toContain('locked by run old-run');
      expect(r.code).toBe(2);
      expect(existsSync(lockFile())).toBe(false);
    } finally {
      reused.kill('SIGKILL');
    }
  });

  it('held by a live run is still refused', async () => {
    const { child, done } = startCli(['run', '--agent-command', 'sleep 600', '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv() });
    try {
      await waitFor('the lock', () => (existsSync(lockFile()) ? true : null));
      const second = await runCli(['run', '--agent-command', 'true', '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv() });
      expect(second.code).toBe(3);
    } finally {
      child.kill('SIGINT');
      await done;
    }
  }, 30_000);
});

function startCliVia(argv: string[]): { done: Promise<{ code: number | null; stderr: string }> } {
  const [command, ...args] = argv;
  const child = spawn(command ?? 'sh', args, { cwd: ws.dir, env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return { done: new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr }))) };
}
