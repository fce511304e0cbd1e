// The default Store: embedded SQLite (node:sqlite) in WAL mode, one transaction per multi-row write,
// rows validated with zod on the way out. Totals are computed from rows, never kept twice.
/* eslint-disable @typescript-eslint/require-await -- the Store contract is async for networked stores; SQLite
   answers synchronously, and `async` keeps every thrown StoreError a rejected promise as the contract says. */
import type { DatabaseSync } from 'node:sqlite';
import type { RunStatus, StopReason } from '../../core/types.js';
import { AmbiguousRunIdError, RunBusyError, RunEndedError, StoreError } from '../errors.js';
import { resumable } from '../liveness.js';
import { checkpointRowSchema, definitionSchema, errorRowSchema, runRowSchema } from '../rows.js';
import type { CheckpointRow, ControlRow, ErrorRow, EventRow, EventRowWithId, IterationRow, NoteRow, RunRow, RunTotals, RunWithTotals, StoreStats } from '../rows.js';
import { CHECKPOINT_COLUMNS, ERROR_COLUMNS, RUN_SELECT } from '../sql-columns.js';
import { SqliteDb } from './db.js';
import * as events from './events.js';
import * as iterations from './iterations.js';
import * as notes from './notes.js';
import { importLegacyDatabase } from './import.js';
import { runWhere } from './run-filter.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { openDatabase } from './open.js';
import { claimNotice, readBudget, readSpend, writeBudget } from './budget.js';
import type { BudgetChange, BudgetRow, BudgetWindowKey, SpendRow } from '../budget-rows.js';
import { queryMetrics, queryStats, queryTotals, queryTotalsMany } from './queries.js';
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
      this.s.run(
        `INSERT INTO runs (id, status, stop_reason, agent, kind, origin, spec_json, meta_json, workspace, worktree, branch, created_at, updated_at, ended_at)
         VALUES (:id, :status, NULL, :agent, :kind, :origin, :spec, :meta, :workspace, :worktree, :branch, :now, :now, NULL)`,
        {
          id: run.id,
          status: run.status ?? 'running',
          agent: run.agent,
          kind: run.kind ?? 'prompt',
          origin: run.origin ?? 'cli',
          spec: JSON.stringify(run.spec ?? null),
          meta: JSON.stringify(run.meta ?? {}),
          workspace: run.workspace,
          worktree: run.worktree ?? null,
          branch: run.branch ?? null,
          now: run.now,
        },
      );
      if (run.definition) this.writeDefinition(run.id, run.definition, run.now);
      if (run.owner !== null) this.openOwner(run.id, run.owner, run.now);
      return this.mustGetRun(run.id);
    });
  }

  async getRun(id: string): Promise<RunRow | null> {
    return this.readRun(id);
  }

  async findRun(idOrPrefix: string): Promise<RunRow | null> {
    const exact = this.readRun(idOrPrefix);
    if (exact || idOrPrefix === '') return exact;
    const rows = this.s.q('SELECT id FROM runs WHERE substr(id, 1, :n) = :prefix ORDER BY id LIMIT 6')
      .all({ n: idOrPrefix.length, prefix: idOrPrefix }) as Array<{ id: string }>;
    if (rows.length > 1) throw new AmbiguousRunIdError(idOrPrefix, rows.map((r) => r.id));
    return rows[0] ? this.readRun(rows[0].id) : null;
  }

  async listRuns(filter: RunFilter = {}): Promise<RunWithTotals[]> {
    const { where, params } = runWhere(filter);
    const page = filter.limit !== undefined || filter.offset !== undefined ? 'LIMIT :limit OFFSET :offset' : '';
    if (page) {
      params.limit = filter.limit ?? -1;
      params.offset = filter.offset ?? 0;
    }
    const runs = this.s.q(`${RUN_SELECT} ${where} ORDER BY r.created_at DESC, r.id DESC ${page}`).all(params).map((row) => runRowSchema.parse(row));
    const totals = queryTotalsMany(this.db, runs.map((r) => r.id));
    return runs.map((run) => ({ ...run, totals: totals.get(run.id) as RunTotals }));
  }

  async countRuns(filter: RunFilter = {}): Promise<number> {
    const { where, params } = runWhere(filter);
    const row = this.s.q(`SELECT COUNT(*) AS n FROM runs r ${where}`).get(params) as { n: number };
    return row.n;
  }

  async updateRunSpec(id: string, spec: unknown, now: number, fence?: Fence): Promise<void> {
    this.updateRun('updateRunSpec', id, fence, 'spec_json = :value', JSON.stringify(spec ?? null), now);
  }

  async updateRunMeta(id: string, meta: Record<string, unknown>, now: number, fence?: Fence): Promise<void> {
    this.updateRun('updateRunMeta', id, fence, 'meta_json = :value', JSON.stringify(meta), now);
  }

  async updateRunDefinition(id: string, definition: Record<string, unknown>, now: number, fence?: Fence): Promise<void> {
    this.s.fenced(id, fence, 'updateRunDefinition', () => {
      if (!this.readRun(id)) throw new StoreError(`updateRunDefinition: no run ${id}`);
      this.writeDefinition(id, definition, now);
    });
  }

  async getRunDefinition(id: string): Promise<Record<string, unknown> | null> {
    const row = this.s.q('SELECT definition_json FROM run_definitions WHERE run_id = :id').get({ id }) as { definition_json: string } | undefined;
    return row === undefined ? null : definitionSchema.parse(row.definition_json);
  }

  async updateRunStatus(id: string, status: RunStatus, now: number, fence?: Fence): Promise<void> {
    this.updateRun('updateRunStatus', id, fence, 'status = :value', status, now);
  }

  async finishRun(id: string, end: { status: RunStatus; stop_reason: StopReason | null; now: number }, fence?: Fence): Promise<RunRow> {
    return this.s.tx(() => {
      if (!this.readRun(id)) throw new StoreError(`finishRun: no run ${id}`);
      this.s.fence(id, fence, 'finishRun');
      this.s.run('UPDATE runs SET status = :status, stop_reason = :reason, ended_at = :now, updated_at = :now WHERE id = :id', {
        id,
        status: end.status,
        reason: end.stop_reason,
        now: end.now,
      });
      iterations.interruptRunning(this.s, id, end.now);
      this.s.run('UPDATE run_owners SET ended_at = :now, heartbeat_at = MAX(heartbeat_at, :now) WHERE run_id = :id AND ended_at IS NULL', { id, now: end.now });
      return this.mustGetRun(id);
    });
  }

  async claimRun(id: string, owner: Owner, now: number, options: ClaimOptions = {}): Promise<ClaimResult> {
    return this.s.tx(() => {
      const run = this.readRun(id);
      if (!run) throw new StoreError(`claimRun: no run ${id}`);
      if (options.onlyIfResumable && !resumable(run)) throw new RunEndedError(id, run.status, run.stop_reason);
      const prev = this.s.q('SELECT pid, host, heartbeat_at, COALESCE(renewed_at, heartbeat_at) AS renewed_at FROM run_owners WHERE run_id = :id AND ended_at IS NULL')
        .get({ id }) as { pid: number; host: string; heartbeat_at: number; renewed_at: number } | undefined;
      if (prev && options.ifIdleMs !== undefined) {
        const idle = this.s.clock() - prev.renewed_at;
        if (idle < options.ifIdleMs) throw new RunBusyError(id, prev, Math.max(0, idle));
      }
      // A dead owner's runtime ends at its last heartbeat: that is the last moment it was known alive.
      const lastAlive = prev ? Math.min(prev.heartbeat_at, now) : now;
      if (prev) this.s.run('UPDATE run_owners SET ended_at = heartbeat_at WHERE run_id = :id AND ended_at IS NULL', { id });
      const interrupted = iterations.interruptRunning(this.s, id, lastAlive);
      this.openOwner(id, owner, now);
      this.s.run('UPDATE runs SET status = :status, stop_reason = NULL, ended_at = NULL, updated_at = :now WHERE id = :id', { id, status: options.status ?? 'running', now });
      return {
        run: this.mustGetRun(id),
        interrupted,
        previous: prev ? { pid: prev.pid, host: prev.host, heartbeat_at: prev.heartbeat_at } : null,
      };
    });
  }

  async releaseRun(id: string, owner: Owner, now: number): Promise<boolean> {
    const { changes } = this.s.run(
      `UPDATE run_owners SET ended_at = MAX(heartbeat_at, :now), heartbeat_at = MAX(heartbeat_at, :now)
       WHERE run_id = :id AND pid = :pid AND host = :host AND ended_at IS NULL`,
      { id, pid: owner.pid, host: owner.host, now },
    );
    return changes > 0;
  }

  async heartbeat(id: string, owner: Owner, now: number): Promise<boolean> {
    const { changes } = this.s.run(
      `UPDATE run_owners SET heartbeat_at = MAX(heartbeat_at, :now), renewed_at = :clock
       WHERE run_id = :id AND pid = :pid AND host = :host AND ended_at IS NULL`,
      { id, pid: owner.pid, host: owner.host, now, clock: this.s.clock() },
    );
    return changes > 0;
  }

  async startIteration(start: IterationStart, fence?: Fence): Promise<IterationRow> {
    return iterations.startIteration(this.s, start, fence);
  }

  async updateIteration(runId: string, number: number, progress: IterationProgress, fence?: Fence): Promise<void> {
    iterations.updateIteration(this.s, runId, number, progress, fence);
  }

  async completeIteration(runId: string, number: number, end: IterationEnd, fence?: Fence): Promise<IterationRow> {
    return iterations.completeIteration(this.s, runId, number, end, fence);
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
    const row = this.s.fenced(c.run_id, fence, 'recordCheckpoint', () =>
      this.s
        .q(
          `INSERT INTO checkpoints (run_id, iteration, commit_sha, state, message, snapshot_json, created_at)
           VALUES (:run_id, :iteration, :commit_sha, :state, :message, :snapshot, :created_at) RETURNING ${CHECKPOINT_COLUMNS}`,
        )
        .get({
          run_id: c.run_id,
          iteration: c.iteration,
          commit_sha: c.commit_sha,
          state: c.state,
          message: c.message ?? null,
          snapshot: c.snapshot === undefined ? null : JSON.stringify(c.snapshot),
          created_at: c.created_at,
        }),
    );
    return checkpointRowSchema.parse(row);
  }

  async listCheckpoints(runId: string): Promise<CheckpointRow[]> {
    const rows = this.s.q(`SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE run_id = :runId ORDER BY id`).all({ runId });
    return rows.map((row) => checkpointRowSchema.parse(row));
  }

  async recordError(e: NewError, fence?: Fence): Promise<ErrorRow> {
    const row = this.s.fenced(e.run_id, fence, 'recordError', () =>
      this.s
        .q(
          `INSERT INTO errors (run_id, iteration, kind, message, context_json, created_at)
           VALUES (:run_id, :iteration, :kind, :message, :context, :created_at) RETURNING ${ERROR_COLUMNS}`,
        )
        .get({
          run_id: e.run_id,
          iteration: e.iteration ?? null,
          kind: e.kind,
          message: e.message,
          context: e.context === undefined ? null : JSON.stringify(e.context),
          created_at: e.created_at,
        }),
    );
    return errorRowSchema.parse(row);
  }

  async listErrors(runId: string): Promise<ErrorRow[]> {
    const rows = this.s.q(`SELECT ${ERROR_COLUMNS} FROM errors WHERE run_id = :runId ORDER BY id`).all({ runId });
    return rows.map((row) => errorRowSchema.parse(row));
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

  /** Sets one column of the run row (and updated_at), behind the fence when given. */
  private updateRun(what: string, id: string, fence: Fence | undefined, set: string, value: string, now: number): void {
    this.s.fenced(id, fence, what, () => {
      const { changes } = this.s.run(`UPDATE runs SET ${set}, updated_at = :now WHERE id = :id`, { id, value, now });
      if (changes === 0) throw new StoreError(`${what}: no run ${id}`);
    });
  }

  private writeDefinition(id: string, definition: Record<string, unknown>, now: number): void {
    this.s.run(
      `INSERT INTO run_definitions (run_id, definition_json, updated_at) VALUES (:id, :definition, :now)
       ON CONFLICT (run_id) DO UPDATE SET definition_json = excluded.definition_json, updated_at = excluded.updated_at`,
      { id, definition: JSON.stringify(definition), now },
    );
  }

  private readRun(id: string): RunRow | null {
    const row = this.s.q(`${RUN_SELECT} WHERE r.id = :id`).get({ id });
    return row === undefined ? null : runRowSchema.parse(row);
  }

  private mustGetRun(id: string): RunRow {
    const run = this.readRun(id);
    if (!run) throw new StoreError(`no run ${id}`);
    return run;
  }

  private openOwner(runId: string, owner: Owner, now: number): void {
    this.s.run(
      `INSERT INTO run_owners (run_id, seq, pid, host, started_at, heartbeat_at, renewed_at, ended_at)
       SELECT :runId, COALESCE(MAX(seq), 0) + 1, :pid, :host, :now, :now, :clock, NULL FROM run_owners WHERE run_id = :runId`,
      { runId, pid: owner.pid, host: owner.host, now, clock: this.s.clock() },
    );
  }
}
