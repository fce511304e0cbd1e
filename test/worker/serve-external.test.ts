// `ringmaster serve --workers external` with separate `ringmaster worker` processes on one PostgreSQL database
// and a bare git remote: runs created through the API (repository + branch) are queued, driven by the workers,
// shown and controlled by the server.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitEnv, tempRepo } from '../git/git-repo.js';
import { cleanEnv, planAgent, startCli, type CliResult } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';
import { useScratch } from '../helpers/scratch.js';
import { until } from '../helpers/until.js';

const pg = usePostgres();
const scratch = useScratch();
const temp = (prefix: string): string => scratch.temp(prefix);

function env(url: string, home: string): Record<string, string> {
  return cleanEnv({ RINGMASTER_HOME: home, RINGMASTER_DATABASE_URL: url, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
}

function start(args: string[], url: string): { home: string; done: Promise<CliResult>; child: ChildProcess; out: () => string } {
  const home = temp('rm-ext-');
  const cli = startCli(args, { cwd: home, env: env(url, home) });
  scratch.track(cli.child);
  let out = '';
  cli.child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  return { home, done: cli.done, child: cli.child, out: () => out };
}

async function api(base: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const r = await fetch(`${base}${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: await r.json() };
}

interface Detail { run: { status: string; stop_reason: string | null; iterations: number }; iterations: Array<{ number: number; status: string }> }

describe('serve --workers external', () => {
  it('queues API runs on a repository for three workers, shows them live, stops one that a worker drives', async () => {
    const url = await pg.cluster.createDatabase();
    const src = tempRepo({ 'README.md': 'hello\n' });
    scratch.adopt(src);
    const repo = join(temp('rm-remote-'), 'repo.git');
    execFileSync('git', ['clone', '--quiet', '--bare', src, repo], { env: gitEnv() });
    const server = start(['serve', '--port', '0', '--workers', 'external'], url);
    const base = await until('the server address', () => /serving on (http:\/\/\S+)/.exec(server.out())?.[1] ?? null);
    expect(server.out()).toContain("runs are driven by external workers ('ringmaster worker')");
    const workers = [0, 1, 2].map(() => start(['worker', '--concurrency', '2'], url));

    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const created = await api(base, '/api/runs', { repository: repo, branch: 'main', prompt: 'work', agent_command: planAgent('ok,complete'), checkpoint_interval: 1, max_iterations: 5 });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      expect(created.json).toMatchObject({ status: 'pending' });
      ids.push((created.json as { id: string }).id);
    }
    const gated = await api(base, '/api/runs', { repository: repo, branch: 'main', prompt: 'work', agent_command: planAgent('gate,complete'), checkpoint_interval: 1, max_iterations: 5 });
    const gatedId = (gated.json as { id: string }).id;

    for (const id of ids) {
      const detail = await until(`run ${id} to complete`, async () => {
        const d = (await api(base, `/api/runs/${id}`)).json as Detail;
        return d.run.status === 'completed' ? d : null;
      }, 120_000);
      expect(detail.run).toMatchObject({ status: 'completed', stop_reason: 'success_signal', iterations: 2 });
      expect(detail.iterations.map((it) => it.status)).toEqual(['success', 'complete']);
    }
    // Every worker took part, and the server saw the workers' events (stored by them) as its own.
    const owners = execFileSync('git', ['--git-dir', repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/ringmaster/'], { encoding: 'utf8', env: gitEnv() });
    expect(owners.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(20);
    const events = (await api(base, `/api/runs/${ids[0] ?? ''}/events?after_seq=0`)).json as { events: Array<{ seq: number; type: string }> };
    expect(events.events.map((e) => e.seq)).toEqual(events.events.map((_, i) => i + 1));
    expect(events.events.map((e) => e.type)).toEqual(expect.arrayContaining(['run_queued', 'run_started', 'iteration_completed', 'completed']));

    await until('the gated run to wait at its gate', async () => ((await api(base, `/api/runs/${gatedId}`)).json as Detail).iterations[0]?.status === 'running');
    const stop = await api(base, `/api/runs/${gatedId}/stop`, {});
    expect(stop.status).toBe(200);
    await until('the gated run to stop', async () => ((await api(base, `/api/runs/${gatedId}`)).json as Detail).run.status === 'stopped');
    expect(((await api(base, `/api/runs/${gatedId}`)).json as Detail).iterations.map((it) => it.status)).toEqual(['interrupted']);

    const drivers = workers.map((w) => ids.filter((id) => w.out().includes(`run ${id}: completed`)).length);
    expect(drivers.reduce((a, b) => a + b, 0)).toBe(20);
    for (const w of [...workers, server]) w.child.kill('SIGTERM');
    await Promise.all([...workers, server].map((w) => w.done));
  }, 240_000);
});
