// The Store contract: everything a run persists. SQLite (sqlite/store.ts) and PostgreSQL (postgres/store.ts)
// implement it and pass the same contract suite (test/store/store-contract.ts).
import type { ErrorKind, RunStatus, StopReason } from '../core/types.js';
import type { StoreMetrics } from './metrics-sql.js';
import type { BudgetChange, BudgetRow, BudgetWindowKey, SpendRow } from './budget-rows.js';
import type {
  CheckpointRow,
  CheckpointState,
  ControlRow,
  ErrorRow,
  EventRow,
  EventRowWithId,
  IterationRow,
  IterationStatus,
  NoteRow,
  RequestAction,
  RunRow,
  RunTotals,
  RunWithTotals,
  StoreStats,
  VerifyRecord,
} from './rows.js';

/** The process that drives a run: pid + hostname (pids only mean something on their own host). */
export interface Owner {
  pid: number;
  host: string;
}

/**
 * The owner a write is made for. Given to a write, the store makes it only while that owner holds the run (its
 * owner row is the open one), checked in the same transaction as the write, and counts it as a renewal of the
 * owner's lease; otherwise the write fails with OwnershipLostError and changes nothing. A process that lost its
 * run to another (a takeover after its lease ran out) can then never overwrite the new owner's rows.
 */
export type Fence = Owner;

/** What createRun needs. `spec` is the resolved run configuration: never put API keys or env in it. */
export interface NewRun {
  id: string;
  agent: string;
  spec: unknown;
  /** What the run runs: 'prompt' (default), 'tasks', 'workflow'. */
  kind?: string;
  /** Program metadata (workflow name, current step, current task...). */
  meta?: Record<string, unknown>;
  /** The program's definition (a workflow's resolved steps): stored once, apart from meta (updateRunDefinition). */
  definition?: Record<string, unknown> | null;
  /** Who started it: 'cli' (default), 'server', 'worker', 'hook'. A server resumes its own runs after a restart. */
  origin?: string;
  /** The workspace's real path: where the user started the run (runs are listed by it). */
  workspace: string;
  /** With --worktree: the directory the agent works in, and its branch. */
  worktree?: string | null;
  branch?: string | null;
  status?: RunStatus;
  /** The process that drives it; null for a run queued for workers (`pending`, no owner until one claims it). */
  owner: Owner | null;
  now: number;
}

/** What startIteration needs; written BEFORE the agent process starts. */
export interface IterationStart {
  run_id: string;
  number: number;
  agent: string;
  started_at: number;
  log_path: string | null;
  /** The unit of work (task id, workflow step) of the iteration. */
  unit_id?: string | null;
}

/** Partial results of a running iteration (usage seen so far), so a kill -9 loses as little as possible. */
export interface IterationProgress {
  tokens_in?: number | null;
  tokens_out?: number | null;
  cache_read?: number | null;
  cache_write?: number | null;
  cost_usd?: number | null;
  session_id?: string | null;
  model?: string | null;
}

/** The result of an iteration, whatever its outcome (failed, timed out and interrupted ones too). */
export interface IterationEnd extends IterationProgress {
  status: Exclude<IterationStatus, 'running'>;
  exit_code: number | null;
  exit_signal?: string | null;
  duration_ms: number;
  completion_signal_found: boolean;
  failure_signal_found?: boolean;
  error_kind: ErrorKind | null;
  error_message: string | null;
  completed_at: number;
  /** The verify gate's evidence (`run --verify`), when its check ran after this iteration. */
  verify?: VerifyRecord | null;
  /** What the iteration changed (loop.track_changes); absent or null when not tracked. */
  changes?: IterationChanges | null;
}

/** An iteration's changes as stored: trees before and after, the first 1,000 paths and the total, a discard's ref. */
export interface IterationChanges {
  tree_before: string;
  tree_after: string;
  files_changed: ReadonlyArray<{ path: string; change: 'added' | 'modified' | 'deleted' }>;
  files_changed_total: number;
  discarded_ref: string | null;
}

/**
 * An event to append. The run's owner gives `seq` (it stamps events as they are emitted: 1, 2, 3, ... per
 * run) and the store writes exactly it; without `seq` the store assigns the next one.
 */
export interface NewEvent {
  run_id: string;
  seq?: number;
  type: string;
  payload: unknown;
  at: number;
  iteration?: number | null;
}

/** A checkpoint attempt to record. */
export interface NewCheckpoint {
  run_id: string;
  iteration: number;
  commit_sha: string | null;
  state: CheckpointState;
  message?: string | null;
  /** The loop state at the checkpoint (the loop snapshot: core/snapshot.ts). */
  snapshot?: unknown;
  created_at: number;
}

/** An error to record (debugging context; the iteration row already has the summary). */
export interface NewError {
  run_id: string;
  iteration?: number | null;
  kind: string;
  message: string;
  context?: unknown;
  created_at: number;
}

/** What claimRun did: the run as now owned, and which iterations it closed as interrupted. */
export interface ClaimResult {
  run: RunRow;
  /** Iteration numbers that were still `running` (their process died) and are now `interrupted`. */
  interrupted: number[];
  /** The owner that held the run before (null when none was open). */
  previous: (Owner & { heartbeat_at: number }) | null;
}

/** Options of claimRun. */
export interface ClaimOptions {
  /** The run's status once claimed (default `running`). */
  status?: RunStatus;
  /**
   * Only take the run if its open owner (if any) has not renewed its lease (heartbeat or fenced write) for this
   * long, measured by the store's clock (the database server's for PostgreSQL), so that machines' clocks are
   * never compared; otherwise RunBusyError (with how long the owner has been silent).
   */
  ifIdleMs?: number;
  /**
   * Only take a run that can go on: active (pending, running, waiting, paused), or stopped because its process
   * went away (`interrupted`); otherwise RunEndedError. Checked under the same lock as the claim, so a stop that
   * lands first is never undone by a worker that fetched the run's job a moment before.
   */
  onlyIfResumable?: boolean;
  /**
   * When the previous owner's agent, found still running, was killed: its running iteration (and the run) went on
   * until then, not only until the owner's last heartbeat (so that its time counts toward the run's runtime).
   */
  agentRanUntil?: number;
}

/** Filters of listRuns / countRuns. */
export interface RunFilter {
  status?: RunStatus | readonly RunStatus[];
  /** Exact workspace key (real path). */
  workspace?: string;
  /** Matches the run id, the workspace path or the run's spec (prompt, label), case-insensitively. */
  text?: string;
  limit?: number;
  offset?: number;
}

/** A control request to write. */
export interface NewControl {
  run_id: string;
  action: RequestAction;
  options?: Record<string, unknown>;
  /** Who asked: 'cli pid 123 on host', 'api 127.0.0.1', ... */
  requested_by?: string | null;
  requested_at: number;
}

/** A note to write (its text already checked and redacted by the caller). */
export interface NewNote {
  run_id: string;
  text: string;
  /** Who wrote it: 'user', 'api 127.0.0.1', ... */
  created_by?: string | null;
  created_at: number;
}

/**
 * The persistence contract. All methods are async so that a networked store fits the same shape.
 * Every method that writes more than one row does it in one transaction.
 */
export interface Store {
  /** Creates a run owned by `owner` (status `running` unless given) and its first owner row. */
  createRun(run: NewRun): Promise<RunRow>;
  /** The run with this exact id, or null. */
  getRun(id: string): Promise<RunRow | null>;
  /** The run whose id is `idOrPrefix` or uniquely starts with it; null when none; throws AmbiguousRunIdError. */
  findRun(idOrPrefix: string): Promise<RunRow | null>;
  /** Runs, newest first, each with totals computed from its rows. */
  listRuns(filter?: RunFilter): Promise<RunWithTotals[]>;
  /** How many runs match the filter (limit and offset ignored). */
  countRuns(filter?: RunFilter): Promise<number>;
  /** Replaces the run's resolved spec (e.g. a raised iteration limit); never put API keys or env in it. */
  updateRunSpec(id: string, spec: unknown, now: number, fence?: Fence): Promise<void>;
  /** Replaces the run's program metadata. */
  updateRunMeta(id: string, meta: Record<string, unknown>, now: number, fence?: Fence): Promise<void>;
  /**
   * Replaces the run's program definition (what does not change from iteration to iteration, e.g. a workflow's
   * steps): written at creation and when a resume changes it, so the metadata written after every iteration stays
   * small whatever the program's size.
   */
  updateRunDefinition(id: string, definition: Record<string, unknown>, now: number, fence?: Fence): Promise<void>;
  /** The run's program definition, or null when it has none. */
  getRunDefinition(id: string): Promise<Record<string, unknown> | null>;
  /** Sets status (e.g. waiting, paused, running) without ending the run. */
  updateRunStatus(id: string, status: RunStatus, now: number, fence?: Fence): Promise<void>;
  /** Ends the run: final status + stop reason, closes the open owner row. */
  finishRun(id: string, end: { status: RunStatus; stop_reason: StopReason | null; now: number }, fence?: Fence): Promise<RunRow>;
  /**
   * Takes ownership of an existing run (resume, stop, recovery, takeover): closes the previous owner row,
   * marks its `running` iterations `interrupted`, sets status `running` (or `options.status`) and opens an
   * owner row for `owner`. One transaction. Unconditional unless `options.ifIdleMs` is given: the caller
   * checks first that the previous owner is dead, or lets the store judge it by the lease.
   */
  claimRun(id: string, owner: Owner, now: number, options?: ClaimOptions): Promise<ClaimResult>;
  /**
   * Gives the run up without ending it (a worker hands it to the next job): closes `owner`'s open row and
   * leaves the status as it is, so the next claimer takes it at once. False when `owner` did not hold it.
   */
  releaseRun(id: string, owner: Owner, now: number): Promise<boolean>;
  /** Records that `owner` is alive (a lease renewal); false when it is no longer the run's open owner (then it must stop). */
  heartbeat(id: string, owner: Owner, now: number): Promise<boolean>;
  // The three iteration writes take the events that follow them (`events`, as appendEvents takes them): written after
  // the row and only if it was, so that a run's writes per iteration are fewer (SQLite: one transaction for both;
  // PostgreSQL: the row's statement, then the events').
  /** Writes the iteration row (status running). Throws StoreError if that number already exists. */
  startIteration(start: IterationStart, fence?: Fence, events?: readonly NewEvent[]): Promise<IterationRow>;
  /** Records usage seen so far in a running iteration. Throws StoreError unless the row is running. */
  updateIteration(runId: string, number: number, progress: IterationProgress, fence?: Fence, events?: readonly NewEvent[]): Promise<void>;
  /** Completes a running iteration row. Throws StoreError unless the row exists and is running. */
  completeIteration(runId: string, number: number, end: IterationEnd, fence?: Fence, events?: readonly NewEvent[]): Promise<IterationRow>;
  /** One iteration row, or null. */
  getIteration(runId: string, number: number): Promise<IterationRow | null>;
  /** A run's iteration rows by number. */
  listIterations(runId: string): Promise<IterationRow[]>;
  /** Totals computed from the rows: they always equal the sum of the iteration rows. */
  runTotals(runId: string): Promise<RunTotals>;
  /** Appends an event with its given seq, or the next per-run sequence number. Throws StoreError on a duplicate seq. */
  appendEvent(event: NewEvent, fence?: Fence): Promise<EventRow>;
  /** Appends events in order in one transaction (all or none), as appendEvent would one by one; returns the rows. */
  appendEvents(events: readonly NewEvent[], fence?: Fence): Promise<EventRow[]>;
  /** Events of a run in order, after `afterSeq` (exclusive), at most `limit`. */
  listEvents(runId: string, options?: { afterSeq?: number; limit?: number }): Promise<EventRow[]>;
  /** The highest seq of a run's events (0 when none). */
  lastEventSeq(runId: string): Promise<number>;
  /** Events of every run in insertion order after global id `afterId`, at most `limit` (for watchers of other processes' runs). */
  listEventsAfterId(afterId: number, limit: number): Promise<EventRowWithId[]>;
  /** The highest global event id (0 when none). */
  lastEventId(): Promise<number>;
  /** Writes a control request for the run's owner. */
  requestControl(request: NewControl): Promise<ControlRow>;
  /** Unanswered control requests of one run (or of every run), oldest first. */
  pendingControls(runId?: string): Promise<ControlRow[]>;
  /** One control request, answered or not. */
  getControl(id: number): Promise<ControlRow | null>;
  /** Answers a control request. */
  markControlHandled(id: number, now: number, result: string): Promise<void>;
  /** Writes a pending note to a run (docs/notes.md). Throws StoreError when the run does not exist. */
  addNote(note: NewNote): Promise<NoteRow>;
  /** A run's notes (pending, delivered and withdrawn), oldest first. */
  listNotes(runId: string): Promise<NoteRow[]>;
  /** Withdraws a pending note; returns the note as it is now (unchanged when already delivered), null when the run has none with this id. */
  cancelNote(runId: string, id: number, now: number): Promise<NoteRow | null>;
  /**
   * Gives `iteration` (starting now) the run's pending notes and those delivered to an iteration that was
   * interrupted, atomically: of iterations starting at once, each note goes to exactly one. The notes taken.
   */
  claimNotes(runId: string, iteration: number, now: number): Promise<NoteRow[]>;
  /** Copies the runs of another (legacy per-workspace) database once; returns how many runs were imported (0 if done before). */
  importDatabase(path: string, now: number, workspace?: string | null): Promise<number>;
  /** Records a checkpoint attempt. */
  recordCheckpoint(checkpoint: NewCheckpoint, fence?: Fence): Promise<CheckpointRow>;
  /** A run's checkpoints, oldest first. */
  listCheckpoints(runId: string): Promise<CheckpointRow[]>;
  /** Records an error with context. */
  recordError(error: NewError, fence?: Fence): Promise<ErrorRow>;
  /** A run's errors, oldest first. */
  listErrors(runId: string): Promise<ErrorRow[]>;
  /** The metrics queries; `runId` restricts them to one run, `workspace` to one workspace's runs. */
  stats(options?: { runId?: string; workspace?: string }): Promise<StoreStats>;
  /** Figures of every run and iteration in the store, for Prometheus (a few aggregate queries). */
  metrics(): Promise<StoreMetrics>;
  /** The shared budget every run of this store is held to (no limits when none was set). */
  getBudget(): Promise<BudgetRow>;
  /** Changes the shared budget (a number sets a limit, null clears it, absent keeps it); returns it as stored. */
  setBudget(change: BudgetChange, now: number): Promise<BudgetRow>;
  /** What the iterations started at or after `sinceMs` cost, by run and agent (running ones: what they reported). */
  spendSince(sinceMs: number): Promise<SpendRow[]>;
  /**
   * Claims the notification of `level` percent (80, 100) of the budget's `window` that started at `windowStart`:
   * true for exactly one caller among every process of the store; false when it was claimed, or no budget is set.
   * Changing the window's limit lets its thresholds be notified again.
   */
  claimBudgetNotice(window: BudgetWindowKey, windowStart: number, level: number): Promise<boolean>;
  /** Closes the connection. */
  close(): Promise<void>;
}
