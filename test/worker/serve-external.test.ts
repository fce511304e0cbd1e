// `ringmaster serve --workers external` with separate `ringmaster worker` processes on one PostgreSQL database
// and a bare git remote: runs created through the API (repository + branch) are queued, driven by the workers,
// shown and controlled by the server.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitEnv } from '../git/git-repo.js';
import { planAgent } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';
import { useScratch } from '../helpers/scratch.js';
import { until } from '../helpers/until.js';
import type { ServerMessage } from '../../src/server/schemas.js';
import { connect } from '../server/harness.js';
import { bareRemote, startOnMachine, startWorkerProc, type MachineProc } from './machines.js';

type EventMessage = Extract<ServerMessage, { type: 'event' }>;
const isEvent = (m: ServerMessage): m is EventMessage => m.type === 'event';

// The test that restarts the database has a cluster of its own; the other one uses the run's shared one.
const shared = usePostgres();
const pg = usePostgres({ own: true });
const scratch = useScratch();

function start(args: string[], url: string): MachineProc {
  return startOnMachine(scratch, url, 'server', () => args);
}

/** The token the server generated on its first start (it prints it once), as the header scripts send. */
const tokens = new Map<string, { authorization: string }>();
async function served(server: MachineProc): Promise<string> {
  const base = await until('the server address', () => /serving on (http:\/\/\S+)/.exec(server.out())?.[1] ?? null);
  const token = await until('the token', () => /token \(shown once, stored hashed in \S+\): (\S+)/.exec(server.out())?.[1] ?? null);
  tokens.set(base, { authorization: `Bearer ${token}` });
  return base;
}
const auth = (base: string): { authorization: string } => tokens.get(base) ?? { authorization: '' };

async function api(base: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const headers = auth(base);
  const r = await fetch(`${base}${path}`, body === undefined ? { headers } : { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: await r.json() };
}

interface Detail { run: { status: string; stop_reason: string | null; iterations: number }; iterations: Array<{ number: number; status: string }> }

// Both at once: the second one mostly waits (for its database to stop and start again).
describe.concurrent('serve --workers external', () => {
  it('queues API runs on a repository for three workers, shows them live, stops one that a worker drives', async () => {
    const url = await shared.cluster.createDatabase();
    const repo = bareRemote(scratch);
    const server = start(['serve', '--port', '0', '--workers', 'external'], url);
    const base = await served(server);
    expect(server.out()).toContain("runs are driven by external workers ('ringmaster worker')");
    const workers = [0, 1, 2].map((n) => startWorkerProc(scratch, url, String(n), ['--concurrency', '2']));

    const ids: string[] = [];
    // No cooldown between iterations (a server's runs wait 5 s by default): 5 s per wave of runs, in nothing this
    // file looks at.
    for (let i = 0; i < 20; i++) {
      const created = await api(base, '/api/runs', { repository: repo, branch: 'main', prompt: 'work', agent_command: planAgent('ok,complete'), checkpoint_interval: 1, cooldown: 0, max_iterations: 5 });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      expect(created.json).toMatchObject({ status: 'pending' });
      ids.push((created.json as { id: string }).id);
    }
    const gated = await api(base, '/api/runs', { repository: repo, branch: 'main', prompt: 'work', agent_command: planAgent('gate,complete'), checkpoint_interval: 1, cooldown: 0, max_iterations: 5 });
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

  it('keeps showing a worker\'s run live across a database restart: every event once, in order, and the API answers again', async () => {
    const url = await pg.cluster.createDatabase();
    const repo = bareRemote(scratch);
    const server = start(['serve', '--port', '0', '--workers', 'external'], url);
    const base = await served(server);
    const worker = startWorkerProc(scratch, url, 'r');
    const client = await connect(base, auth(base));
    try {
      client.send({ type: 'subscribe', runs: '*' });
      await client.waitFor((m): m is Extract<ServerMessage, { type: 'subscribed' }> => m.type === 'subscribed', 'subscribed');
      const created = await api(base, '/api/runs', { repository: repo, branch: 'main', prompt: 'work', agent_command: planAgent('gate,gate,complete'), checkpoint_interval: 1, cooldown: 0, max_iterations: 5 });
      const id = (created.json as { id: string }).id;
      const clone = join(worker.workdir, 'runs', id);
      const live = (): EventMessage[] => client.messages.filter(isEvent).filter((m) => m.run_id === id);
      await until('iteration 1 seen live', () => live().some((m) => m.event.type === 'iteration_started'));

      await pg.cluster.stop('immediate');
      // While the database is away the agent works on, and its iteration ends.
      writeFileSync(join(clone, '.gate-1'), '');
      await new Promise((r) => setTimeout(r, 2000));
      await pg.cluster.start();
      await until('iteration 2 seen live', () => live().some((m) => m.event.type === 'iteration_started' && m.event.iteration === 2), 60_000);
      writeFileSync(join(clone, '.gate-2'), '');
      await client.waitFor((m): m is EventMessage => isEvent(m) && m.run_id === id && m.event.type === 'run_finished', 'the end of the run');

      const seqs = live().map((m) => m.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      const stored = (await api(base, `/api/runs/${id}/events?after_seq=0`)).json as { events: Array<{ seq: number; type: string }> };
      expect(live().map((m) => [m.seq, m.event.type])).toEqual(stored.events.map((e) => [e.seq, e.type]));
      const detail = (await api(base, `/api/runs/${id}`)).json as Detail;
      expect(detail.run).toMatchObject({ status: 'completed', iterations: 3 });
      expect(detail.iterations.map((it) => it.status)).toEqual(['success', 'success', 'complete']);
    } finally {
      await client.close();
      for (const p of [worker, server]) p.child.kill('SIGTERM');
      await Promise.all([worker.done, server.done]);
    }
  }, 180_000);
});
