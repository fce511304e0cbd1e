// Workers on a real job queue, as separate processes on one PostgreSQL database and a bare git remote:
// a repository run queued from the CLI, driven by one worker, that worker (and its agent) killed with SIGKILL
// mid-iteration; another worker takes the run over from the last pushed checkpoint with the next iteration
// number, the interrupted iteration recorded as interrupted, totals intact.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { runCli } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';
import { useScratch } from '../helpers/scratch.js';
import { until } from '../helpers/until.js';
import { bareRemote, groupAlive, killGroup, liveAgentGroup, machineEnv, pushedCheckpoints, queueRepositoryRun, startWorkerProc } from './machines.js';

// The tests that restart the database have a cluster of their own; the others use the run's shared one.
const shared = usePostgres();
const own = usePostgres({ own: true });
const scratch = useScratch();
const temp = (prefix: string): string => scratch.temp(prefix);
const startWorker = (url: string, name: string): ReturnType<typeof startWorkerProc> => startWorkerProc(scratch, url, name);
const remote = (): string => bareRemote(scratch);

// The two groups at once (the first waits a lease, ~11 s, the second restarts its own database twice, the machine
// idle meanwhile); the tests of the second one after the other.
describe('ringmaster worker', () => {
  describe.concurrent('on a database that stays up', () => {
    it('a run survives kill -9 of its worker: another worker continues it from the pushed checkpoint', async () => {
      const url = await shared.cluster.createDatabase();
      const repo = remote();
      const workers = [startWorker(url, 'a'), startWorker(url, 'b')];
      const id = await queueRepositoryRun(scratch, url, repo, 'ok,gate,complete');
      const store = await PostgresStore.open(url);
      try {
        // Iteration 2 is running (waiting at its gate) on one of the workers; iteration 1's checkpoint is pushed.
        const owner = await until('iteration 2 to run', async () => {
          const run = await store.getRun(id);
          const second = await store.getIteration(id, 2);
          return second?.status === 'running' ? run : null;
        });
        const first = workers.find((w) => w.child.pid === owner?.owner_pid);
        const other = workers.find((w) => w !== first);
        expect(first).toBeDefined();
        const pushed = (): string => pushedCheckpoints(repo, id).join('\n');
        await until('the first checkpoint on the remote', () => pushed().includes(`iteration 1`));

        // The machine disappears: the worker and its agent die at once.
        const group = await until("iteration 2's agent", () => liveAgentGroup(first!.home, id));
        const killedAt = Date.now();
        first!.child.kill('SIGKILL');
        killGroup(group);
        await first!.done;

        const clone = join(other!.workdir, 'runs', id);
        await until('the other worker to start iteration 3', async () => (await store.getIteration(id, 3))?.status === 'running', 60_000);
        const takeoverMs = Date.now() - killedAt;
        expect((await store.getRun(id))?.owner_pid).toBe(other!.child.pid);
        writeFileSync(join(clone, '.gate-2'), '');
        await until('the run to complete', async () => (await store.getRun(id))?.status === 'completed', 60_000);

        expect((await store.listIterations(id)).map((i) => [i.number, i.status])).toEqual([[1, 'success'], [2, 'interrupted'], [3, 'success'], [4, 'complete']]);
        const run = (await store.listRuns())[0];
        expect(run).toMatchObject({ id, status: 'completed', stop_reason: 'success_signal', totals: { iterations: 4, last_iteration: 4 } });
        const seqs = (await store.listEvents(id)).map((e) => e.seq);
        expect(seqs).toEqual(seqs.map((_, i) => i + 1));
        // Every iteration that finished was committed and pushed to the run's branch, on top of main.
        await until('the last checkpoint on the remote', () => pushed().includes('iteration 4'));
        expect(pushedCheckpoints(repo, id).slice(0, 3)).toEqual([
          `[ringmaster] checkpoint run ${id} iteration 4`,
          `[ringmaster] checkpoint run ${id} iteration 3`,
          `[ringmaster] checkpoint run ${id} iteration 1`,
        ]);
        // Reported, not asserted: how long a takeover takes is the machine's speed (the wait above bounds it).
        process.stderr.write(`takeover after kill -9: ${takeoverMs} ms\n`);
      } finally {
        await store.close();
        for (const w of workers) w.child.kill('SIGTERM');
        await Promise.all(workers.map((w) => w.done));
      }
    }, 180_000);

    it('pauses, resumes and stops a run that a worker drives, from another machine', async () => {
      const url = await shared.cluster.createDatabase();
      const repo = remote();
      const worker = startWorker(url, 'c');
      const elsewhere = machineEnv(url, temp('rm-elsewhere-'));
      const id = await queueRepositoryRun(scratch, url, repo, 'gate,gate,gate,complete', 6);
      const clone = join(worker.workdir, 'runs', id);
      const store = await PostgresStore.open(url);
      try {
        await until('iteration 1 on the worker', async () => (await store.getIteration(id, 1))?.status === 'running');
        expect(await runCli(['pause', id], { cwd: temp('rm-cli-'), env: elsewhere })).toMatchObject({ code: 0, stdout: `asked run ${id} to pause: it pauses after its current iteration\n` });
        writeFileSync(join(clone, '.gate-1'), '');
        await until('paused', async () => (await store.getRun(id))?.status === 'paused');
        expect(await runCli(['resume', id], { cwd: temp('rm-cli-'), env: elsewhere })).toMatchObject({ code: 0, stdout: `resumed run ${id}\n` });
        await until('iteration 2', async () => (await store.getIteration(id, 2))?.status === 'running');
        const stop = await runCli(['stop', id], { cwd: temp('rm-cli-'), env: elsewhere });
        expect(stop.stdout).toContain(`run ${id} stopped (stopped, user_stop)\n`);
        expect(await store.getRun(id)).toMatchObject({ status: 'stopped', stop_reason: 'user_stop' });
        expect((await store.listIterations(id)).map((i) => [i.number, i.status])).toEqual([[1, 'success'], [2, 'interrupted']]);
      } finally {
        await store.close();
        worker.child.kill('SIGTERM');
        const ended = await worker.done;
        expect(ended.stdout).toContain(`run ${id}: stopped (user_stop) after 2 iteration(s)`);
      }
    }, 120_000);
  });

  describe.concurrent('through restarts of its database', () => {
    it.sequential('rides out a database restart in the middle of an iteration', async () => {
      const url = await own.cluster.createDatabase();
      const repo = remote();
      const worker = startWorker(url, 'd');
      const id = await queueRepositoryRun(scratch, url, repo, 'gate,gate,complete', 6);
      const clone = join(worker.workdir, 'runs', id);
      let store = await PostgresStore.open(url);
      try {
        await until('iteration 1 on the worker', async () => (await store.getIteration(id, 1))?.status === 'running');
        await store.close();
        await own.cluster.stop('immediate');
        await new Promise((r) => setTimeout(r, 2000));
        await own.cluster.start();
        store = await PostgresStore.open(url);
        writeFileSync(join(clone, '.gate-1'), '');
        await until('iteration 2', async () => (await store.getIteration(id, 2))?.status === 'running', 60_000);
        writeFileSync(join(clone, '.gate-2'), '');
        await until('the run to complete', async () => (await store.getRun(id))?.status === 'completed', 60_000);
        expect((await store.listIterations(id)).map((i) => [i.number, i.status])).toEqual([[1, 'success'], [2, 'success'], [3, 'complete']]);
        const seqs = (await store.listEvents(id)).map((e) => e.seq);
        expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      } finally {
        await store.close();
        worker.child.kill('SIGTERM');
        await worker.done;
      }
    }, 150_000);

    it.sequential('stops its agent when the database is gone longer than half the lease, and continues the run once it is back', async () => {
      const url = await own.cluster.createDatabase();
      const repo = remote();
      const worker = startWorker(url, 'e');
      const id = await queueRepositoryRun(scratch, url, repo, 'gate,gate,complete', 8);
      const clone = join(worker.workdir, 'runs', id);
      let store = await PostgresStore.open(url);
      let gates: NodeJS.Timeout | null = null;
      try {
        await until('iteration 1 on the worker', async () => (await store.getIteration(id, 1))?.status === 'running');
        const agentPid = await until('the agent of iteration 1', () => liveAgentGroup(worker.home, id));
        await store.close();
        await own.cluster.stop('immediate');
        // Half the lease (5 s) without renewal: the worker stops the agent while the database is still down.
        await until('the agent to be stopped', () => !groupAlive(agentPid), 30_000);
        await own.cluster.start();
        store = await PostgresStore.open(url);
        // From now on every gate is open: the run goes to its end.
        gates = setInterval(() => {
          if (!existsSync(clone)) return;
          for (const n of [1, 2]) writeFileSync(join(clone, `.gate-${n}`), '');
        }, 100);
        await until('the run to complete', async () => (await store.getRun(id))?.status === 'completed', 90_000);
        const iterations = (await store.listIterations(id)).map((i) => [i.number, i.status]);
        expect(iterations[0]).toEqual([1, 'interrupted']);
        expect(iterations.map(([n]) => n)).toEqual(iterations.map((_, i) => i + 1));
        expect(iterations.at(-1)?.[1]).toBe('complete');
        const seqs = (await store.listEvents(id)).map((e) => e.seq);
        expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      } finally {
        if (gates) clearInterval(gates);
        await store.close();
        worker.child.kill('SIGTERM');
        await worker.done;
      }
    }, 180_000);
  });
});
