// `ringmaster worker`: takes run jobs from the queue and drives each as an ordinary run, up to N at once,
// keeping on after any one run fails. On shutdown its runs are interrupted and their jobs given back, so
// another worker continues them.
import { hostname } from 'node:os';
import type { PgBoss } from 'pg-boss';
import { ControlPoller } from '../manager/control-poller.js';
import type { Owner, Store } from '../store/index.js';
import { DEFAULT_TIMING, openQueue, RUN_QUEUE, type RunJobData } from './queue.js';
import { runJob, type JobContext } from './run-job.js';

/** How a worker is set up. */
export interface WorkerOptions {
  url: string;
  store: Store;
  env: Readonly<Record<string, string | undefined>>;
  workdir: string;
  concurrency: number;
  log: (line: string) => void;
  now?: () => number;
  owner?: Owner;
}

/** A running worker. */
export interface Worker {
  /** Interrupts the runs, gives their jobs back and disconnects. */
  stop(): Promise<void>;
}

/** Lease of a run's owner record: a silent owner loses the run after this (the job heartbeat is 10 s too). */
export const LEASE_MS = 10_000;
/** How often a worker renews the lease of each of its runs. */
export const RENEW_MS = 2_000;

/** Starts taking jobs. */
export async function startWorker(options: WorkerOptions): Promise<Worker> {
  const shutdown = new AbortController();
  const boss: PgBoss = await openQueue(options.url, { onError: (error) => options.log(`queue: ${error.message}`) });
  const controls = new ControlPoller(options.store, { onError: (error) => options.log(`control requests: ${error.message}`) });
  const ctx: JobContext = {
    store: options.store,
    env: options.env,
    workdir: options.workdir,
    owner: options.owner ?? { pid: process.pid, host: hostname() },
    leaseMs: LEASE_MS,
    renewMs: RENEW_MS,
    now: options.now ?? Date.now,
    log: options.log,
    controls,
  };
  await boss.work<RunJobData>(
    RUN_QUEUE,
    {
      localConcurrency: options.concurrency,
      batchSize: 1,
      pollingIntervalSeconds: DEFAULT_TIMING.pollingSeconds,
      // A run given back by a dead worker is found by polling (NOTIFY announces new jobs only).
      notifyPollingIntervalSeconds: DEFAULT_TIMING.pollingSeconds,
      heartbeatRefreshSeconds: 2,
    },
    async ([job]) => {
      if (!job) return;
      const runId = job.data.run_id;
      const signal = AbortSignal.any([shutdown.signal, job.signal]);
      let outcome;
      try {
        outcome = await runJob(ctx, runId, signal);
      } catch (error) {
        // One run's failure (a bad repository, a store error) is that run's: the worker goes on.
        options.log(`run ${runId}: ${(error as Error).message}`);
        throw error;
      }
      if (outcome === 'lost') options.log(`run ${runId}: taken over by another worker; stopped here`);
      // Interrupted here (shutdown, database lost): fail the job so that it is retried, here or elsewhere.
      if (outcome === 'interrupted') throw new Error(`run ${runId} interrupted on ${ctx.owner.host} (pid ${ctx.owner.pid})`);
    },
  );
  return {
    async stop() {
      shutdown.abort();
      await boss.stop({ graceful: true, timeout: 30_000 });
      controls.stop();
    },
  };
}
