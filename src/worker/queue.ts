// The run queue of workers on many machines: pg-boss 12 in the team's PostgreSQL database (schema pgboss).
// One job per run (exclusive policy, singleton key = run id), heartbeats so that a dead worker's run is
// retried on another worker within seconds (see docs/deployment.md for the measured figures).
import { PgBoss } from 'pg-boss';

/** The queue of runs to drive. */
export const RUN_QUEUE = 'ringmaster-runs';

/** The data of a run job. */
export interface RunJobData {
  run_id: string;
}

/** How the queue reacts; the defaults are the design's, tests shorten nothing but what they must. */
export interface QueueTiming {
  /** Job heartbeat (pg-boss minimum 10 s): a worker silent this long loses its job to another worker. */
  heartbeatSeconds: number;
  /** How often a worker looks for jobs (new jobs also wake it through LISTEN/NOTIFY). */
  pollingSeconds: number;
}

/** The design's timing: takeover ~10-11 s after a worker dies. */
export const DEFAULT_TIMING: QueueTiming = { heartbeatSeconds: 10, pollingSeconds: 1 };

/** A job lives at most 23 h (pg-boss caps 24 h); a longer run continues as a new job. */
export const JOB_EXPIRE_SECONDS = 23 * 3600;

/** Opens pg-boss on `url` (installing or migrating its schema) and makes sure the run queue exists. */
export async function openQueue(url: string, options: { max?: number; onError?: (error: Error) => void } = {}): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: url,
    max: options.max ?? 4,
    application_name: 'ringmaster-queue',
    // Every instance supervises: a worker killed with its job is noticed within a second of its heartbeat expiring.
    superviseIntervalSeconds: 1,
    monitorIntervalSeconds: 1,
    useListenNotify: true,
    schedule: false,
    registerInstance: false,
  });
  boss.on('error', (error: Error) => options.onError?.(error));
  await boss.start();
  if (!(await boss.getQueue(RUN_QUEUE))) {
    await boss
      .createQueue(RUN_QUEUE, {
        policy: 'exclusive',
        heartbeatSeconds: DEFAULT_TIMING.heartbeatSeconds,
        expireInSeconds: JOB_EXPIRE_SECONDS,
        retryLimit: 100_000,
        retryDelay: 0,
        notify: true,
      })
      .catch(async (error: unknown) => {
        // Another process created it at the same moment.
        if (!(await boss.getQueue(RUN_QUEUE))) throw error;
      });
  }
  return boss;
}

/** Queues a run for the workers; a run already queued or running is not queued twice. */
export async function enqueueRun(boss: PgBoss, runId: string): Promise<string | null> {
  return boss.send(RUN_QUEUE, { run_id: runId } satisfies RunJobData, { singletonKey: runId });
}
