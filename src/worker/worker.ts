// `ringmaster worker`: takes run jobs from the queue and drives each as an ordinary run, up to N at once, keeping
// on after any one run fails. It wakes when a job is queued (NOTIFY) and polls every second (a job given back by a
// dead worker is found by polling). Every job's heartbeat is renewed; a run near the job cap continues as a new
// job. A reconciler re-queues runs that lost their job. On shutdown its runs are interrupted and their jobs given
// back, so another worker continues them.
import { hostname } from 'node:os';
import { ControlPoller } from '../manager/control-poller.js';
import { registerBuiltInProgramKinds } from '../manager/program-kinds.js';
import { ACTIVE_STATUSES, isWatchable } from '../store/index.js';
import type { Owner, Store, Subscription } from '../store/index.js';
import { JOB_EXPIRE_SECONDS, RunQueue, type RunJob } from './queue.js';
import { runJob, type JobContext, type JobOutcome } from './run-job.js';

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
  /** Hand a run over to a new job after this long in one (default 22 h, under the queue's 23 h job cap). */
  handOverAfterMs?: number;
  /** How often queued runs without a job are looked for (default 30 s). */
  reconcileMs?: number;
  /** How often the queue is polled (default 1 s; new jobs also wake the worker at once). */
  pollMs?: number;
}

/** A running worker. */
export interface Worker {
  /** Interrupts the runs, gives their jobs back and disconnects. */
  stop(): Promise<void>;
}

/** Lease of a run's owner record: a silent owner loses the run after this (the job heartbeat is 10 s too). */
export const LEASE_MS = 10_000;
/** How often a worker renews the lease (and the job heartbeat) of each of its runs. */
export const RENEW_MS = 2_000;
/** When a run is handed to a continuation job: well before the job's expiry. */
export const HAND_OVER_AFTER_MS = (JOB_EXPIRE_SECONDS - 3600) * 1000;

/** Starts taking jobs. */
export async function startWorker(options: WorkerOptions): Promise<Worker> {
  // Runs of every kind (task lists, workflows) can be driven here.
  registerBuiltInProgramKinds();
  const shutdown = new AbortController();
  const queue = await RunQueue.open(options.url, { onError: (error) => options.log(`queue: ${error.message}`) });
  const controls = new ControlPoller(options.store, { onError: (error) => options.log(`control requests: ${error.message}`) });
  const ctx: JobContext = {
    store: options.store,
    env: options.env,
    workdir: options.workdir,
    owner: options.owner ?? { pid: process.pid, host: hostname() },
    leaseMs: LEASE_MS,
    renewMs: RENEW_MS,
    handOverAfterMs: options.handOverAfterMs ?? HAND_OVER_AFTER_MS,
    now: options.now ?? Date.now,
    log: options.log,
    controls,
  };
  const { pump, running } = jobPump(queue, options, shutdown.signal, (job) => handleJob(queue, ctx, job, shutdown.signal));
  const reconcile = async (): Promise<void> => {
    try {
      const requeued = await reconcileQueue(options.store, queue);
      if (requeued.length > 0) options.log(`queued again (their job was lost): ${requeued.join(', ')}`);
    } catch (error) {
      options.log(`reconciling the queue: ${(error as Error).message}`);
    }
  };

  const subscription: Subscription | null = isWatchable(options.store) ? await options.store.watch('queue', () => void pump(), () => void pump()) : null;
  const poll = setInterval(() => void pump(), options.pollMs ?? 1000);
  const reconciler = setInterval(() => void reconcile(), options.reconcileMs ?? 30_000);
  void pump();
  void reconcile();
  return {
    async stop() {
      shutdown.abort();
      clearInterval(poll);
      clearInterval(reconciler);
      await subscription?.close();
      await Promise.all(running);
      controls.stop();
      await queue.close();
    },
  };
}

/**
 * Takes jobs while there is room here (and in the global limit), one fetch loop at a time: `pump` is called on
 * every wake-up and whenever a job ends; `running` holds the jobs being handled.
 */
function jobPump(queue: RunQueue, options: WorkerOptions, shutdown: AbortSignal, handle: (job: RunJob) => Promise<void>): { pump: () => Promise<void>; running: Set<Promise<void>> } {
  const running = new Set<Promise<void>>();
  let fetching = false;
  let again = false;
  const pump = async (): Promise<void> => {
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    try {
      do {
        again = false;
        while (!shutdown.aborted && running.size < options.concurrency) {
          const job = await queue.fetch();
          if (!job) break;
          const done: Promise<void> = handle(job).finally(() => {
            running.delete(done);
            void pump();
          });
          running.add(done);
        }
      } while (again && !shutdown.aborted);
    } catch (error) {
      options.log(`queue: ${(error as Error).message}`);
    } finally {
      fetching = false;
    }
  };
  return { pump, running };
}

/** Drives one job's run, its heartbeat renewed meanwhile, then settles the job by how the run ended. */
async function handleJob(queue: RunQueue, ctx: JobContext, job: RunJob, shutdown: AbortSignal): Promise<void> {
  const lapsed = new AbortController();
  const touch = setInterval(() => {
    queue.touch(job).then(
      (held) => {
        if (!held && !lapsed.signal.aborted) {
          ctx.log(`run ${job.runId}: its job was given to another worker; stopping here`);
          lapsed.abort();
        }
      },
      () => undefined,
    );
  }, RENEW_MS);
  let outcome: JobOutcome;
  try {
    outcome = await runJob(ctx, job.runId, AbortSignal.any([shutdown, lapsed.signal]));
  } catch (error) {
    // One run's failure (a store error) is that run's: the worker goes on. The job is done with; if the run is
    // still active, the reconciler queues it again later.
    ctx.log(`run ${job.runId}: ${(error as Error).message}`);
    outcome = 'finished';
  } finally {
    clearInterval(touch);
  }
  try {
    if (outcome === 'handed_over') await queue.continueAs(job);
    // Interrupted here (shutdown, database lost, taken over): give the job back so that it is retried elsewhere.
    else if (outcome === 'interrupted') await queue.fail(job, `run ${job.runId} interrupted on ${ctx.owner.host} (pid ${ctx.owner.pid})`);
    else await queue.complete(job);
  } catch (error) {
    ctx.log(`run ${job.runId}: settling its job: ${(error as Error).message}`);
  }
}

/**
 * Queues again every run for the workers that is active, driven by nobody and has no job waiting: its creator died
 * between recording it and queueing it, or a worker died between handing it over and queueing the continuation.
 * Sending is idempotent (one job per run), so a run whose job is running already is left alone.
 */
export async function reconcileQueue(store: Store, queue: RunQueue): Promise<string[]> {
  const orphans = (await store.listRuns({ status: ACTIVE_STATUSES })).filter((r) => r.origin === 'queue' && r.owner_pid === null);
  if (orphans.length === 0) return [];
  const queued = await queue.queuedRunIds();
  const requeued: string[] = [];
  for (const run of orphans) {
    if (queued.has(run.id)) continue;
    if ((await queue.enqueue(run.id)) !== null) requeued.push(run.id);
  }
  return requeued;
}
