// The default Store: embedded SQLite (node:sqlite) in WAL mode, one transaction per multi-row write,
// rows validated with zod on the way out. Totals are computed from rows, never kept twice.
/* eslint-disable @typescript-eslint/require-await -- the Store contract is async for networked stores; SQLite
   answers synchronously, and `async` keeps every thrown StoreError a rejected promise as the contract says. */
import { statSync } from 'node:fs';
import { restrictToOwner } from '../os/private-files.js';
import { DatabaseSync } from 'node:sqlite';
import type { SQLInputValue, StatementSync } from 'node:sqlite';
import type { RunStatus, StopReason } from '../core/types.js';
import { AmbiguousRunIdError, StoreError, StoreUnusableError, storeErrorFrom } from './errors.js';
import {
  checkpointRowSchema,
  controlRowSchema,
  errorRowSchema,
  eventRowSchema,
  iterationRowSchema,
  runRowSchema,
} from './rows.js';
import type { CheckpointRow, ControlRow, ErrorRow, EventRow, EventRowWithId, IterationRow, RunRow, RunTotals, RunWithTotals, StoreStats } from './rows.js';
import { importLegacyDatabase } from './sqlite-import.js';
import { runWhere } from './sqlite-run-filter.js';
import { currentVersion, latestMigration, migrate } from './sqlite-migrate.js';
import { startCheckpointer, type Checkpointer } from './sqlite-checkpointer.js';
import { queryStats, queryTotals } from './sqlite-queries.js';
import type {
  ClaimResult,
  IterationEnd,
  IterationProgress,
  IterationStart,
  NewCheckpoint,
  NewControl,
  NewError,
  NewEvent,
  NewRun,
  Owner,
  RunFilter,
  Store,
} from './store.js';

type Params = Record<string, SQLInputValue>;

const RUN_SELECT = `
SELECT r.id, r.status, r.stop_reason, r.agent, r.kind, r.origin, r.spec_json AS spec, r.meta_json AS meta, r.workspace, r.worktree, r.branch,
       r.created_at, r.updated_at, r.ended_at,
       o.pid AS owner_pid, o.host AS owner_host, o.heartbeat_at AS heartbeat_at
FROM runs r LEFT JOIN run_owners o ON o.run_id = r.id AND o.ended_at IS NULL`;

const CHECKPOINT_COLUMNS = 'id, run_id, iteration, commit_sha, state, message, snapshot_json AS snapshot, created_at';
const CONTROL_COLUMNS = 'id, run_id, action, options_json AS options, requested_by, requested_at, handled_at, result';

const INTERRUPTED_MESSAGE = 'the process driving the run ended during this iteration (crash, kill or stop)';

const PROGRESS_COLUMNS = ['tokens_in', 'tokens_out', 'cache_read', 'cache_write', 'cost_usd', 'session_id', 'model'] as const;

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function openReadWrite(path: string, now: number): DatabaseSync {
  const db = new DatabaseSync(path);
  try {
    // Only its owner may read the database (its journal files take the same mode).
    if (path !== ':memory:' && !path.startsWith('file:')) restrictToOwner(path);
    db.exec('PRAGMA busy_timeout = 5000');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    migrate(db, path, now);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Opens an existing, up-to-date database for reading only. In WAL mode SQLite needs to create its shared-memory
 * file even to read; in a read-only directory it cannot, and the file is read as immutable instead (nothing can
 * be writing it: nobody may).
 */
function openReadOnly(path: string, why: StoreUnusableError): DatabaseSync {
  const attempts = [() => new DatabaseSync(path, { readOnly: true }), () => new DatabaseSync(`file:${encodeURI(path)}?immutable=1`, { readOnly: true })];
  for (const attempt of attempts) {
    let db: DatabaseSync | null = null;
    try {
      db = attempt();
      db.exec('PRAGMA busy_timeout = 5000');
      const version = currentVersion(db);
      if (version < latestMigration()) {
        db.close();
        throw new StoreUnusableError('read_only', `${path} needs an upgrade to this version of ringmaster but cannot be written (${why.message})`);
      }
      return db;
    } catch (error) {
      db?.close();
      if (error instanceof StoreUnusableError) throw error;
      const problem = storeErrorFrom(error, path);
      if (problem !== null && problem.reason !== 'read_only' && problem.reason !== 'cannot_open') throw problem;
    }
  }
  throw why;
}

/** SQLite implementation of Store on one database file (or ':memory:'). */
export class SqliteStore implements Store {
  private readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();

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
    if (path !== ':memory:' && isDirectory(path)) {
      throw new StoreUnusableError('cannot_open', `${path} is a directory, not a database file: move it away (ringmaster creates the database there)`);
    }
    try {
      this.db = openReadWrite(path, (options.now ?? Date.now)());
      this.readOnly = false;
      if (options.backgroundCheckpoints) this.startBackgroundCheckpoints();
    } catch (error) {
      const problem = storeErrorFrom(error, path);
      if (problem?.reason !== 'read_only' && problem?.reason !== 'cannot_open') throw problem ?? error;
      this.db = openReadOnly(path, problem);
      this.readOnly = true;
    }
  }

  async createRun(run: NewRun): Promise<RunRow> {
    return this.tx(() => {
      this.run(
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
      this.openOwner(run.id, run.owner, run.now);
      return this.mustGetRun(run.id);
    });
  }

  async getRun(id: string): Promise<RunRow | null> {
    return this.readRun(id);
  }

  async findRun(idOrPrefix: string): Promise<RunRow | null> {
    const exact = this.readRun(idOrPrefix);
    if (exact || idOrPrefix === '') return exact;
    const rows = this.q('SELECT id FROM runs WHERE substr(id, 1, :n) = :prefix ORDER BY id LIMIT 6')
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
    const rows = this.q(`${RUN_SELECT} ${where} ORDER BY r.created_at DESC, r.id DESC ${page}`).all(params);
    return rows.map((row) => {
      const run = runRowSchema.parse(row);
      return { ...run, totals: queryTotals(this.db, run.id) };
    });
  }

  async countRuns(filter: RunFilter = {}): Promise<number> {
    const { where, params } = runWhere(filter);
    const row = this.q(`SELECT COUNT(*) AS n FROM runs r ${where}`).get(params) as { n: number };
    return row.n;
  }

  async updateRunSpec(id: string, spec: unknown, now: number): Promise<void> {
    const { changes } = this.run('UPDATE runs SET spec_json = :spec, updated_at = :now WHERE id = :id', { id, spec: JSON.stringify(spec ?? null), now });
    if (changes === 0) throw new StoreError(`updateRunSpec: no run ${id}`);
  }

  async updateRunMeta(id: string, meta: Record<string, unknown>, now: number): Promise<void> {
    const { changes } = this.run('UPDATE runs SET meta_json = :meta, updated_at = :now WHERE id = :id', { id, meta: JSON.stringify(meta), now });
    if (changes === 0) throw new StoreError(`updateRunMeta: no run ${id}`);
  }

  async updateRunStatus(id: string, status: RunStatus, now: number): Promise<void> {
    const { changes } = this.run('UPDATE runs SET status = :status, updated_at = :now WHERE id = :id', { id, status, now });
    if (changes === 0) throw new StoreError(`updateRunStatus: no run ${id}`);
  }

  async finishRun(id: string, end: { status: RunStatus; stop_reason: StopReason | null; now: number }): Promise<RunRow> {
    return this.tx(() => {
      const { changes } = this.run(
        'UPDATE runs SET status = :status, stop_reason = :reason, ended_at = :now, updated_at = :now WHERE id = :id',
        { id, status: end.status, reason: end.stop_reason, now: end.now },
      );
      if (changes === 0) throw new StoreError(`finishRun: no run ${id}`);
      this.interruptRunning(id, end.now);
      this.run(
        'UPDATE run_owners SET ended_at = :now, heartbeat_at = MAX(heartbeat_at, :now) WHERE run_id = :id AND ended_at IS NULL',
        { id, now: end.now },
      );
      return this.mustGetRun(id);
    });
  }

  async claimRun(id: string, owner: Owner, now: number, status: RunStatus = 'running'): Promise<ClaimResult> {
    return this.tx(() => {
      if (!this.readRun(id)) throw new StoreError(`claimRun: no run ${id}`);
      const prev = this.q('SELECT pid, host, heartbeat_at FROM run_owners WHERE run_id = :id AND ended_at IS NULL')
        .get({ id }) as { pid: number; host: string; heartbeat_at: number } | undefined;
      // A dead owner's runtime ends at its last heartbeat: that is the last moment it was known alive.
      const lastAlive = prev ? Math.min(prev.heartbeat_at, now) : now;
      if (prev) this.run('UPDATE run_owners SET ended_at = heartbeat_at WHERE run_id = :id AND ended_at IS NULL', { id });
      const interrupted = this.interruptRunning(id, lastAlive);
      this.openOwner(id, owner, now);
      this.run('UPDATE runs SET status = :status, stop_reason = NULL, ended_at = NULL, updated_at = :now WHERE id = :id', {
        id,
        status,
        now,
      });
      return {
        run: this.mustGetRun(id),
        interrupted,
        previous: prev ? { pid: prev.pid, host: prev.host, heartbeat_at: prev.heartbeat_at } : null,
      };
    });
  }

  async heartbeat(id: string, owner: Owner, now: number): Promise<boolean> {
    const { changes } = this.run(
      `UPDATE run_owners SET heartbeat_at = MAX(heartbeat_at, :now)
       WHERE run_id = :id AND pid = :pid AND host = :host AND ended_at IS NULL`,
      { id, pid: owner.pid, host: owner.host, now },
    );
    return changes > 0;
  }

  async startIteration(start: IterationStart): Promise<IterationRow> {
    return this.tx(() => {
      if (this.readIteration(start.run_id, start.number)) {
        throw new StoreError(`startIteration: run ${start.run_id} already has iteration ${start.number}`);
      }
      const row = this.q(
          `INSERT INTO iterations (run_id, number, agent, status, started_at, log_path, unit_id)
           VALUES (:run_id, :number, :agent, 'running', :started_at, :log_path, :unit_id) RETURNING *`,
        )
        .get({ ...start, unit_id: start.unit_id ?? null });
      this.touchOwner(start.run_id, start.started_at);
      return iterationRowSchema.parse(row);
    });
  }

  async updateIteration(runId: string, number: number, progress: IterationProgress): Promise<void> {
    const params: Params = { run_id: runId, number };
    const sets: string[] = [];
    for (const column of PROGRESS_COLUMNS) {
      const value = progress[column];
      if (value === undefined) continue;
      sets.push(`${column} = :${column}`);
      params[column] = value;
    }
    if (sets.length === 0) return;
    const { changes } = this.run(
      `UPDATE iterations SET ${sets.join(', ')} WHERE run_id = :run_id AND number = :number AND status = 'running'`,
      params,
    );
    if (changes === 0) throw new StoreError(`updateIteration: iteration ${number} of run ${runId} is not running`);
  }

  async completeIteration(runId: string, number: number, end: IterationEnd): Promise<IterationRow> {
    return this.tx(() => {
      const row = this.q(
          `UPDATE iterations SET status = :status, completed_at = :completed_at, duration_ms = :duration_ms,
             exit_code = :exit_code, exit_signal = :exit_signal,
             tokens_in = :tokens_in, tokens_out = :tokens_out, cache_read = :cache_read, cache_write = :cache_write,
             cost_usd = :cost_usd, completion_signal_found = :completion, failure_signal_found = :failure,
             error_kind = :error_kind, error_message = :error_message,
             session_id = COALESCE(:session_id, session_id), model = COALESCE(:model, model)
           WHERE run_id = :run_id AND number = :number AND status = 'running' RETURNING *`,
        )
        .get({
          run_id: runId,
          number,
          status: end.status,
          completed_at: end.completed_at,
          duration_ms: Math.max(0, Math.round(end.duration_ms)),
          exit_code: end.exit_code,
          exit_signal: end.exit_signal ?? null,
          tokens_in: end.tokens_in ?? null,
          tokens_out: end.tokens_out ?? null,
          cache_read: end.cache_read ?? null,
          cache_write: end.cache_write ?? null,
          cost_usd: end.cost_usd ?? null,
          completion: end.completion_signal_found ? 1 : 0,
          failure: end.failure_signal_found ? 1 : 0,
          error_kind: end.error_kind,
          error_message: end.error_message,
          session_id: end.session_id ?? null,
          model: end.model ?? null,
        });
      if (row === undefined) {
        const existing = this.readIteration(runId, number);
        throw new StoreError(
          existing
            ? `completeIteration: iteration ${number} of run ${runId} is already ${existing.status}`
            : `completeIteration: run ${runId} has no iteration ${number}`,
        );
      }
      this.touchOwner(runId, end.completed_at);
      return iterationRowSchema.parse(row);
    });
  }

  async getIteration(runId: string, number: number): Promise<IterationRow | null> {
    return this.readIteration(runId, number);
  }

  async listIterations(runId: string): Promise<IterationRow[]> {
    const rows = this.q('SELECT * FROM iterations WHERE run_id = :runId ORDER BY number').all({ runId });
    return rows.map((row) => iterationRowSchema.parse(row));
  }

  async runTotals(runId: string): Promise<RunTotals> {
    return queryTotals(this.db, runId);
  }

  async appendEvent(event: NewEvent): Promise<EventRow> {
    const params = {
      run_id: event.run_id,
      at: event.at,
      type: event.type,
      iteration: event.iteration ?? null,
      payload: JSON.stringify(event.payload ?? null),
    };
    let row: unknown;
    if (event.seq !== undefined) {
      try {
        row = this.q(
            `INSERT INTO events (run_id, seq, at, type, iteration, payload_json) VALUES (:run_id, :seq, :at, :type, :iteration, :payload)
             RETURNING run_id, seq, at, type, iteration, payload_json AS payload`,
          )
          .get({ ...params, seq: event.seq });
      } catch (error) {
        if (String((error as Error).message).includes('UNIQUE')) throw new StoreError(`appendEvent: run ${event.run_id} already has event ${event.seq}`, { cause: error });
        throw error;
      }
    } else {
      // One statement: the sequence number and the row are written atomically.
      row = this.q(
          `INSERT INTO events (run_id, seq, at, type, iteration, payload_json)
           SELECT :run_id, COALESCE(MAX(seq), 0) + 1, :at, :type, :iteration, :payload FROM events WHERE run_id = :run_id
           RETURNING run_id, seq, at, type, iteration, payload_json AS payload`,
        )
        .get(params);
    }
    return eventRowSchema.parse(row);
  }

  async appendEvents(events: readonly (NewEvent & { seq: number })[]): Promise<void> {
    if (events.length === 0) return;
    this.tx(() => {
      const insert = this.q('INSERT INTO events (run_id, seq, at, type, iteration, payload_json) VALUES (:run_id, :seq, :at, :type, :iteration, :payload)');
      for (const event of events) {
        try {
          insert.run({ run_id: event.run_id, seq: event.seq, at: event.at, type: event.type, iteration: event.iteration ?? null, payload: JSON.stringify(event.payload ?? null) });
        } catch (error) {
          if (String((error as Error).message).includes('UNIQUE')) throw new StoreError(`appendEvents: run ${event.run_id} already has event ${event.seq}`, { cause: error });
          throw error;
        }
      }
    });
  }

  async lastEventSeq(runId: string): Promise<number> {
    const row = this.q('SELECT COALESCE(MAX(seq), 0) AS seq FROM events WHERE run_id = :runId').get({ runId }) as { seq: number };
    return row.seq;
  }

  async listEventsAfterId(afterId: number, limit: number): Promise<EventRowWithId[]> {
    const rows = this.q(
        `SELECT rowid AS id, run_id, seq, at, type, iteration, payload_json AS payload FROM events
         WHERE rowid > :after ORDER BY rowid LIMIT :limit`,
      )
      .all({ after: afterId, limit }) as Array<{ id: number }>;
    return rows.map((row) => ({ ...eventRowSchema.parse(row), id: row.id }));
  }

  async lastEventId(): Promise<number> {
    const row = this.q('SELECT COALESCE(MAX(rowid), 0) AS id FROM events').get() as { id: number };
    return row.id;
  }

  async requestControl(request: NewControl): Promise<ControlRow> {
    if (!this.readRun(request.run_id)) throw new StoreError(`requestControl: no run ${request.run_id}`);
    const row = this.q(
        `INSERT INTO control_requests (run_id, action, options_json, requested_by, requested_at)
         VALUES (:run_id, :action, :options, :by, :at) RETURNING ${CONTROL_COLUMNS}`,
      )
      .get({ run_id: request.run_id, action: request.action, options: JSON.stringify(request.options ?? {}), by: request.requested_by ?? null, at: request.requested_at });
    return controlRowSchema.parse(row);
  }

  async pendingControls(runId?: string): Promise<ControlRow[]> {
    const rows =
      runId === undefined
        ? this.q(`SELECT ${CONTROL_COLUMNS} FROM control_requests WHERE handled_at IS NULL ORDER BY id`).all()
        : this.q(`SELECT ${CONTROL_COLUMNS} FROM control_requests WHERE run_id = :runId AND handled_at IS NULL ORDER BY id`).all({ runId });
    return rows.map((row) => controlRowSchema.parse(row));
  }

  async getControl(id: number): Promise<ControlRow | null> {
    const row = this.q(`SELECT ${CONTROL_COLUMNS} FROM control_requests WHERE id = :id`).get({ id });
    return row === undefined ? null : controlRowSchema.parse(row);
  }

  async markControlHandled(id: number, now: number, result: string): Promise<void> {
    this.run('UPDATE control_requests SET handled_at = :now, result = :result WHERE id = :id AND handled_at IS NULL', { id, now, result });
  }

  async importDatabase(path: string, now: number, workspace: string | null = null): Promise<number> {
    return importLegacyDatabase(this.db, path, now, workspace);
  }

  async listEvents(runId: string, options: { afterSeq?: number; limit?: number } = {}): Promise<EventRow[]> {
    const rows = this.q(
        `SELECT run_id, seq, at, type, iteration, payload_json AS payload FROM events
         WHERE run_id = :runId AND seq > :after ORDER BY seq LIMIT :limit`,
      )
      .all({ runId, after: options.afterSeq ?? 0, limit: options.limit ?? -1 });
    return rows.map((row) => eventRowSchema.parse(row));
  }

  async recordCheckpoint(c: NewCheckpoint): Promise<CheckpointRow> {
    const row = this.q(
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
      });
    return checkpointRowSchema.parse(row);
  }

  async listCheckpoints(runId: string): Promise<CheckpointRow[]> {
    const rows = this.q(`SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE run_id = :runId ORDER BY id`).all({ runId });
    return rows.map((row) => checkpointRowSchema.parse(row));
  }

  async recordError(e: NewError): Promise<ErrorRow> {
    const row = this.q(
        `INSERT INTO errors (run_id, iteration, kind, message, context_json, created_at)
         VALUES (:run_id, :iteration, :kind, :message, :context, :created_at)
         RETURNING id, run_id, iteration, kind, message, context_json AS context, created_at`,
      )
      .get({
        run_id: e.run_id,
        iteration: e.iteration ?? null,
        kind: e.kind,
        message: e.message,
        context: e.context === undefined ? null : JSON.stringify(e.context),
        created_at: e.created_at,
      });
    return errorRowSchema.parse(row);
  }

  async listErrors(runId: string): Promise<ErrorRow[]> {
    const rows = this.q(
        `SELECT id, run_id, iteration, kind, message, context_json AS context, created_at FROM errors
         WHERE run_id = :runId ORDER BY id`,
      )
      .all({ runId });
    return rows.map((row) => errorRowSchema.parse(row));
  }

  async stats(options: { runId?: string; workspace?: string } = {}): Promise<StoreStats> {
    return queryStats(this.db, options.runId ?? null, options.workspace ?? null);
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

  /** A prepared statement, cached per SQL text (the per-iteration writes reuse theirs). */
  private q(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private run(sql: string, params: Params): { changes: number } {
    try {
      const result = this.q(sql).run(params);
      return { changes: Number(result.changes) };
    } catch (error) {
      throw storeErrorFrom(error, this.path) ?? error;
    }
  }

  private tx<T>(fn: () => T): T {
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      throw storeErrorFrom(error, this.path) ?? error;
    }
    try {
      const result = fn();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw storeErrorFrom(error, this.path) ?? error;
    }
  }

  private readRun(id: string): RunRow | null {
    const row = this.q(`${RUN_SELECT} WHERE r.id = :id`).get({ id });
    return row === undefined ? null : runRowSchema.parse(row);
  }

  private mustGetRun(id: string): RunRow {
    const run = this.readRun(id);
    if (!run) throw new StoreError(`no run ${id}`);
    return run;
  }

  private readIteration(runId: string, number: number): IterationRow | null {
    const row = this.q('SELECT * FROM iterations WHERE run_id = :runId AND number = :number').get({ runId, number });
    return row === undefined ? null : iterationRowSchema.parse(row);
  }

  private openOwner(runId: string, owner: Owner, now: number): void {
    this.run(
      `INSERT INTO run_owners (run_id, seq, pid, host, started_at, heartbeat_at, ended_at)
       SELECT :runId, COALESCE(MAX(seq), 0) + 1, :pid, :host, :now, :now, NULL FROM run_owners WHERE run_id = :runId`,
      { runId, pid: owner.pid, host: owner.host, now },
    );
  }

  private touchOwner(runId: string, now: number): void {
    this.run('UPDATE run_owners SET heartbeat_at = MAX(heartbeat_at, :now) WHERE run_id = :runId AND ended_at IS NULL', {
      runId,
      now,
    });
  }

  /** Closes `running` iterations as interrupted at `at` (their usage, if any was recorded, is kept). */
  private interruptRunning(runId: string, at: number): number[] {
    const rows = this.q(
        `UPDATE iterations SET status = 'interrupted', completed_at = MAX(started_at, :at),
           duration_ms = MAX(started_at, :at) - started_at, error_kind = 'interrupted',
           error_message = COALESCE(error_message, :message)
         WHERE run_id = :runId AND status = 'running' RETURNING number`,
      )
      .all({ runId, at, message: INTERRUPTED_MESSAGE }) as Array<{ number: number }>;
    return rows.map((r) => r.number).sort((a, b) => a - b);
  }
}
