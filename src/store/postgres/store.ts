// The PostgreSQL Store: one database shared by a team's servers and workers, through a node-postgres pool.
// Same contract and semantics as the SQLite store (sqlite/store.ts): multi-row writes in one transaction,
// one open owner per run (unique index), gap-free per-run event seq, totals computed from rows, driver
// errors raised as StoreError (StoreUnavailableError when the database cannot be reached).
// A thin class: the SQL lives in a module per concern (runs, owners, iterations, events and control requests,
// notes, records, budget, queries), run through db.ts (statements, transactions, fence, retries).
import type pg from 'pg';
import type { RunStatus, StopReason } from '../../core/types.js';
import { readDefinition } from './definitions.js';
import { PgDb } from './db.js';
import { migratePostgres } from './migrate.js';
import { createPool, redactUrl, toStoreError } from './pool.js';
import type { PoolOptions, Queryable } from './pool.js';
import { queryMetrics, queryStats, queryTotals } from './queries.js';
import type { StoreMetrics } from '../metrics-sql.js';
import * as budget from './budget.js';
import * as events from './events.js';
import * as iterations from './iterations.js';
import * as notes from './notes.js';
import * as owners from './owners.js';
import * as records from './records.js';
import * as runs from './runs.js';
import { importLegacyIntoPostgres } from './import.js';
import { listen } from './listen.js';
import type { BudgetChange, BudgetRow, BudgetWindowKey, SpendRow } from '../budget-rows.js';
import type { Channel, Subscription, WatchableStore } from '../watchable.js';
import type { CheckpointRow, ControlRow, ErrorRow, EventRow, EventRowWithId, IterationRow, NoteRow, RunRow, RunTotals, RunWithTotals, StoreStats } from '../rows.js';
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
  private readonly db: PgDb;

  private constructor(
    pool: pg.Pool,
    private readonly url: string,
    retryUnavailableMs: number,
  ) {
    this.db = new PgDb(pool, retryUnavailableMs);
  }

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
    return this.db.tx('createRun', async (db) => {
      await runs.insertRun(db, run);
      if (run.owner !== null) await owners.openOwner(db, run.id, run.owner, run.now);
      return runs.mustGetRun(db, run.id);
    });
  }

  async getRun(id: string): Promise<RunRow | null> {
    return this.db.read('getRun', (db) => runs.readRun(db, id));
  }

  async findRun(idOrPrefix: string): Promise<RunRow | null> {
    return this.db.read('findRun', (db) => runs.findRun(db, idOrPrefix));
  }

  async listRuns(filter: RunFilter = {}): Promise<RunWithTotals[]> {
    return this.db.read('listRuns', (db) => runs.listRuns(db, filter));
  }

  async countRuns(filter: RunFilter = {}): Promise<number> {
    return this.db.read('countRuns', (db) => runs.countRuns(db, filter));
  }

  async updateRunSpec(id: string, spec: unknown, now: number, fence?: Fence): Promise<void> {
    await this.updateRun('updateRunSpec', id, fence, 'spec_json', JSON.stringify(spec ?? null), now);
  }

  async updateRunMeta(id: string, meta: Record<string, unknown>, now: number, fence?: Fence): Promise<void> {
    await this.updateRun('updateRunMeta', id, fence, 'meta_json', JSON.stringify(meta), now);
  }

  async updateRunDefinition(id: string, definition: Record<string, unknown>, now: number, fence?: Fence): Promise<void> {
    await this.db.tx('updateRunDefinition', (db) => runs.updateRunDefinition(db, id, definition, now, fence));
  }

  async getRunDefinition(id: string): Promise<Record<string, unknown> | null> {
    return this.db.read('getRunDefinition', (db) => readDefinition(db, id));
  }

  async updateRunStatus(id: string, status: RunStatus, now: number, fence?: Fence): Promise<void> {
    await this.updateRun('updateRunStatus', id, fence, 'status', status, now);
  }

  async finishRun(id: string, end: { status: RunStatus; stop_reason: StopReason | null; now: number }, fence?: Fence): Promise<RunRow> {
    return this.db.tx('finishRun', (db) => runs.finishRun(db, id, end, fence));
  }

  async claimRun(id: string, owner: Owner, now: number, options: ClaimOptions = {}): Promise<ClaimResult> {
    return this.db.tx('claimRun', (db) => owners.claimRun(db, id, owner, now, options));
  }

  async releaseRun(id: string, owner: Owner, now: number): Promise<boolean> {
    return this.db.read('releaseRun', (db) => owners.releaseRun(db, id, owner, now));
  }

  async heartbeat(id: string, owner: Owner, now: number): Promise<boolean> {
    return this.db.read('heartbeat', (db) => owners.heartbeat(db, id, owner, now));
  }

  // With events: the row's statement, then the events' (each one round trip, as apart; a transaction around both would
  // double the round trips of the run's hot path). The events are written only when the row was.
  async startIteration(start: IterationStart, fence?: Fence, events?: readonly NewEvent[]): Promise<IterationRow> {
    const row = await this.db.read('startIteration', (db) => iterations.startIteration(db, start, fence));
    if (events?.length) await this.appendEvents(events, fence);
    return row;
  }

  async updateIteration(runId: string, number: number, progress: IterationProgress, fence?: Fence, events?: readonly NewEvent[]): Promise<void> {
    await this.db.read('updateIteration', (db) => iterations.updateIteration(db, runId, number, progress, fence));
    if (events?.length) await this.appendEvents(events, fence);
  }

  async completeIteration(runId: string, number: number, end: IterationEnd, fence?: Fence, events?: readonly NewEvent[]): Promise<IterationRow> {
    const row = await this.db.read('completeIteration', (db) => iterations.completeIteration(db, runId, number, end, fence));
    if (events?.length) await this.appendEvents(events, fence);
    return row;
  }

  async getIteration(runId: string, number: number): Promise<IterationRow | null> {
    return this.db.read('getIteration', (db) => iterations.readIteration(db, runId, number));
  }

  async listIterations(runId: string): Promise<IterationRow[]> {
    return this.db.read('listIterations', (db) => iterations.listIterations(db, runId));
  }

  async runTotals(runId: string): Promise<RunTotals> {
    return this.db.read('runTotals', (db) => queryTotals(db, runId));
  }

  async appendEvent(event: NewEvent, fence?: Fence): Promise<EventRow> {
    return (await this.appendEvents([event], fence))[0] as EventRow;
  }

  async appendEvents(list: readonly NewEvent[], fence?: Fence): Promise<EventRow[]> {
    return this.db.read('appendEvent', () => events.appendEvents(this.db.pool, list, fence));
  }

  async listEvents(runId: string, options: { afterSeq?: number; limit?: number } = {}): Promise<EventRow[]> {
    return this.db.read('listEvents', (db) => events.listEvents(db, runId, options.afterSeq ?? 0, options.limit ?? null));
  }

  async lastEventSeq(runId: string): Promise<number> {
    return this.db.read('lastEventSeq', (db) => events.lastEventSeq(db, runId));
  }

  async listEventsAfterId(afterId: number, limit: number): Promise<EventRowWithId[]> {
    return this.db.read('listEventsAfterId', (db) => events.listEventsAfterId(db, afterId, limit));
  }

  async lastEventId(): Promise<number> {
    return this.db.read('lastEventId', (db) => events.lastEventId(db));
  }

  async requestControl(request: NewControl): Promise<ControlRow> {
    return this.db.read('requestControl', (db) => events.requestControl(db, request));
  }

  async pendingControls(runId?: string): Promise<ControlRow[]> {
    return this.db.read('pendingControls', (db) => events.pendingControls(db, runId ?? null));
  }

  async getControl(id: number): Promise<ControlRow | null> {
    return this.db.read('getControl', (db) => events.getControl(db, id));
  }

  async markControlHandled(id: number, now: number, result: string): Promise<void> {
    await this.db.read('markControlHandled', (db) => events.markControlHandled(db, id, now, result));
  }

  async addNote(note: NewNote): Promise<NoteRow> {
    return this.db.read('addNote', (db) => notes.addNote(db, note));
  }

  async listNotes(runId: string): Promise<NoteRow[]> {
    return this.db.read('listNotes', (db) => notes.listNotes(db, runId));
  }

  async cancelNote(runId: string, id: number, now: number): Promise<NoteRow | null> {
    return this.db.read('cancelNote', (db) => notes.cancelNote(db, runId, id, now));
  }

  async claimNotes(runId: string, iteration: number, now: number): Promise<NoteRow[]> {
    return this.db.read('claimNotes', (db) => notes.claimNotes(db, runId, iteration, now));
  }

  async importDatabase(path: string, now: number, workspace: string | null = null): Promise<number> {
    return this.db.read('importDatabase', () => importLegacyIntoPostgres(this.db.pool, path, now, workspace));
  }

  async recordCheckpoint(c: NewCheckpoint, fence?: Fence): Promise<CheckpointRow> {
    return this.db.fenced('recordCheckpoint', c.run_id, fence, (db) => records.insertCheckpoint(db, c));
  }

  async listCheckpoints(runId: string): Promise<CheckpointRow[]> {
    return this.db.read('listCheckpoints', (db) => records.listCheckpoints(db, runId));
  }

  async recordError(e: NewError, fence?: Fence): Promise<ErrorRow> {
    return this.db.fenced('recordError', e.run_id, fence, (db) => records.insertError(db, e));
  }

  async listErrors(runId: string): Promise<ErrorRow[]> {
    return this.db.read('listErrors', (db) => records.listErrors(db, runId));
  }

  async stats(options: { runId?: string; workspace?: string } = {}): Promise<StoreStats> {
    return this.db.read('stats', (db) => queryStats(db, options.runId ?? null, options.workspace ?? null));
  }

  async metrics(): Promise<StoreMetrics> {
    return this.db.read('metrics', (db) => queryMetrics(db));
  }

  async getBudget(): Promise<BudgetRow> {
    return this.db.read('getBudget', (db) => budget.readBudget(db));
  }

  async setBudget(change: BudgetChange, now: number): Promise<BudgetRow> {
    return this.db.read('setBudget', (db) => budget.writeBudget(db, change, now));
  }

  async spendSince(sinceMs: number): Promise<SpendRow[]> {
    return this.db.read('spendSince', (db) => budget.readSpend(db, sinceMs));
  }

  async claimBudgetNotice(window: BudgetWindowKey, windowStart: number, level: number): Promise<boolean> {
    return this.db.read('claimBudgetNotice', (db) => budget.claimNotice(db, window, windowStart, level));
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
    this.db.stopRetrying();
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    this.subscriptions.clear();
    if (!this.db.pool.ended) await this.db.pool.end();
  }

  /** Sets one column of the run row (and updated_at); behind the fence (in a transaction) when given. */
  private async updateRun(what: string, id: string, fence: Fence | undefined, column: string, value: string, now: number): Promise<void> {
    const write = (db: Queryable): Promise<void> => runs.updateRunColumn(db, what, id, fence, column, value, now);
    return fence === undefined ? this.db.read(what, write) : this.db.tx(what, write);
  }
}
