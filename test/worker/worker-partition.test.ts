// A network partition between a worker and the database (a TCP proxy that stops forwarding, holding the bytes in
// flight) while the worker's agent works: the worker stops its agent at half the lease, another worker takes the
// run over at the full lease (the database's clock), and when the network heals, nothing the cut-off worker had
// queued (its interrupted iteration, its end of the run) is written, and it pushes nothing: one driver at a time.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { gitEnv } from '../git/git-repo.js';
import { usePostgres } from '../helpers/postgres.js';
import { useScratch } from '../helpers/scratch.js';
import { startTcpProxy, viaPort, type TcpProxy } from '../helpers/tcp-proxy.js';
import { until } from '../helpers/until.js';
import { bareRemote, groupAlive, liveAgentGroup, pushedCheckpoints, queueRepositoryRun, startWorkerProc, type WorkerProc } from './machines.js';

const pg = usePostgres();
const scratch = useScratch();

interface Scene {
  repo: string;
  proxy: TcpProxy;
  store: PostgresStore;
  /** The worker behind the proxy, driving the run. */
  a: WorkerProc;
  /** The worker that takes it over (started once the run is a's). */
  b: WorkerProc;
  id: string;
}

/**
 * Worker `a` (through the proxy) drives a run of `plan` to its first iteration, then worker `b` (direct) starts;
 * `fn` partitions and checks; afterwards the network heals and everything is closed, whatever happened.
 */
async function withPartitionScene(names: [string, string], plan: string, fn: (scene: Scene) => Promise<void>): Promise<void> {
  const url = await pg.cluster.createDatabase();
  const repo = bareRemote(scratch);
  const proxy = await startTcpProxy(pg.cluster.port);
  const a = startWorkerProc(scratch, viaPort(url, proxy.port), names[0]);
  let b: WorkerProc | null = null;
  const id = await queueRepositoryRun(scratch, url, repo, plan);
  const store = await PostgresStore.open(url);
  try {
    await until(`iteration 1 on worker ${names[0]}`, async () => (await store.getIteration(id, 1))?.status === 'running');
    expect((await store.getRun(id))?.owner_pid).toBe(a.child.pid);
    b = startWorkerProc(scratch, url, names[1]);
    await fn({ repo, proxy, store, a, b, id });
  } finally {
    proxy.heal();
    await store.close();
    for (const w of [a, b]) w?.child.kill('SIGTERM');
    await Promise.all([a.done, b?.done]);
    await proxy.close();
  }
}

/** Every run checkpoint on the remote's run branch is the second worker's: iterations 4, 3, 2. */
async function onlyTakersCheckpoints(repo: string, id: string): Promise<void> {
  await until('the last checkpoint on the remote', () => pushedCheckpoints(repo, id)[0]?.endsWith('iteration 4'));
  expect(pushedCheckpoints(repo, id).filter((s) => s.startsWith('[ringmaster]'))).toEqual([4, 3, 2].map((n) => `[ringmaster] checkpoint run ${id} iteration ${n}`));
}

// The two scenes at once (each its own database, proxy, workers and remote): each waits a lease (~11 s) with the
// machine idle, so the waits overlap.
describe.concurrent('ringmaster worker across a network partition', () => {
  it('stops its agent before another worker takes the run over, and writes and pushes nothing once the network is back', () =>
    withPartitionScene(['a', 'b'], 'gate,gate,complete', async ({ repo, proxy, store, a, b, id }) => {
      const agentA = await until("worker a's agent", () => liveAgentGroup(a.home, id));
      const cutAt = Date.now();
      proxy.partition();
      const agentStopped = until("worker a's agent to stop", () => !groupAlive(agentA), 60_000).then(() => Date.now() - cutAt);
      await until('worker b to run iteration 2', async () => (await store.getIteration(id, 2))?.status === 'running', 60_000);
      const takeoverMs = Date.now() - cutAt;
      // The fence: by the time b's agent works, a's is gone.
      expect(groupAlive(agentA)).toBe(false);
      expect(await store.getRun(id)).toMatchObject({ status: 'running', owner_pid: b.child.pid });
      expect((await store.getIteration(id, 1))?.status).toBe('interrupted');
      const stoppedMs = await agentStopped;

      proxy.heal();
      await until('worker a to give the run up', () => a.out().includes(`run ${id}: stopped (interrupted)`), 60_000);
      // b cloned main (a never pushed): its agent's gates count from 1 again.
      const clone = join(b.workdir, 'runs', id);
      writeFileSync(join(clone, '.gate-1'), '');
      await until('iteration 3', async () => (await store.getIteration(id, 3))?.status === 'running', 60_000);
      writeFileSync(join(clone, '.gate-2'), '');
      await until('the run to complete', async () => (await store.getRun(id))?.status === 'completed', 60_000);

      expect((await store.listIterations(id)).map((i) => [i.number, i.status])).toEqual([[1, 'interrupted'], [2, 'success'], [3, 'success'], [4, 'complete']]);
      expect((await store.listRuns())[0]).toMatchObject({ id, status: 'completed', owner_pid: null, totals: { iterations: 4, last_iteration: 4 } });
      const events = await store.listEvents(id);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      // a's own end of the run (stopped, interrupted) never reached the store.
      expect(events.filter((e) => e.type === 'run_finished').map((e) => (e.payload as { status: string }).status)).toEqual(['completed']);
      expect(events.map((e) => e.type)).not.toContain('stopped');
      // a started one agent only; every checkpoint on the remote is b's.
      expect(readFileSync(join(a.workdir, 'runs', id, '.plan-agent-count'), 'utf8')).toBe('1');
      await onlyTakersCheckpoints(repo, id);
      process.stderr.write(`partition: agent stopped after ${stoppedMs} ms, run taken over after ${takeoverMs} ms\n`);
    }), 240_000);

  it('records nothing of an iteration its agent finished during the partition: no result, no checkpoint, nothing pushed', () =>
    withPartitionScene(['c', 'd'], 'gate,ok,complete', async ({ repo, proxy, store, a, b, id }) => {
      // The iteration row says running before its agent starts (a note or the budget is read from the store
      // first): partitioning then would keep the agent from ever starting.
      await until("worker c's agent", () => liveAgentGroup(a.home, id));
      proxy.partition();
      // The agent finishes; its result cannot reach the store.
      const cloneA = join(a.workdir, 'runs', id);
      writeFileSync(join(cloneA, '.gate-1'), '');
      await until('worker d to take the run over', async () => (await store.getRun(id))?.owner_pid === b.child.pid, 60_000);
      proxy.heal();
      await until('worker c to give the run up', () => a.out().includes(`run ${id}: stopped (interrupted)`), 60_000);
      // d's clone is ready once its agent works (d cloned main: its agent's gates count from 1 again).
      await until('iteration 2 on worker d', async () => (await store.getIteration(id, 2))?.status === 'running', 60_000);
      writeFileSync(join(b.workdir, 'runs', id, '.gate-1'), '');
      await until('the run to complete', async () => (await store.getRun(id))?.status === 'completed', 60_000);

      // c's iteration 1 is interrupted for the store (its success was never recorded), and counted once.
      expect((await store.listIterations(id)).map((i) => [i.number, i.status])).toEqual([[1, 'interrupted'], [2, 'success'], [3, 'success'], [4, 'complete']]);
      expect(readFileSync(join(cloneA, '.plan-agent-count'), 'utf8')).toBe('1');
      // Checkpoints follow the store's record of the iteration: c committed none, even locally.
      expect(execFileSync('git', ['-C', cloneA, 'log', '--format=%s'], { encoding: 'utf8', env: gitEnv() })).not.toContain('[ringmaster]');
      const events = await store.listEvents(id);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.filter((e) => e.type === 'iteration_completed').map((e) => e.iteration)).toEqual([2, 3, 4]);
      expect(await store.listCheckpoints(id)).toMatchObject([{ iteration: 2 }, { iteration: 3 }, { iteration: 4 }]);
      await onlyTakersCheckpoints(repo, id);
    }), 240_000);
});
