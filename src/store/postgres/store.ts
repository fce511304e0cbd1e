// The PostgreSQL Store: one database shared by a team's servers and workers, through a node-postgres pool.
// Same contract and semantics as the SQLite store (sqlite/store.ts): multi-row writes in one transaction,
// one open owner per run (unique index), gap-free per-run event seq, totals computed from rows, driver
// errors raised as StoreError (StoreUnavailableError when the database cannot be reached).
import type pg from 'pg';
import type { RunStatus, StopReason } from '../../core/types.js';
import { AmbiguousRunIdError, RunBusyError, RunEndedError, StoreError } from '../errors.js';
import { resumable } from '../liveness.js';
import { readDefinition, writeDefinition } from './definitions.js';
import { checkFence, DB_NOW, lockRunRow } from './fence.js';
import { migratePostgres } from './migrate.js';
import { createPool, inTransaction, isUnavailable, query as q, redactUrl, toStoreError } from './pool.js';
import type { PoolOptions, Queryable } from './pool.js';
import { queryMetrics, queryStats, queryTotals, queryTotalsMany } from './queries.js';
import type { StoreMetrics } from '../metrics-sql.js';
import * as events from './events.js';
import * as iterations from './iterations.js';
import * as notes from './notes.js';
import { ITERATION_COLUMNS, interruptRunning, readIteration } from './iterations.js';
import { importLegacyIntoPostgres } from './import.js';
import { listen } from './listen.js';
import * as budget from './budget.js';
import type { BudgetChange, BudgetRow, BudgetWindowKey, SpendRow } from '../budget-rows.js';
import type { Channel, Subscription, WatchableStore } from '../watchable.js';
import { runWhere } from './run-filter.js';
import { checkpointRowSchema, errorRowSchema, iterationRowSchema, runRowSchema } from '../rows.js';
import type { CheckpointRow, ControlRow, ErrorRow, EventRow, EventRowWithId, IterationRow, NoteRow, RunRow, RunTotals, RunWithTotals, StoreStats } from '../rows.js';
import { CHECKPOINT_COLUMNS, ERROR_COLUMNS, RUN_SELECT } from '../sql-columns.js';
import type {
  ClaimOptions,
  ClaimResult,
  Fence,
  IterationEnd,
  IterationProgress,
  IterationStart,
  NewCheckpoint,
  NewControl,
  NewNote,
  NewError,
  NewEvent,
  NewRun,
  Owner,
  RunFilter,
  Store,
} from '../store.js';

/** How to open a PostgreSQL store. */
export interface PostgresStoreOptions extends PoolOptions {
  now?: () => number;
  /**
   * How long an operation keeps retrying while the database is unreachable (a restart, a failover) before it
   * fails with StoreUnavailableError; default 15 s, 0 = fail at once. Writes are retried in order, so a run's
   * rows and events survive a short outage without a gap.
   */
  retryUnavailableMs?: number;
}

/** Default of PostgresStoreOptions.retryUnavailableMs. */
export const DEFAULT_RETRY_UNAVAILABLE_MS = 15_000;

/** PostgreSQL implementation of Store on one database (`postgres://user:pass@host:port/db`). */
export class PostgresStore implements Store, WatchableStore {
  private readonly subscriptions = new Set<Subscription>();

  private closed = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly retryUnavailableMs: number,
  ) {}

  /** Connects to `url` and applies pending migrations (safe when several processes open it at once). */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const pool = createPool(url, options);
    try {
      await migratePostgres(pool, url, (options.now ?? Date.now)());
    } catch (error) {
      await pool.end();
      throw toStoreError(error, `opening the PostgreSQL store ${redactUrl(url)}`);
    }
    return new PostgresStore(pool, url, options.retryUnavailableMs ?? DEFAULT_RETRY_UNAVAILABLE_MS);
  }

  async createRun(run: NewRun): Promise<RunRow> {
    return this.tx('createRun', async (db) => {
      await q(
        db,
        `INSERT INTO runs (id, status, stop_reason, agent, kind, spec_json, meta_json, workspace, worktree, branch, created_at, updated_at, ended_at, origin)
         VALUES ($1, $2, NULL, $3, $4, $5, $6, $7, $8, $9, $10, $10, NULL, $11)`,
        [
          run.id,
          run.status ?? 'running',
          run.agent,
          run.kind ?? 'prompt',
          JSON.stringify(run.spec ?? null),
          JSON.stringify(run.meta ?? {}),
          run.workspace,
          run.worktree ?? null,
          run.branch ?? null,
          run.now,
          run.origin ?? 'cli',
        ],
      );
      if (run.definition) await writeDefinition(db, run.id, run.definition, run.now);
      if (run.owner !== null) await openOwner(db, run.id, run.owner, run.now);
      return mustGetRun(db, run.id);
    });
  }

  async getRun(id: string): Promise<RunRow | null> {
    return this.read('getRun', (db) => readRun(db, id));
  }

  async findRun(idOrPrefix: string): Promise<RunRow | null> {
    return this.read('findRun', async (db) => {
      const exact = await readRun(db, idOrPrefix);
      if (exact || idOrPrefix === '') return exact;
      const rows = (await q<{ id: string }>(db, 'SELECT id FROM runs WHERE starts_with(id, $1) ORDER BY id LIMIT 6', [idOrPrefix])).rows;
      if (rows.length > 1) throw new AmbiguousRunIdError(idOrPrefix, rows.map((r) => r.id));
      return rows[0] ? readRun(db, rows[0].id) : null;
    });
  }

  async listRuns(filter: RunFilter = {}): Promise<RunWithTotals[]> {
    return this.read('listRuns', async (db) => {
      const { where, values } = runWhere(filter);
      const page = `LIMIT $${values.length + 1} OFFSET $${values.length + 2}`;
      const runs = (
        await q(db, `${RUN_SELECT} ${where} ORDER BY r.created_at DESC, r.id DESC ${page}`, [...values, filter.limit ?? null, filter.offset ?? 0])
      ).rows.map((row) => runRowSchema.parse(row));
      const totals = await queryTotalsMany(db, runs.map((r) => r.id));
      return runs.map((run) => ({ ...run, totals: totals.get(run.id) as RunTotals }));
    });
  }

  async countRuns(filter: RunFilter = {}): Promise<number> {
    const { where, values } = runWhere(filter);
    const { rows } = await this.read('countRuns', (db) => q<{ n: number }>(db, `SELECT COUNT(*) AS n FROM runs r ${where}`, values));
    return rows[0]?.n ?? 0;
  }

  async updateRunSpec(id: string, spec: unknown, now: number, fence?: Fence): Promise<void> {
    await this.updateRun('updateRunSpec', id, fence, 'spec_json', JSON.stringify(spec ?? null), now);
  }

  async updateRunMeta(id: string, meta: Record<string, unknown>, now: number, fence?: Fence): Promise<void> {
    await this.updateRun('updateRunMeta', id, fence, 'meta_json', JSON.stringify(meta), now);
  }

  async updateRunDefinition(id: string, definition: Record<string, unknown>, now: number, fence?: Fence): Promise<void> {
    await this.tx('updateRunDefinition', async (db) => {
      if (!(await lockRunRow(db, id))) throw new StoreError(`updateRunDefinition: no run ${id}`);
      await checkFence(db, id, fence, 'updateRunDefinition');
      await writeDefinition(db, id, definition, now);
    });
  }

  async getRunDefinition(id: string): Promise<Record<string, unknown> | null> {
    return this.read('getRunDefinition', (db) => readDefinition(db, id));
  }

  async updateRunStatus(id: string, status: RunStatus, now: number, fence?: Fence): Promise<void> {
    await this.updateRun('updateRunStatus', id, fence, 'status', status, now);
  }

  async finishRun(id: string, end: { status: RunStatus; stop_reason: StopReason | null; now: number }, fence?: Fence): Promise<RunRow> {
    return this.tx('finishRun', async (db) => {
      if (!(await lockRunRow(db, id))) throw new StoreError(`finishRun: no run ${id}`);
      await checkFence(db, id, fence, 'finishRun');
      await q(db, 'UPDATE runs SET status = $2, stop_reason = $3, ended_at = $4, updated_at = $4 WHERE id = $1', [id, end.status, end.stop_reason, end.now]);
      await interruptRunning(db, id, end.now);
      await q(db, 'UPDATE run_owners SET ended_at = $2, heartbeat_at = GREATEST(heartbeat_at, $2) WHERE run_id = $1 AND ended_at IS NULL', [
        id,
        end.now,
      ]);
      return mustGetRun(db, id);
    });
  }

  async claimRun(id: string, owner: Owner, now: number, options: ClaimOptions = {}): Promise<ClaimResult> {
    return this.tx('claimRun', async (db) => {
      // The run row lock serializes claims of one run (two takeovers at once: the second sees the first's owner).
      if (!(await lockRunRow(db, id))) throw new StoreError(`claimRun: no run ${id}`);
      if (options.onlyIfResumable) {
        const run = await mustGetRun(db, id);
        if (!resumable(run)) throw new RunEndedError(id, run.status, run.stop_reason);
      }
      // The owner row is locked too before its lease is judged: a renewal in flight commits first and counts.
      const prev = (
        await q<{ pid: number; host: string; heartbeat_at: number; idle: number }>(
          db,
          `SELECT pid, host, heartbeat_at, ${DB_NOW} - COALESCE(renewed_at, heartbeat_at) AS idle
           FROM run_owners WHERE run_id = $1 AND ended_at IS NULL FOR UPDATE`,
          [id],
        )
      ).rows[0];
      if (prev && options.ifIdleMs !== undefined && prev.idle < options.ifIdleMs) throw new RunBusyError(id, prev, Math.max(0, prev.idle));
      // A dead owner's runtime ends at its last heartbeat: that is the last moment it was known alive.
      const lastAlive = prev ? Math.min(prev.heartbeat_at, now) : now;
      if (prev) await q(db, 'UPDATE run_owners SET ended_at = heartbeat_at WHERE run_id = $1 AND ended_at IS NULL', [id]);
      const interrupted = await interruptRunning(db, id, lastAlive);
      await openOwner(db, id, owner, now);
      await q(db, 'UPDATE runs SET status = $2, stop_reason = NULL, ended_at = NULL, updated_at = $3 WHERE id = $1', [id, options.status ?? 'running', now]);
      return {
        run: await mustGetRun(db, id),
        interrupted,
        previous: prev ? { pid: prev.pid, host: prev.host, heartbeat_at: prev.heartbeat_at } : null,
      };
    });
  }

  async releaseRun(id: string, owner: Owner, now: number): Promise<boolean> {
    const { rowCount } = await this.read('releaseRun', (db) =>
      q(
        db,
        `UPDATE run_owners SET ended_at = GREATEST(heartbeat_at, $4), heartbeat_at = GREATEST(heartbeat_at, $4)
         WHERE run_id = $1 AND pid = $2 AND host = $3 AND ended_at IS NULL`,
        [id, owner.pid, owner.host, now],
      ),
    );
    return (rowCount ?? 0) > 0;
  }

  async heartbeat(id: string, owner: Owner, now: number): Promise<boolean> {
    const { rowCount } = await this.read('heartbeat', (db) =>
      q(
        db,
        `UPDATE run_owners SET heartbeat_at = GREATEST(heartbeat_at, $4), renewed_at = ${DB_NOW}
         WHERE run_id = $1 AND pid = $2 AND host = $3 AND ended_at IS NULL`,
        [id, owner.pid, owner.host, now],
      ),
    );
    return (rowCount ?? 0) > 0;
  }

  async startIteration(start: IterationStart, fence?: Fence): Promise<IterationRow> {
    return this.read('startIteration', (db) => iterations.startIteration(db, start, fence));
  }

  async updateIteration(runId: string, number: number, progress: IterationProgress, fence?: Fence): Promise<void> {
    await this.read('updateIteration', (db) => iterations.updateIteration(db, runId, number, progress, fence));
  }

  async completeIteration(runId: string, number: number, end: IterationEnd, fence?: Fence): Promise<IterationRow> {
    return this.read('completeIteration', (db) => iterations.completeIteration(db, runId, number, end, fence));
  }

  async getIteration(runId: string, number: number): Promise<IterationRow | null> {
    return this.read('getIteration', (db) => readIteration(db, runId, number));
  }

  async listIterations(runId: string): Promise<IterationRow[]> {
    const { rows } = await this.read('listIterations', (db) =>
      q(db, `SELECT ${ITERATION_COLUMNS} FROM iterations WHERE run_id = $1 ORDER BY number`, [runId]),
    );
    return rows.map((row) => iterationRowSchema.parse(row));
  }

  async runTotals(runId: string): Promise<RunTotals> {
    return this.read('runTotals', (db) => queryTotals(db, runId));
  }

  async appendEvent(event: NewEvent, fence?: Fence): Promise<EventRow> {
    return (await this.appendEvents([event], fence))[0] as EventRow;
  }

  async appendEvents(list: readonly NewEvent[], fence?: Fence): Promise<EventRow[]> {
    return this.read('appendEvent', () => events.appendEvents(this.pool, list, fence));
  }

  async listEvents(runId: string, options: { afterSeq?: number; limit?: number } = {}): Promise<EventRow[]> {
    return this.read('listEvents', (db) => events.listEvents(db, runId, options.afterSeq ?? 0, options.limit ?? null));
  }

  async lastEventSeq(runId: string): Promise<number> {
    return this.read('lastEventSeq', (db) => events.lastEventSeq(db, runId));
  }

  async listEventsAfterId(afterId: number, limit: number): Promise<EventRowWithId[]> {
    return this.read('listEventsAfterId', (db) => events.listEventsAfterId(db, afterId, limit));
  }

  async lastEventId(): Promise<number> {
    return this.read('lastEventId', (db) => events.lastEventId(db));
  }

  async requestControl(request: NewControl): Promise<ControlRow> {
    return this.read('requestControl', (db) => events.requestControl(db, request));
  }

  async pendingControls(runId?: string): Promise<ControlRow[]> {
    return this.read('pendingControls', (db) => events.pendingControls(db, runId ?? null));
  }

  async getControl(id: number): Promise<ControlRow | null> {
    return this.read('getControl', (db) => events.getControl(db, id));
  }

  async markControlHandled(id: number, now: number, result: string): Promise<void> {
    await this.read('markControlHandled', (db) => events.markControlHandled(db, id, now, result));
  }

  async addNote(note: NewNote): Promise<NoteRow> {
    return this.read('addNote', (db) => notes.addNote(db, note));
  }

  async listNotes(runId: string): Promise<NoteRow[]> {
    return this.read('listNotes', (db) => notes.listNotes(db, runId));
  }

  async cancelNote(runId: string, id: number, now: number): Promise<NoteRow | null> {
    return this.read('cancelNote', (db) => notes.cancelNote(db, runId, id, now));
  }

  async claimNotes(runId: string, iteration: number, now: number): Promise<NoteRow[]> {
    return this.read('claimNotes', (db) => notes.claimNotes(db, runId, iteration, now));
  }

  async importDatabase(path: string, now: number, workspace: string | null = null): Promise<number> {
    return this.read('importDatabase', () => importLegacyIntoPostgres(this.pool, path, now, workspace));
  }

  async recordCheckpoint(c: NewCheckpoint, fence?: Fence): Promise<CheckpointRow> {
    const { rows } = await this.fenced('recordCheckpoint', c.run_id, fence, (db) =>
      q(
        db,
        `INSERT INTO checkpoints (run_id, iteration, commit_sha, state, message, snapshot_json, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${CHECKPOINT_COLUMNS}`,
        [c.run_id, c.iteration, c.commit_sha, c.state, c.message ?? null, c.snapshot === undefined ? null : JSON.stringify(c.snapshot), c.created_at],
      ),
    );
    return checkpointRowSchema.parse(rows[0]);
  }

  async listCheckpoints(runId: string): Promise<CheckpointRow[]> {
    const { rows } = await this.read('listCheckpoints', (db) => q(db, `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE run_id = $1 ORDER BY id`, [runId]));
    return rows.map((row) => checkpointRowSchema.parse(row));
  }

  async recordError(e: NewError, fence?: Fence): Promise<ErrorRow> {
    const { rows } = await this.fenced('recordError', e.run_id, fence, (db) =>
      q(
        db,
        `INSERT INTO errors (run_id, iteration, kind, message, context_json, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${ERROR_COLUMNS}`,
        [e.run_id, e.iteration ?? null, e.kind, e.message, e.context === undefined ? null : JSON.stringify(e.context), e.created_at],
      ),
    );
    return errorRowSchema.parse(rows[0]);
  }

  async listErrors(runId: string): Promise<ErrorRow[]> {
    const { rows } = await this.read('listErrors', (db) => q(db, `SELECT ${ERROR_COLUMNS} FROM errors WHERE run_id = $1 ORDER BY id`, [runId]));
    return rows.map((row) => errorRowSchema.parse(row));
  }

  async stats(options: { runId?: string; workspace?: string } = {}): Promise<StoreStats> {
    return this.read('stats', (db) => queryStats(db, options.runId ?? null, options.workspace ?? null));
  }

  async metrics(): Promise<StoreMetrics> {
    return this.read('metrics', (db) => queryMetrics(db));
  }

  async getBudget(): Promise<BudgetRow> {
    return this.read('getBudget', (db) => budget.readBudget(db));
  }

  async setBudget(change: BudgetChange, now: number): Promise<BudgetRow> {
    return this.read('setBudget', (db) => budget.writeBudget(db, change, now));
  }

  async spendSince(sinceMs: number): Promise<SpendRow[]> {
    return this.read('spendSince', (db) => budget.readSpend(db, sinceMs));
  }

  async claimBudgetNotice(window: BudgetWindowKey, windowStart: number, level: number): Promise<boolean> {
    return this.read('claimBudgetNotice', (db) => budget.claimNotice(db, window, windowStart, level));
  }

  async watch(channel: Channel, onNotice: (payload: unknown) => void, onReady?: () => void): Promise<Subscription> {
    const subscription = await listen(this.url, channel, onNotice, onReady);
    this.subscriptions.add(subscription);
    return {
      close: async () => {
        this.subscriptions.delete(subscription);
        await subscription.close();
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    this.subscriptions.clear();
    if (!this.pool.ended) await this.pool.end();
  }

  /** Sets one column of the run row (and updated_at), behind the fence when given. */
  private async updateRun(what: string, id: string, fence: Fence | undefined, column: string, value: string, now: number): Promise<void> {
    const write = async (db: Queryable): Promise<void> => {
      const { rowCount } = await q(db, `UPDATE runs SET ${column} = $2, updated_at = $3 WHERE id = $1`, [id, value, now]);
      if (rowCount === 0) throw new StoreError(`${what}: no run ${id}`);
    };
    if (fence === undefined) return this.read(what, write);
    return this.tx(what, async (db) => {
      if (!(await lockRunRow(db, id))) throw new StoreError(`${what}: no run ${id}`);
      await checkFence(db, id, fence, what);
      await write(db);
    });
  }

  /** `fn` behind the fence (in a transaction), or on the pool without one. */
  private async fenced<T>(what: string, runId: string, fence: Fence | undefined, fn: (db: Queryable) => Promise<T>): Promise<T> {
    if (fence === undefined) return this.read(what, fn);
    return this.tx(what, async (db) => {
      await checkFence(db, runId, fence, what);
      return fn(db);
    });
  }

  /** One statement (or a few reads) on the pool; driver errors become StoreErrors. */
  private async read<T>(what: string, fn: (db: Queryable) => Promise<T>): Promise<T> {
    return this.retrying(what, () => fn(this.pool));
  }

  /** `fn` in one transaction; driver errors become StoreErrors. */
  private async tx<T>(what: string, fn: (db: Queryable) => Promise<T>): Promise<T> {
    return this.retrying(what, () => inTransaction(this.pool, fn));
  }

  /** Runs `attempt`, again (0.1 s doubling to 1 s apart) while the database is unreachable, up to the retry budget. */
  private async retrying<T>(what: string, attempt: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.retryUnavailableMs;
    for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
      try {
        return await attempt();
      } catch (error) {
        if (!isUnavailable(error) || this.closed || Date.now() + delay > deadline) throw toStoreError(error, what);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}

async function readRun(db: Queryable, id: string): Promise<RunRow | null> {
  const row = (await q(db, `${RUN_SELECT} WHERE r.id = $1`, [id])).rows[0];
  return row === undefined ? null : runRowSchema.parse(row);
}

async function mustGetRun(db: Queryable, id: string): Promise<RunRow> {
  const run = await readRun(db, id);
  if (!run) throw new StoreError(`no run ${id}`);
  return run;
}


async function openOwner(db: Queryable, runId: string, owner: Owner, now: number): Promise<void> {
  await q(
    db,
    `INSERT INTO run_owners (run_id, seq, pid, host, started_at, heartbeat_at, renewed_at, ended_at)
     SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4, $4, ${DB_NOW}, NULL FROM run_owners WHERE run_id = $1`,
    [runId, owner.pid, owner.host, now],
  );
}

