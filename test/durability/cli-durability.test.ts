// Durability of the real CLI: workspace lock refusal, `stop` of a live run, --worktree, a non-git workspace,
// and rollback to a checkpoint. Needs `npm run build` (the `test` script does).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir, sh, snapshot, tempRepo } from '../git/git-repo.js';
import { agentPidPath, workspaceKey, workspaceLockPath } from '../../src/store/paths.js';
import { cleanEnv, planAgent, ROOT, runCli, startCli } from '../helpers/cli.js';
import { testHome } from '../helpers/home.js';
import { alive } from '../helpers/proc.js';
import { until } from '../helpers/until.js';

const built = existsSync(join(ROOT, 'dist', 'cli', 'main.js'));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) removeDir(dir);
});

function env(): Record<string, string> {
  return cleanEnv({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
}

function repo(init = true): string {
  const dir = tempRepo({ 'README.md': 'hello\n', 'src/a.txt': 'original\n' }, init);
  dirs.push(dir);
  return dir;
}

/** Polls until `probe` returns a value; a probe that throws (a file not there yet) is asked again. */
async function waitFor<T>(what: string, probe: () => T | null | undefined): Promise<T> {
  return until(what, () => {
    try {
      return probe();
    } catch {
      return null;
    }
  }, 10_000);
}

interface LockJson { pid: number; run_id: string; since: string }
interface RunsRow { id: string; status: string; stop_reason: string | null; worktree: string | null; branch: string | null; iterations: number }

async function runsJson(dir: string): Promise<RunsRow[]> {
  const result = await runCli(['runs', '--json'], { cwd: dir, env: env() });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as RunsRow[];
}

/** The lock file of a workspace in this test's data directory. */
function lockFile(dir: string): string {
  return workspaceLockPath(testHome(), workspaceKey(dir));
}

/** Starts a run whose agent spawns a grandchild and hangs; resolves once the lock and agent are in place. */
async function startLiveRun(dir: string): Promise<{ live: ReturnType<typeof startCli>; lock: LockJson; pids: number[] }> {
  const live = startCli(['run', '--prompt', 'work', '--agent-command', planAgent('grandchild'), '--max-iterations', '3', '--checkpoint-interval', '0'], { cwd: dir, env: env() });
  const lock = await waitFor('the lock', () => JSON.parse(readFileSync(lockFile(dir), 'utf8')) as LockJson);
  const pids = await waitFor('the agent pids', () => {
    const text = readFileSync(join(dir, '.plan-agent-pids'), 'utf8').trim();
    return text.includes(' ') ? text.split(' ').map(Number) : null;
  });
  return { live, lock, pids };
}

describe('CLI durability', () => {
  it('runs against a built CLI (npm run build)', () => expect(built).toBe(true));

  it('refuses a second run in a locked workspace with exit 3 naming pid, run id and since; stop ends the live run', async () => {
    const dir = repo();
    const { live, lock, pids } = await startLiveRun(dir);
    try {
      expect(lock.pid).toBe(live.child.pid);
      const second = await runCli(['run', '--prompt', 'x', '--agent-command', planAgent('ok'), '--max-iterations', '1'], { cwd: dir, env: env() });
      expect(second.code).toBe(3);
      expect(second.stderr).toContain(`run ${lock.run_id}`);
      expect(second.stderr).toContain(`pid ${lock.pid}`);
      expect(second.stderr).toContain(`since ${lock.since}`);

      const stop = await runCli(['stop', lock.run_id], { cwd: dir, env: env() });
      expect(stop).toMatchObject({ code: 0, stdout: `asked run ${lock.run_id} (pid ${lock.pid}) to stop\nrun ${lock.run_id} stopped (stopped, user_stop)\n` });
      const ended = await live.done;
      expect(ended.code, ended.stderr).toBe(130);
      for (const pid of pids) expect(alive(pid), `agent process ${pid}`).toBe(false);
      const runs = await runsJson(dir);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ id: lock.run_id, status: 'stopped', stop_reason: 'user_stop', iterations: 1 });
      expect(existsSync(lockFile(dir))).toBe(false);
      expect(existsSync(agentPidPath(testHome(), lock.run_id))).toBe(false);
    } finally {
      live.child.kill('SIGKILL');
      for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 30_000);

  it('--worktree leaves the checkout untouched and checkpoints on branch ringmaster/<id>', async () => {
    const dir = repo();
    const before = snapshot(dir);
    const head = sh(dir, ['rev-parse', 'HEAD']).trim();
    const result = await runCli(['run', '--worktree', '--prompt', 'work', '--agent-command', planAgent('ok'), '--max-iterations', '3', '--checkpoint-interval', '2'], { cwd: dir, env: env() });
    expect(result.code, result.stderr).toBe(2);
    expect(snapshot(dir)).toEqual(before);
    expect(sh(dir, ['rev-parse', 'HEAD']).trim()).toBe(head);
    expect(sh(dir, ['status', '--porcelain']).trim()).toBe('');
    const [run] = await runsJson(dir);
    expect(run).toMatchObject({ status: 'completed', stop_reason: 'max_iterations', iterations: 3, branch: `ringmaster/${run?.id}` });
    const worktree = run?.worktree ?? '';
    expect(worktree).not.toBe('');
    expect(worktree).not.toBe(dir);
    dirs.push(worktree);
    expect(readFileSync(join(worktree, '.plan-agent-count'), 'utf8')).toBe('3');
    const subjects = sh(dir, ['log', '--format=%s', `ringmaster/${run?.id}`]).trim().split('\n');
    expect(subjects.slice(0, 2)).toEqual([`[ringmaster] checkpoint run ${run?.id} iteration 3`, `[ringmaster] checkpoint run ${run?.id} iteration 2`]);
    expect(sh(dir, ['log', '-1', '--format=%s', 'main']).trim()).toBe('initial');
  }, 30_000);

  it('works in a non-git workspace with a warning that checkpoints are off', async () => {
    const dir = repo(false);
    const result = await runCli(['run', '--prompt', 'work', '--agent-command', planAgent('ok'), '--max-iterations', '2', '--checkpoint-interval', '1'], { cwd: dir, env: env() });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout + result.stderr).toContain(`${dir} is not a git repository: checkpoints are off`);
    const [run] = await runsJson(dir);
    expect(run).toMatchObject({ status: 'completed', stop_reason: 'max_iterations', iterations: 2 });
    expect(existsSync(join(dir, '.git'))).toBe(false);
  }, 30_000);

  it('rollback --to 2 restores the exact files of the iteration-2 checkpoint', async () => {
    const dir = repo();
    const result = await runCli(['run', '--prompt', 'work', '--agent-command', planAgent('ok'), '--max-iterations', '3', '--checkpoint-interval', '1'], { cwd: dir, env: env() });
    expect(result.code, result.stderr).toBe(2);
    const [run] = await runsJson(dir);
    const id = run?.id ?? '';
    const log = sh(dir, ['log', '--format=%H %s']).trim().split('\n');
    const target = log.find((l) => l.endsWith(`[ringmaster] checkpoint run ${id} iteration 2`))?.split(' ')[0] ?? '';
    expect(target).toMatch(/^[0-9a-f]{40}$/);
    const expected: Record<string, string> = {};
    for (const path of sh(dir, ['ls-tree', '-r', '--name-only', target]).trim().split('\n')) expected[path] = sh(dir, ['show', `${target}:${path}`]);
    expect(expected['.plan-agent-count']).toBe('2');
    expect(readFileSync(join(dir, '.plan-agent-count'), 'utf8')).toBe('3');

    const rollback = await runCli(['rollback', id, '--to', '2'], { cwd: dir, env: env() });
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(snapshot(dir)).toEqual(expected);
    expect(existsSync(join(dir, '.plan-agent-prompt-3'))).toBe(false);
    expect(sh(dir, ['log', '-1', '--format=%s']).trim()).toBe(`[ringmaster] rollback run ${id} to iteration 2 (${target.slice(0, 12)})`);
  }, 30_000);
});
