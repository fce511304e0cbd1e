// The JSON shapes of runs, iterations and checkpoints that every client sees: `ringmaster runs/show --json` and
// the server's REST API print exactly these (snake_case, times as ISO 8601). One zod schema each, so the API's
// OpenAPI document and the dashboard's types come from the same definitions.
import { z } from 'zod';
import { ERROR_KINDS, RUN_STATUSES, STOP_REASONS } from '../core/types.js';
import type { DisplayStatus } from '../store/liveness.js';
import { CHECKPOINT_STATES, ITERATION_STATUSES, fileChangeRowSchema, verifyRecordSchema, type CheckpointRow, type ErrorRow, type IterationRow, type RunRow, type RunTotals } from '../store/rows.js';

const isoTime = z.string().describe('ISO 8601 time');

/** What a run's limits are (from its spec), for budgets shown next to the totals. */
export const runLimitsViewSchema = z.lazy(() =>
  z.object({
    max_iterations: z.number().int().positive().nullable(),
    max_runtime_ms: z.number().int().nonnegative().nullable(),
    max_cost_usd: z.number().nonnegative().nullable(),
    failure_threshold: z.number().int().positive().nullable(),
  }),
);

/** One run with its totals: an item of `runs --json` and of GET /api/runs. */
export const runViewSchema = z.lazy(() =>
  z
    .object({
      id: z.string(),
      status: z.enum([...RUN_STATUSES, 'orphaned']),
      stored_status: z.enum(RUN_STATUSES),
      stop_reason: z.enum(STOP_REASONS).nullable(),
      agent: z.string(),
      kind: z.string(),
      meta: z.record(z.string(), z.unknown()),
      label: z.string().nullable(),
      title: z.string().nullable().describe('what the run works on, for lists: the first line of an inline prompt, else the label'),
      model: z.string().nullable(),
      limits: runLimitsViewSchema,
      iterations: z.number().int().nonnegative(),
      cost_usd: z.number().nonnegative(),
      cost_unknown: z.boolean(),
      tokens_in: z.number().int().nonnegative(),
      tokens_out: z.number().int().nonnegative(),
      cache_read: z.number().int().nonnegative(),
      cache_write: z.number().int().nonnegative(),
      runtime_ms: z.number().int().nonnegative(),
      workspace: z.string(),
      worktree: z.string().nullable(),
      branch: z.string().nullable(),
      created_at: isoTime.nullable(),
      updated_at: isoTime.nullable(),
      ended_at: isoTime.nullable(),
      owner_pid: z.number().int().nullable(),
      owner_host: z.string().nullable(),
      heartbeat_at: isoTime.nullable(),
    })
    .meta({ id: 'Run' }),
);

/** One run as clients see it. */
export type RunView = z.infer<typeof runViewSchema>;

/** One iteration row as clients see it. */
export const iterationViewSchema = z.lazy(() =>
  z
    .object({
      number: z.number().int().positive(),
      status: z.enum(ITERATION_STATUSES),
      exit_code: z.number().int().nullable(),
      exit_signal: z.string().nullable(),
      duration_ms: z.number().int().nonnegative().nullable(),
      tokens_in: z.number().int().nonnegative().nullable(),
      tokens_out: z.number().int().nonnegative().nullable(),
      cache_read: z.number().int().nonnegative().nullable(),
      cache_write: z.number().int().nonnegative().nullable(),
      cost_usd: z.number().nonnegative().nullable(),
      completion_signal_found: z.boolean(),
      failure_signal_found: z.boolean(),
      error_kind: z.enum(ERROR_KINDS).nullable(),
      error_message: z.string().nullable(),
      session_id: z.string().nullable(),
      model: z.string().nullable(),
      agent: z.string(),
      started_at: isoTime.nullable(),
      completed_at: isoTime.nullable(),
      log_path: z.string().nullable(),
      unit_id: z.string().nullable(),
      /** The first 1,000 paths the iteration added, modified or deleted; null when not tracked (loop.track_changes). */
      files_changed: z.array(fileChangeRowSchema).nullable(),
      files_changed_total: z.number().int().nonnegative().nullable(),
      /** The git trees of the worktree before and after the iteration. */
      tree_before: z.string().nullable(),
      tree_after: z.string().nullable(),
      /** The ref keeping the attempt whose changes were discarded (loop.discard_failed), e.g. refs/ringmaster/discarded/<run>/<n>. */
      discarded_ref: z.string().nullable(),
      verify: verifyRecordSchema.meta({ id: 'VerifyCheck' }).nullable().describe("the verify gate's check after this iteration (run --verify); null when none ran"),
    })
    .meta({ id: 'Iteration' }),
);

/** One iteration as clients see it. */
export type IterationView = z.infer<typeof iterationViewSchema>;

/** One checkpoint as clients see it. */
export const checkpointViewSchema = z.lazy(() =>
  z
    .object({
      iteration: z.number().int().nonnegative(),
      commit_sha: z.string().nullable(),
      state: z.enum(CHECKPOINT_STATES),
      message: z.string().nullable(),
      snapshot: z.unknown(),
      created_at: isoTime.nullable(),
    })
    .meta({ id: 'Checkpoint' }),
);

/** One checkpoint as clients see it. */
export type CheckpointView = z.infer<typeof checkpointViewSchema>;

/** An error record as clients see it: kind, message, and its context (retry_count, last_output, exit_code, agent...). */
export const errorViewSchema = z.lazy(() =>
  z
    .object({
      iteration: z.number().int().positive().nullable(),
      kind: z.string(),
      message: z.string(),
      context: z.unknown(),
      created_at: isoTime.nullable(),
    })
    .meta({ id: 'RunError' }),
);

/** One error record as clients see it. */
export type ErrorView = z.infer<typeof errorViewSchema>;

/** An epoch-ms time as ISO 8601, null stays null. */
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

const specLimits = z.lazy(() =>
  z
    .object({
      label: z.string().optional(),
      prompt: z.object({ kind: z.string(), text: z.string().optional() }).loose().optional(),
      agent: z.object({ model: z.string().nullable().optional() }).partial().optional(),
      limits: z
        .object({
          maxIterations: z.number().nullable(),
          maxRuntimeMs: z.number().nullable(),
          maxCostUsd: z.number().nullable(),
          failureThreshold: z.number().nullable(),
        })
        .partial()
        .optional(),
    })
    .loose(),
);

/** The run's view: row, totals and the status to show (`orphaned` when its owner is gone). */
export function runView(run: RunRow, totals: RunTotals, status: DisplayStatus): RunView {
  const spec = specLimits.safeParse(run.spec);
  const s = spec.success ? spec.data : {};
  return {
    id: run.id,
    status,
    stored_status: run.status,
    stop_reason: run.stop_reason,
    agent: run.agent,
    kind: run.kind,
    meta: run.meta,
    label: s.label ?? null,
    title: runTitle(s.prompt?.kind === 'text' ? (s.prompt.text ?? null) : null, s.label ?? null),
    model: s.agent?.model ?? null,
    limits: {
      max_iterations: s.limits?.maxIterations ?? null,
      max_runtime_ms: s.limits?.maxRuntimeMs ?? null,
      max_cost_usd: s.limits?.maxCostUsd ?? null,
      failure_threshold: s.limits?.failureThreshold ?? null,
    },
    iterations: totals.iterations,
    cost_usd: totals.cost_usd,
    cost_unknown: totals.cost_unknown,
    tokens_in: totals.tokens_in,
    tokens_out: totals.tokens_out,
    cache_read: totals.cache_read,
    cache_write: totals.cache_write,
    runtime_ms: totals.runtime_ms,
    workspace: run.workspace,
    worktree: run.worktree,
    branch: run.branch,
    created_at: iso(run.created_at),
    updated_at: iso(run.updated_at),
    ended_at: iso(run.ended_at),
    owner_pid: run.owner_pid,
    owner_host: run.owner_host,
    heartbeat_at: iso(run.heartbeat_at),
  };
}

/** Longest title of a run (characters). */
const TITLE_MAX = 120;

/** A run's title: the first non-empty line of an inline prompt (shortened), else its label. */
export function runTitle(promptText: string | null, label: string | null): string | null {
  const line = promptText?.split('\n').map((l) => l.trim()).find((l) => l !== '');
  if (line === undefined) return label;
  return line.length > TITLE_MAX ? `${line.slice(0, TITLE_MAX - 1)}…` : line;
}

/** An iteration row's view. */
export function iterationView(row: IterationRow): IterationView {
  return {
    number: row.number,
    status: row.status,
    exit_code: row.exit_code,
    exit_signal: row.exit_signal,
    duration_ms: row.duration_ms,
    tokens_in: row.tokens_in,
    tokens_out: row.tokens_out,
    cache_read: row.cache_read,
    cache_write: row.cache_write,
    cost_usd: row.cost_usd,
    completion_signal_found: row.completion_signal_found,
    failure_signal_found: row.failure_signal_found,
    error_kind: row.error_kind,
    error_message: row.error_message,
    session_id: row.session_id,
    model: row.model,
    agent: row.agent,
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    log_path: row.log_path,
    unit_id: row.unit_id,
    files_changed: row.files_changed,
    files_changed_total: row.files_changed_total,
    tree_before: row.tree_before,
    tree_after: row.tree_after,
    discarded_ref: row.discarded_ref,
    verify: row.verify,
  };
}

/** An error row as clients see it. */
export function errorView(row: ErrorRow): ErrorView {
  return { iteration: row.iteration, kind: row.kind, message: row.message, context: row.context, created_at: iso(row.created_at) };
}

/** A checkpoint row's view. */
export function checkpointView(row: CheckpointRow): CheckpointView {
  return { iteration: row.iteration, commit_sha: row.commit_sha, state: row.state, message: row.message, snapshot: row.snapshot, created_at: iso(row.created_at) };
}
