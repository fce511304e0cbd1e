// The run queue of workers on many machines: pg-boss 12 in the team's PostgreSQL database (schema pgboss). One
// job per run (exclusive policy, singleton key = run id) with a heartbeat, so a dead worker's run is retried on
// another worker within seconds (see docs/deployment.md for the measured figures). Ringmaster fetches, renews and
// settles its jobs itself (not pg-boss's work loop) to add what the loop lacks: a global concurrency limit that
// holds exactly (fetches are serialized under an advisory lock, the limit read from the database in the same
// transaction), and a continuation job sent in the same transaction that completes the current one.
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import type { Job } from 'pg-boss';
import { IDLE_IN_TRANSACTION_MS } from '../store/postgres/pool.js';
import { CHANNELS } from '../store/watchable.js';

/** The queue of runs to drive. */
export const RUN_QUEUE = 'ringmaster-runs';

/** Every run job belongs to this group: pg-boss counts its active jobs for the global limit. */
const RUN_GROUP = { id: 'runs' };

/** The channel a new job is announced on (workers wake and fetch at once). */
export const QUEUE_CHANNEL = CHANNELS.queue;

/** The settings key of the global limit (rows of the store's `settings` table). */
export const MAX_CONCURRENT_KEY = 'queue.max_concurrent';

/** Advisory lock ('RING', 3) that serializes fetches, so the global limit is never overshot by a race. */
const FETCH_LOCK: readonly [number, number] = [0x52494e47, 3];

/** Sessions of the queue end an open transaction left idle (e.g. a fetch holding the fetch lock, cut off). */
const POOL_SESSION: pg.PoolConfig = { idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS };

/** The data of a run job. */
export interface RunJobData {
  run_id: string;
}

/** A job as fetched: the attempt it is (settling or renewing a lapsed attempt affects nothing). */
export interface RunJob {
  id: string;
  retryCount: number;
  runId: string;
}

/** Job heartbeat (pg-boss minimum 10 s): a worker silent this long loses its job, which is retried elsewhere. */
export const JOB_HEARTBEAT_SECONDS = 10;

/** A job lives at most 23 h (pg-boss caps 24 h); a longer run continues as a new job before that. */
export const JOB_EXPIRE_SECONDS = 23 * 3600;

/** A pg client inside a transaction, as pg-boss's `db` option takes it. */
interface TxDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** The run queue on one database. */
export class RunQueue {
  private constructor(
    private readonly boss: PgBoss,
    private readonly pool: pg.Pool,
  ) {}

  /** Opens pg-boss on `url` (installing or migrating its schema) and makes sure the run queue exists. */
  static async open(url: string, options: { max?: number; onError?: (error: Error) => void } = {}): Promise<RunQueue> {
    const boss = new PgBoss({
      connectionString: url,
      max: options.max ?? 4,
      application_name: 'ringmaster-queue',
      // Passed on to node-postgres' pool (pg-boss hands it its whole configuration).
      ...POOL_SESSION,
      // Every instance supervises: a worker killed with its job is noticed within a second of its heartbeat expiring.
      superviseIntervalSeconds: 1,
      monitorIntervalSeconds: 1,
      schedule: false,
      registerInstance: false,
    });
    boss.on('error', (error: Error) => options.onError?.(error));
    await boss.start();
    if (!(await boss.getQueue(RUN_QUEUE))) {
      await boss
        .createQueue(RUN_QUEUE, {
          policy: 'exclusive',
          heartbeatSeconds: JOB_HEARTBEAT_SECONDS,
          expireInSeconds: JOB_EXPIRE_SECONDS,
          retryLimit: 100_000,
          retryDelay: 0,
        })
        .catch(async (error: unknown) => {
          // Another process created it at the same moment.
          if (!(await boss.getQueue(RUN_QUEUE))) throw error;
        });
    }
    const pool = new pg.Pool({ connectionString: url, max: 2, application_name: 'ringmaster-queue', ...POOL_SESSION });
    pool.on('error', () => undefined);
    return new RunQueue(boss, pool);
  }

  /** Queues a run for the workers and wakes them; a run already queued or running is not queued twice (null). */
  async enqueue(runId: string): Promise<string | null> {
    const id = await this.boss.send(RUN_QUEUE, { run_id: runId } satisfies RunJobData, { singletonKey: runId, group: RUN_GROUP });
    await this.pool.query('SELECT pg_notify($1, $2)', [QUEUE_CHANNEL, runId]);
    return id;
  }

  /** The run ids that have a job waiting to be fetched. */
  async queuedRunIds(): Promise<Set<string>> {
    const jobs = await this.boss.findJobs<RunJobData>(RUN_QUEUE, { queued: true, limit: 100_000 });
    return new Set(jobs.map((job) => job.data.run_id));
  }

  /**
   * Takes the next job, if the global limit (queue.max_concurrent, unset: none) leaves room. Fetches of every
   * worker queue on one advisory lock and count the active jobs inside it, so the limit holds exactly.
   */
  async fetch(): Promise<RunJob | null> {
    return this.transaction(async (db) => {
      await db.executeSql('SELECT pg_advisory_xact_lock($1, $2)', [...FETCH_LOCK]);
      const limit = await readLimit(db);
      const jobs: Array<Job<RunJobData>> = await this.boss.fetch<RunJobData>(RUN_QUEUE, { batchSize: 1, db, ...(limit !== null ? { groupConcurrency: limit } : {}) });
      const job = jobs[0];
      return job ? { id: job.id, retryCount: job.retryCount, runId: job.data.run_id } : null;
    });
  }

  /** Renews the job's heartbeat; false when this attempt has lapsed (the job was failed and retried elsewhere). */
  async touch(job: RunJob): Promise<boolean> {
    return affected(await this.boss.touch(RUN_QUEUE, attempt(job))) > 0;
  }

  /** The run is done with (finished, or never ours to run). */
  async complete(job: RunJob): Promise<void> {
    await this.boss.complete(RUN_QUEUE, attempt(job));
  }

  /** Gives the job back (the run was interrupted here): it is retried at once, here or on another worker. */
  async fail(job: RunJob, message: string): Promise<void> {
    await this.boss.fail(RUN_QUEUE, attempt(job), { message });
  }

  /** Completes the job and queues the run's next one in one transaction (a run longer than a job may live). */
  async continueAs(job: RunJob): Promise<void> {
    await this.transaction(async (db) => {
      await this.boss.complete(RUN_QUEUE, attempt(job), { continued: true }, { db });
      await this.boss.send(RUN_QUEUE, { run_id: job.runId } satisfies RunJobData, { singletonKey: job.runId, group: RUN_GROUP, db });
      await db.executeSql('SELECT pg_notify($1, $2)', [QUEUE_CHANNEL, job.runId]);
    });
  }

  /** Sets the global limit every worker applies (null: none). */
  async setMaxConcurrent(limit: number | null): Promise<void> {
    if (limit === null) await this.pool.query('DELETE FROM settings WHERE key = $1', [MAX_CONCURRENT_KEY]);
    else {
      await this.pool.query(
        `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, ringmaster_now_ms())
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
        [MAX_CONCURRENT_KEY, String(limit)],
      );
    }
  }

  /** The global limit (null: none). */
  async maxConcurrent(): Promise<number | null> {
    return readLimit({ executeSql: (text, values) => this.pool.query(text, values) });
  }

  /** Disconnects. */
  async close(): Promise<void> {
    await this.boss.stop({ graceful: false, timeout: 5000 });
    await this.pool.end();
  }

  private async transaction<T>(fn: (db: TxDb) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    // The server ending the session mid-transaction is an 'error' event of the client (fatal unheard).
    const onError = (error: Error): void => void (broken ??= error);
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await fn({ executeSql: (text, values) => client.query(text, values) });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }
}

function attempt(job: RunJob): { id: string; retryCount: number } {
  return { id: job.id, retryCount: job.retryCount };
}

function affected(response: unknown): number {
  return (response as { affected?: number }).affected ?? 0;
}

async function readLimit(db: TxDb): Promise<number | null> {
  const { rows } = await db.executeSql('SELECT value FROM settings WHERE key = $1', [MAX_CONCURRENT_KEY]);
  const value = Number((rows[0] as { value?: string } | undefined)?.value);
  return Number.isInteger(value) && value > 0 ? value : null;
}
