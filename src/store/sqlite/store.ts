// The default Store: embedded SQLite (node:sqlite) in WAL mode, one transaction per multi-row write,
// rows validated with zod on the way out. Totals are computed from rows, never kept twice.
// A thin class: the SQL lives in a module per concern (runs, owners, iterations, events and control requests,
// notes, records, budget, queries), run through db.ts (cached statements, transactions, fence).
/* eslint-disable @typescript-eslint/require-await -- the Store contract is async for networked stores; SQLite
   answers synchronously, and `async` keeps every thrown StoreError a rejected promise as the contract says. */
import type { DatabaseSync } from 'node:sqlite';
import type { RunStatus, StopReason } from '../../core/types.js';
import type { CheckpointRow, ControlRow, ErrorRow, EventRow, EventRowWithId, IterationRow, NoteRow, RunRow, RunTotals, RunWithTotals, StoreStats } from '../rows.js';
import { SqliteDb } from './db.js';
import { readDefinition } from './definitions.js';
import * as events from './events.js';
import * as iterations from './iterations.js';
import * as notes from './notes.js';
import * as owners from './owners.js';
import * as records from './records.js';
import * as runs from './runs.js';
import { importLegacyDatabase } from './import.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { openDatabase } from './open.js';
import { claimNotice, readBudget, readSpend, writeBudget } from './budget.js';
import type { BudgetChange, BudgetRow, BudgetWindowKey, SpendRow } from '../budget-rows.js';
import { queryMetrics, queryStats, queryTotals } from './queries.js';
import type { StoreMetrics } from '../metrics-sql.js';
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

/** SQLite implementation of Store on one database file (or ':memory:'). Its clock (`now`) judges leases. */
export class SqliteStore implements Store {
  private readonly db: DatabaseSync;
  private readonly s: SqliteDb;

  /** True when the database could only be opened for reading (a read-only file, directory or file system). */
  readonly readOnly: boolean;

  private checkpointer: Checkpointer | null = null;

  /**
   * Opens (creating if needed) the database at `path` and applies pending migrations. A database that cannot
   * be written but is up to date is opened read-only (history commands work; writes fail with
   * StoreUnusableError). Damage, a directory in its place and the like are one-line StoreUnusableErrors.
   * `backgroundCheckpoints`: the WAL is copied into the database by a worker thread (a busy server).
   */
  constructor(readonly path: string, options: { now?: () => number; backgroundCheckpoints?: boolean } = {}) {
    const now = options.now ?? Date.now;
    const { db, readOnly } = openDatabase(path, now());
    this.db = db;
    this.readOnly = readOnly;
    this.s = new SqliteDb(db, now, path);
    if (options.backgroundCheckpoints && !readOnly) this.startBackgroundCheckpoints();
  }

  async createRun(run: NewRun): Promise<RunRow> {
    return this.s.tx(() => {
      runs.insertRun(this.s, run);
      if (run.owner !== null) owners.openOwner(this.s, run.id, run.owner, run.now);
      return runs.mustGetRun(this.s, run.id);
    });
  }

  async getRun(id: string): Promise<RunRow | null> {
    return runs.readRun(this.s, id);
  }

  async findRun(idOrPrefix: string): Promise<RunRow | null> {
    return runs.findRun(this.s, idOrPrefix);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunWithTotals[]> {
    return runs.listRuns(this.s, filter);
  }

  async countRuns(filter: RunFilter = {}): Promise<number> {
    return runs.countRuns(this.s, filter);
  }

  async updateRunSpec(id: string, spec: unknown, now: number, fence?: Fence): Promise<void> {
    runs.updateRunColumn(this.s, 'updateRunSpec', id, fence, 'spec_json = :value', JSON.stringify(spec ?? null), now);
  }

  async updateRunMeta(id: string, meta: Record<string, unknown>, now: number, fence?: Fence): Promise<void> {
    runs.updateRunColumn(this.s, 'updateRunMeta', id, fence, 'meta_json = :value', JSON.stringify(meta), now);
  }

  async updateRunDefinition(id: string, definition: Record<string, unknown>, now: number, fence?: Fence): Promise<void> {
    runs.updateRunDefinition(this.s, id, definition, now, fence);
  }

  async getRunDefinition(id: string): Promise<Record<string, unknown> | null> {
    return readDefinition(this.s, id);
  }

  async updateRunStatus(id: string, status: RunStatus, now: number, fence?: Fence): Promise<void> {
    runs.updateRunColumn(this.s, 'updateRunStatus', id, fence, 'status = :value', status, now);
  }

  async finishRun(id: string, end: { status: RunStatus; stop_reason: StopReason | null; now: number }, fence?: Fence): Promise<RunRow> {
    return runs.finishRun(this.s, id, end, fence);
  }

  async claimRun(id: string, owner: Owner, now: number, options: ClaimOptions = {}): Promise<ClaimResult> {
    return owners.claimRun(this.s, id, owner, now, options);
  }

  async releaseRun(id: string, owner: Owner, now: number): Promise<boolean> {
    return owners.releaseRun(this.s, id, owner, now);
  }

  async heartbeat(id: string, owner: Owner, now: number): Promise<boolean> {
    return owners.heartbeat(this.s, id, owner, now);
  }

  async startIteration(start: IterationStart, fence?: Fence, events?: readonly NewEvent[]): Promise<IterationRow> {
    return iterations.startIteration(this.s, start, fence, events);
  }

  async updateIteration(runId: string, number: number, progress: IterationProgress, fence?: Fence, events?: readonly NewEvent[]): Promise<void> {
    iterations.updateIteration(this.s, runId, number, progress, fence, events);
  }

  async completeIteration(runId: string, number: number, end: IterationEnd, fence?: Fence, events?: readonly NewEvent[]): Promise<IterationRow> {
    return iterations.completeIteration(this.s, runId, number, end, fence, events);
  }

  async getIteration(runId: string, number: number): Promise<IterationRow | null> {
    return iterations.readIteration(this.s, runId, number);
  }

  async listIterations(runId: string): Promise<IterationRow[]> {
    return iterations.listIterations(this.s, runId);
  }

  async runTotals(runId: string): Promise<RunTotals> {
    return queryTotals(this.db, runId);
  }

  async appendEvent(event: NewEvent, fence?: Fence): Promise<EventRow> {
    return events.appendEvents(this.s, [event], fence)[0] as EventRow;
  }

  async appendEvents(list: readonly NewEvent[], fence?: Fence): Promise<EventRow[]> {
    return events.appendEvents(this.s, list, fence);
  }

  async lastEventSeq(runId: string): Promise<number> {
    return events.lastEventSeq(this.s, runId);
  }

  async listEventsAfterId(afterId: number, limit: number): Promise<EventRowWithId[]> {
    return events.listEventsAfterId(this.s, afterId, limit);
  }

  async lastEventId(): Promise<number> {
    return events.lastEventId(this.s);
  }

  async requestControl(request: NewControl): Promise<ControlRow> {
    return events.requestControl(this.s, request);
  }

  async pendingControls(runId?: string): Promise<ControlRow[]> {
    return events.pendingControls(this.s, runId ?? null);
  }

  async getControl(id: number): Promise<ControlRow | null> {
    return events.getControl(this.s, id);
  }

  async markControlHandled(id: number, now: number, result: string): Promise<void> {
    events.markControlHandled(this.s, id, now, result);
  }

  async addNote(note: NewNote): Promise<NoteRow> {
    return notes.addNote(this.s, note);
  }

  async listNotes(runId: string): Promise<NoteRow[]> {
    return notes.listNotes(this.s, runId);
  }

  async cancelNote(runId: string, id: number, now: number): Promise<NoteRow | null> {
    return notes.cancelNote(this.s, runId, id, now);
  }

  async claimNotes(runId: string, iteration: number, now: number): Promise<NoteRow[]> {
    return notes.claimNotes(this.s, runId, iteration, now);
  }

  async importDatabase(path: string, now: number, workspace: string | null = null): Promise<number> {
    return importLegacyDatabase(this.db, path, now, workspace);
  }

  async listEvents(runId: string, options: { afterSeq?: number; limit?: number } = {}): Promise<EventRow[]> {
    return events.listEvents(this.s, runId, options.afterSeq ?? 0, options.limit ?? null);
  }

  async recordCheckpoint(c: NewCheckpoint, fence?: Fence): Promise<CheckpointRow> {
    return records.recordCheckpoint(this.s, c, fence);
  }

  async listCheckpoints(runId: string): Promise<CheckpointRow[]> {
    return records.listCheckpoints(this.s, runId);
  }

  async recordError(e: NewError, fence?: Fence): Promise<ErrorRow> {
    return records.recordError(this.s, e, fence);
  }

  async listErrors(runId: string): Promise<ErrorRow[]> {
    return records.listErrors(this.s, runId);
  }

  async stats(options: { runId?: string; workspace?: string } = {}): Promise<StoreStats> {
    return queryStats(this.db, options.runId ?? null, options.workspace ?? null);
  }

  async metrics(): Promise<StoreMetrics> {
    return queryMetrics(this.db);
  }

  async getBudget(): Promise<BudgetRow> {
    return readBudget(this.s);
  }

  async setBudget(change: BudgetChange, now: number): Promise<BudgetRow> {
    return writeBudget(this.s, change, now);
  }

  async spendSince(sinceMs: number): Promise<SpendRow[]> {
    return readSpend(this.s, sinceMs);
  }

  async claimBudgetNotice(window: BudgetWindowKey, windowStart: number, level: number): Promise<boolean> {
    return claimNotice(this.s, window, windowStart, level);
  }

  /** Checkpoints move to a worker thread (a busy server's writes never wait for them). */
  private startBackgroundCheckpoints(): void {
    this.checkpointer = startCheckpointer(this.path);
    if (this.checkpointer) this.db.exec('PRAGMA wal_autocheckpoint = 0');
  }

  async close(): Promise<void> {
    await this.checkpointer?.stop();
    this.checkpointer = null;
    if (this.db.isOpen) this.db.close();
  }
}
