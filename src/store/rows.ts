// Row shapes of the store, validated with zod at the database boundary. Field names are snake_case
// like the database columns and the JSON the CLI prints. Timestamps are epoch milliseconds.
import { z } from 'zod';
import { ERROR_KINDS, RUN_STATUSES, STOP_REASONS } from '../core/types.js';
import type { RunStatus } from '../core/types.js';

/** Stored run statuses (RunStatus); `orphaned` is derived at read time, never stored. */
export { RUN_STATUSES };

/** Statuses of one iteration row: `running` from start until completion. */
/**
 * The error message of a row closed as interrupted because the process driving it ended (a crash, kill -9): nobody
 * saw the end of its agent's output, so its cost, if any, is what was reported while it ran (cost_so_far), a
 * lower bound: such a row counts as a cost not (fully) known.
 */
export const INTERRUPTED_MESSAGE = 'the process driving the run ended during this iteration (crash, kill or stop)';

/** SQL condition on an iteration row `i` (a prefix like `i.`, or '') whose cost is not (fully) known. */
export function costUnknownSql(i: string): string {
  return `((${i}cost_usd IS NULL AND ${i}status <> 'running') OR (${i}status = 'interrupted' AND ${i}error_message = '${INTERRUPTED_MESSAGE}'))`;
}

/** The same for a row in hand. */
export function costUnknownRow(row: { cost_usd: number | null; status: string; error_message: string | null }): boolean {
  return (row.cost_usd === null && row.status !== 'running') || (row.status === 'interrupted' && row.error_message === INTERRUPTED_MESSAGE);
}

export const ITERATION_STATUSES = ['running', 'success', 'failure', 'complete', 'waiting', 'interrupted'] as const;

/** Status of one iteration row. */
export type IterationStatus = (typeof ITERATION_STATUSES)[number];

/** What happened to one checkpoint attempt; `rollback` = the commit made by `ringmaster rollback`. */
export const CHECKPOINT_STATES = ['committed', 'unchanged', 'failed', 'rollback'] as const;

/** State of one checkpoint row. */
export type CheckpointState = (typeof CHECKPOINT_STATES)[number];


const int = z.number().int();
const ms = z.number().int().nonnegative();
const bool01 = z.union([z.literal(0), z.literal(1)]).transform((v) => v === 1);
const json = z.string().transform((text, ctx) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'invalid JSON' });
    return z.NEVER;
  }
});

/**
 * The verify gate's evidence on an iteration (`run --verify`): the command as written, how it ended (exit_code
 * null: killed at its timeout or never started; `summary` says which), how long it ran, the end of its output.
 */
export const verifyRecordSchema = z.lazy(() =>
  z.object({
    command: z.string(),
    passed: z.boolean(),
    exit_code: int.nullable(),
    duration_ms: ms,
    /** 'exited 1', 'timed out after 10s (killed)', 'could not start: command not found: x'. */
    summary: z.string(),
    output_tail: z.string(),
  }),
);

/** The verify gate's evidence on an iteration. */
export type VerifyRecord = z.infer<typeof verifyRecordSchema>;

/** A run's program definition as stored (JSON text of an object). */
export const definitionSchema = json.pipe(z.record(z.string(), z.unknown()));

/** A run as stored, plus its current owner (the open owner row, if any). */
export const runRowSchema = z.lazy(() =>
  z.object({
    id: z.string().min(1),
    status: z.enum(RUN_STATUSES),
    stop_reason: z.enum(STOP_REASONS).nullable(),
    agent: z.string(),
    kind: z.string(),
    origin: z.string(),
    spec: json,
    meta: json.pipe(z.record(z.string(), z.unknown())),
    workspace: z.string(),
    worktree: z.string().nullable(),
    branch: z.string().nullable(),
    created_at: ms,
    updated_at: ms,
    ended_at: ms.nullable(),
    owner_pid: int.nullable(),
    owner_host: z.string().nullable(),
    heartbeat_at: ms.nullable(),
  }),
);

/** One run row. `spec` is the run's resolved configuration (no env, no keys). */
export type RunRow = z.infer<typeof runRowSchema>;

/** One changed path of an iteration. */
export const fileChangeRowSchema = z.lazy(() => z.object({ path: z.string(), change: z.enum(['added', 'modified', 'deleted']) }));

/** One changed path of an iteration. */
export type FileChangeRow = z.infer<typeof fileChangeRowSchema>;

function parseFileChanges(text: string, ctx: z.RefinementCtx): FileChangeRow[] {
  try {
    return z.array(fileChangeRowSchema).parse(JSON.parse(text));
  } catch {
    ctx.addIssue({ code: 'custom', message: 'files_changed is not a JSON list of {path, change}' });
    return z.NEVER;
  }
}

/** One iteration row: written when the agent starts, completed when it ends (whatever the outcome). */
export const iterationRowSchema = z.lazy(() =>
  z.object({
    run_id: z.string(),
    number: int.positive(),
    agent: z.string(),
    status: z.enum(ITERATION_STATUSES),
    started_at: ms,
    completed_at: ms.nullable(),
    duration_ms: ms.nullable(),
    exit_code: int.nullable(),
    exit_signal: z.string().nullable(),
    tokens_in: ms.nullable(),
    tokens_out: ms.nullable(),
    cache_read: ms.nullable(),
    cache_write: ms.nullable(),
    cost_usd: z.number().nonnegative().nullable(),
    completion_signal_found: bool01,
    failure_signal_found: bool01,
    error_kind: z.enum(ERROR_KINDS).nullable(),
    error_message: z.string().nullable(),
    session_id: z.string().nullable(),
    model: z.string().nullable(),
    log_path: z.string().nullable(),
    /** The unit of work (task id, workflow step) the iteration belongs to; null for plain loops. */
    unit_id: z.string().nullable(),
    /** The trees of the worktree before and after the iteration (loop.track_changes); null when not tracked. */
    tree_before: z.string().nullable().default(null),
    tree_after: z.string().nullable().default(null),
    /** The first 1,000 paths it added, modified or deleted; null when not tracked. */
    files_changed: z.string().nullable().default(null).transform((text, ctx) => (text === null ? null : parseFileChanges(text, ctx))),
    files_changed_total: int.nonnegative().nullable().default(null),
    /** The ref keeping the attempt when its changes were discarded (loop.discard_failed). */
    discarded_ref: z.string().nullable().default(null),
    /** The verify gate's evidence when its check ran after this iteration (JSON text in the column); null = no check ran. */
    verify: json.pipe(verifyRecordSchema).nullable(),
  }),
);

/** One iteration row. Null tokens/cost = unknown (never silently 0). */
export type IterationRow = z.infer<typeof iterationRowSchema>;

/** One event of a run, ordered by `seq` (1, 2, 3, ... per run). */
export const eventRowSchema = z.lazy(() =>
  z.object({
    run_id: z.string(),
    seq: int.positive(),
    at: ms,
    type: z.string().min(1),
    iteration: int.positive().nullable(),
    payload: json,
  }),
);

/** One event row. */
export type EventRow = z.infer<typeof eventRowSchema>;

/** An event row with its global insertion id (for "every event since id N" across runs). */
export type EventRowWithId = EventRow & { id: number };

/** One checkpoint row: a git commit made (or attempted) by ringmaster. */
export const checkpointRowSchema = z.lazy(() =>
  z.object({
    id: int.positive(),
    run_id: z.string(),
    iteration: int.nonnegative(),
    commit_sha: z.string().nullable(),
    state: z.enum(CHECKPOINT_STATES),
    message: z.string().nullable(),
    /** The loop state when the checkpoint was taken (the loop snapshot: core/snapshot.ts); null for older rows. */
    snapshot: z.string().nullable().transform((t) => (t === null ? null : (JSON.parse(t) as unknown))),
    created_at: ms,
  }),
);

/** One checkpoint row. */
export type CheckpointRow = z.infer<typeof checkpointRowSchema>;

/** One recorded error (for debugging: kind, message, context). */
export const errorRowSchema = z.lazy(() =>
  z.object({
    id: int.positive(),
    run_id: z.string(),
    iteration: int.positive().nullable(),
    kind: z.string(),
    message: z.string(),
    context: z.string().nullable().transform((t) => (t === null ? null : (JSON.parse(t) as unknown))),
    created_at: ms,
  }),
);

/** One error row. */
export type ErrorRow = z.infer<typeof errorRowSchema>;

/** Actions another process can ask of a run's owner. */
export const CONTROL_ACTIONS = ['pause', 'resume', 'stop', 'extend'] as const;

/** One control action. */
export type ControlAction = (typeof CONTROL_ACTIONS)[number];

/** What a control request may carry: the actions, and `note` (a note was added: its owner announces it). */
export const REQUEST_ACTIONS = [...CONTROL_ACTIONS, 'note'] as const;

/** The action of a stored control request. */
export type RequestAction = (typeof REQUEST_ACTIONS)[number];

/** A control request: written by anyone, picked up and answered by the run's owner. */
export const controlRowSchema = z.lazy(() =>
  z.object({
    id: int.positive(),
    run_id: z.string(),
    action: z.enum(REQUEST_ACTIONS),
    options: json.pipe(z.record(z.string(), z.unknown())),
    requested_by: z.string().nullable(),
    requested_at: ms,
    handled_at: ms.nullable(),
    result: z.string().nullable(),
  }),
);

/** One control request row. */
export type ControlRow = z.infer<typeof controlRowSchema>;

/**
 * A note to a run (notes.md): written by anyone, delivered once in the prompt of the next iteration that starts
 * (`delivered_iteration`), or withdrawn before (`cancelled_at`). Pending: neither.
 */
export const noteRowSchema = z.lazy(() =>
  z.object({
    id: int.positive(),
    run_id: z.string(),
    text: z.string(),
    created_by: z.string().nullable(),
    created_at: ms,
    delivered_iteration: int.positive().nullable(),
    delivered_at: ms.nullable(),
    cancelled_at: ms.nullable(),
  }),
);

/** One note row. */
export type NoteRow = z.infer<typeof noteRowSchema>;

/** Totals of a run, always computed from its iteration and owner rows (never stored twice). */
export const runTotalsSchema = z.lazy(() =>
  z.object({
    iterations: int.nonnegative(),
    last_iteration: int.nonnegative(),
    cost_usd: z.number().nonnegative(),
    cost_unknown: z.boolean(),
    tokens_in: ms,
    tokens_out: ms,
    cache_read: ms,
    cache_write: ms,
    duration_ms: ms,
    runtime_ms: ms,
    consecutive_failures: int.nonnegative(),
  }),
);

/** Totals of a run. See docs/durability.md#totals for each field. */
export type RunTotals = z.infer<typeof runTotalsSchema>;

/** A run with its totals (what `ringmaster runs` lists). */
export type RunWithTotals = RunRow & { totals: RunTotals };

/** Cost and iteration count of one run (stats). */
export interface RunCost {
  run_id: string;
  status: RunStatus;
  iterations: number;
  cost_usd: number;
  cost_unknown: boolean;
}

/** Cost of the iterations started in one UTC hour (stats). */
export interface HourCost {
  /** Start of the hour, epoch ms (UTC). */
  hour: number;
  iterations: number;
  cost_usd: number;
  /** Some finished iteration of the hour has no known cost: cost_usd is a lower bound. */
  cost_unknown: boolean;
}

/** The metrics queries of `stats`: cost per run, average iterations to completion, cost by hour. */
export interface StoreStats {
  cost_per_run: RunCost[];
  /** Average iteration number at which the completion signal was found; null when no run completed. */
  avg_iterations_to_completion: number | null;
  completed_runs: number;
  cost_by_hour: HourCost[];
  total_cost_usd: number;
  total_iterations: number;
}
