// `ringmaster serve` as a real process: SIGTERM interrupts its runs and exits; kill -9 and a restart resume the
// runs it was driving (their left-over agents killed), or with --no-resume leave them stopped to resume by hand.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, planAgent, startCli } from '../helpers/cli.js';
import { agentPids, until, useRepos } from './harness.js';
import { alive } from '../helpers/proc.js';


const repo = useRepos();
const homes: string[] = [];
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A data directory for one test's servers (they share it across restarts). */
function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'ringmaster-serve-'));
  homes.push(home);
  return home;
}

interface Served {
  cli: ReturnType<typeof startCli>;
  base: string;
  stdout(): string;
}

/** Starts `ringmaster serve --port 0` over `home`; resolves once it prints its address. */
async function serve(home: string, ...extra: string[]): Promise<Served> {
  const cli = startCli(['serve', '--port', '0', ...extra], { cwd: home, env: cleanEnv({ RINGMASTER_HOME: home, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' }) });
  let out = '';
  cli.child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const base = await until('the server address', () => /serving on (http:\/\/\S+)/.exec(out)?.[1] ?? null);
  return { cli, base, stdout: () => out };
}

async function api(base: string, path: string, body?: unknown): Promise<unknown> {
  const r = await fetch(`${base}${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return r.json();
}

interface Detail { run: { status: string; stop_reason: string | null; iterations: number }; iterations: Array<{ number: number; status: string }> }

const agentCount = (dir: string): number => (existsSync(join(dir, '.plan-agent-count')) ? Number(readFileSync(join(dir, '.plan-agent-count'), 'utf8')) : 0);


describe('ringmaster serve', () => {
  it('kill -9, then a restart resumes the runs it drove: left-over agent killed, the iteration interrupted, numbering and totals go on', async () => {
    const home = tempHome();
    const dir = repo();
    const first = await serve(home);
    const { id } = (await api(first.base, '/api/runs', { workspace: dir, prompt: 'w', agent_command: planAgent('grandchild,complete'), cooldown: 0, checkpoint_interval: 0 })) as { id: string };
    const pids = await until('the agent', () => agentPids(dir));
    first.cli.child.kill('SIGKILL');
    await first.cli.done;
    for (const pid of pids) expect(alive(pid), `agent ${pid} survives the server until the restart`).toBe(true);

    const second = await serve(home);
    const detail = await until('the run to end', async () => {
      const d = (await api(second.base, `/api/runs/${id}`)) as Detail;
      return d.run.status === 'completed' ? d : null;
    });
    for (const pid of pids) expect(alive(pid), `left-over agent ${pid}`).toBe(false);
    expect(detail.run).toMatchObject({ status: 'completed', stop_reason: 'success_signal', iterations: 2 });
    expect(detail.iterations.map((i) => [i.number, i.status])).toEqual([[1, 'interrupted'], [2, 'complete']]);
    expect(agentCount(dir)).toBe(2);
    second.cli.child.kill('SIGTERM');
    expect((await second.cli.done).code).toBe(0);
  }, 60_000);

  it('SIGTERM interrupts the runs and exits; a restart with --no-resume leaves them stopped, a later one resumes them', async () => {
    const home = tempHome();
    const dir = repo();
    const first = await serve(home);
    const { id } = (await api(first.base, '/api/runs', { workspace: dir, prompt: 'w', agent_command: planAgent('hang,complete'), cooldown: 0, checkpoint_interval: 0 })) as { id: string };
    await until('iteration 1', () => (agentCount(dir) === 1 ? true : null));
    first.cli.child.kill('SIGTERM');
    const ended = await first.cli.done;
    expect(ended.code).toBe(0);
    expect(ended.stdout).toContain('Received SIGTERM: interrupting the runs (each can be resumed) and stopping...\nStopped.\n');

    const held = await serve(home, '--no-resume');
    expect(((await api(held.base, `/api/runs/${id}`)) as Detail).run).toMatchObject({ status: 'stopped', stop_reason: 'interrupted', iterations: 1 });
    held.cli.child.kill('SIGTERM');
    await held.cli.done;

    const resumed = await serve(home);
    const detail = await until('the run to end', async () => {
      const d = (await api(resumed.base, `/api/runs/${id}`)) as Detail;
      return d.run.status === 'completed' ? d : null;
    });
    expect(detail.iterations.map((i) => [i.number, i.status])).toEqual([[1, 'interrupted'], [2, 'complete']]);
    resumed.cli.child.kill('SIGTERM');
    await resumed.cli.done;
  }, 60_000);

  it('a run paused when the server died comes back paused', async () => {
    const home = tempHome();
    const dir = repo();
    const first = await serve(home);
    const { id } = (await api(first.base, '/api/runs', { workspace: dir, prompt: 'w', agent_command: planAgent('gate,complete'), cooldown: 0, checkpoint_interval: 0 })) as { id: string };
    await until('iteration 1', () => (agentCount(dir) === 1 ? true : null));
    await api(first.base, `/api/runs/${id}/pause`, {});
    writeFileSync(join(dir, '.gate-1'), '');
    await until('paused', async () => (((await api(first.base, `/api/runs/${id}`)) as Detail).run.status === 'paused' ? true : null));
    first.cli.child.kill('SIGKILL');
    await first.cli.done;
    const second = await serve(home);
    await until('paused again', async () => (((await api(second.base, `/api/runs/${id}`)) as Detail).run.status === 'paused' ? true : null));
    expect(agentCount(dir)).toBe(1);
    await api(second.base, `/api/runs/${id}/resume`, {});
    const detail = await until('the end', async () => {
      const d = (await api(second.base, `/api/runs/${id}`)) as Detail;
      return d.run.status === 'completed' ? d : null;
    });
    expect(detail.iterations.map((i) => [i.number, i.status])).toEqual([[1, 'success'], [2, 'complete']]);
    second.cli.child.kill('SIGTERM');
    await second.cli.done;
  }, 60_000);
});
