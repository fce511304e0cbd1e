// "Machines" for the worker tests: each a data directory of its own and the database URL, running the built CLI
// (`ringmaster worker`, `ringmaster run --repository`) as separate processes; a bare git remote on local disk.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { readAgentPid } from '../../src/runner/leftover.js';
import { agentPidPath } from '../../src/store/paths.js';
import { gitEnv, tempRepo } from '../git/git-repo.js';
import { cleanEnv, planAgent, runCli, startCli, type CliResult } from '../helpers/cli.js';
import type { Scratch } from '../helpers/scratch.js';

export { killGroup } from '../helpers/crash.js';

/** A CLI process on a machine of its own. */
export interface MachineProc {
  name: string;
  /** Its data directory. */
  home: string;
  child: ChildProcess;
  done: Promise<CliResult>;
  /** What it printed so far. */
  out(): string;
}

/** A `ringmaster worker` process. */
export interface WorkerProc extends MachineProc {
  workdir: string;
}

/** The environment of a machine with data directory `home` on database `url`. */
export function machineEnv(url: string, home: string): Record<string, string> {
  return cleanEnv({ RINGMASTER_HOME: home, RINGMASTER_DATABASE_URL: url, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
}

/** Starts `ringmaster <args>` on a new machine (ended after the file's tests if a test leaves it running). */
export function startOnMachine(scratch: Scratch, url: string, name: string, args: (home: string) => string[]): MachineProc {
  const home = scratch.temp(`rm-${name}-`);
  const { child, done } = startCli(args(home), { cwd: home, env: machineEnv(url, home) });
  scratch.track(child);
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  return { name, home, child, done, out: () => out };
}

/** Starts `ringmaster worker` on a new machine. */
export function startWorkerProc(scratch: Scratch, url: string, name: string, args: string[] = []): WorkerProc {
  const proc = startOnMachine(scratch, url, `worker-${name}`, (home) => ['worker', '--workdir', join(home, 'work'), ...args]);
  return { ...proc, workdir: join(proc.home, 'work') };
}

/** A bare remote with one commit on main. */
export function bareRemote(scratch: Scratch): string {
  const src = scratch.adopt(tempRepo({ 'README.md': 'hello\n' }));
  const bare = join(scratch.temp('rm-remote-'), 'repo.git');
  execFileSync('git', ['clone', '--quiet', '--bare', src, bare], { env: gitEnv() });
  return bare;
}

/** Queues a repository run of the plan agent from another machine (`ringmaster run --repository`); its id. */
export async function queueRepositoryRun(scratch: Scratch, url: string, repo: string, plan: string, maxIterations = 6): Promise<string> {
  const queued = await runCli(
    ['run', '--repository', repo, '--branch', 'main', '--prompt', 'work', '--agent-command', planAgent(plan), '--max-iterations', String(maxIterations), '--checkpoint-interval', '1', '--json'],
    { cwd: scratch.temp('rm-enqueue-'), env: machineEnv(url, scratch.temp('rm-enqueuer-')) },
  );
  if (queued.code !== 0) throw new Error(`ringmaster run --repository failed: ${queued.stderr}`);
  return (JSON.parse(queued.stdout) as { id: string }).id;
}

/** Subjects of the commits on the run's branch of the remote, newest first ([] before the first push). */
export function pushedCheckpoints(repo: string, runId: string): string[] {
  try {
    const log = execFileSync('git', ['--git-dir', repo, 'log', '--format=%s', `refs/heads/ringmaster/${runId}`, '--'], { encoding: 'utf8', env: gitEnv(), stdio: ['ignore', 'pipe', 'ignore'] });
    return log.split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** The process group of the agent a machine (data directory `home`) started for the run last, or null. */
export function agentGroup(home: string, runId: string): number | null {
  return readAgentPid(agentPidPath(home, runId))?.pid ?? null;
}

/**
 * The process group of the agent the machine is running for the run now, or null: its pid file is written only
 * once the agent is spawned (after the iteration's row says running), and still names the last agent after it
 * exited, until the next one starts.
 */
export function liveAgentGroup(home: string, runId: string): number | null {
  const pgid = agentGroup(home, runId);
  return pgid !== null && groupAlive(pgid) ? pgid : null;
}

/** True while process group `pgid` has a live process. */
export function groupAlive(pgid: number): boolean {
  // kill(0) and kill(-1) would address this process's own group and every process.
  if (!Number.isInteger(pgid) || pgid <= 1) throw new Error(`not a process group: ${pgid}`);
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
