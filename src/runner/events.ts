// Run events: one zod schema shared by `--json`, the events table and the WebSocket. Every stored event
// carries the run id and a per-run sequence number (gap-free, in the order emitted and stored). Agent
// activity (output chunks, tool calls) is live only: never stored, no seq.
import { z } from 'zod';
import { ERROR_KINDS, RUN_STATUSES, STOP_REASONS } from '../core/types.js';
import { NOTIFY_EVENTS } from '../core/notify-events.js';
import { verifyRecordSchema } from '../store/rows.js';

const ms = z.number().int().nonnegative();
const count = z.number().int().nonnegative();
const nullableCount = count.nullable();
const outcome = z.enum(['success', 'failure', 'complete', 'waiting', 'interrupted']);
const waitReason = z.enum(['usage_limit', 'rate_limit', 'overloaded', 'budget']);

/** The unit of work (task, workflow step) an iteration belongs to, when the run has units. */
export const eventUnitSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    title: z.string(),
    iteration: z.number().int().positive(),
    max_iterations: z.number().int().positive().nullable(),
  }),
);

/** One path an iteration added, modified or deleted (relative to the directory the agent worked in). */
export const fileChangeSchema = z.lazy(() => z.object({ path: z.string(), change: z.enum(['added', 'modified', 'deleted']) }));

/**
 * What an iteration changed (loop.track_changes): the trees of the worktree before and after it, the first 1,000
 * changed paths and their total, and the ref that keeps the attempt when it was discarded (loop.discard_failed).
 */
export const iterationChangesSchema = z.lazy(() =>
  z.object({
    tree_before: z.string(),
    tree_after: z.string(),
    files_changed: z.array(fileChangeSchema),
    files_changed_total: count,
    discarded_ref: z.string().nullable(),
  }),
);

/** A workflow loop as events describe it. */
const workflowLoopSchema = z.lazy(() => z.object({ until: z.string(), max_iterations: z.number().int().positive(), fresh_context: z.boolean() }));

/** Fields every stored event has. `time` is epoch milliseconds. */
const envelope = { run_id: z.string().min(1), seq: z.number().int().positive(), time: ms };

function event<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.object({ type: z.literal(type), ...envelope, ...shape });
}

/** Totals carried by the terminal event. */
const finishShape = () => ({
  status: z.enum(RUN_STATUSES),
  stop_reason: z.enum(STOP_REASONS),
  iterations: count,
  total_ms: ms,
  cost_usd: z.number().nonnegative(),
  cost_unknown: z.boolean(),
  tokens_in: count,
  tokens_out: count,
  consecutive_failures: count,
  failure_threshold: count,
  max_iterations: nullableCount,
  message: z.string().nullable(),
});

/** The run and its iterations: start, queue, output figures, errors, checkpoints, waits. */
const runEvents = () =>
  [
    event('run_started', {
      kind: z.string(),
      label: z.string(),
      max_iterations: nullableCount,
      workspace: z.string(),
      agent: z.string(),
      resumed: z.boolean(),
    }),
    event('run_queued', { position: count, workspace: z.string(), agent: z.string(), label: z.string() }),
    event('iteration_started', {
      iteration: z.number().int().positive(),
      max_iterations: nullableCount,
      agent: z.string(),
      log_path: z.string(),
      unit: eventUnitSchema.nullable(),
    }),
    event('completion_signal_detected', { iteration: z.number().int().positive() }),
    event('iteration_completed', {
      iteration: z.number().int().positive(),
      max_iterations: nullableCount,
      outcome,
      duration_ms: ms,
      exit_code: z.number().int().nullable(),
      exit_signal: z.string().nullable(),
      consecutive_failures: count,
      failure_threshold: count,
      completion_signal_found: z.boolean(),
      failure_signal_found: z.boolean(),
      error_kind: z.enum(ERROR_KINDS),
      error_message: z.string().nullable(),
      tokens_in: nullableCount,
      tokens_out: nullableCount,
      cache_read: nullableCount,
      cache_write: nullableCount,
      cost_usd: z.number().nonnegative().nullable(),
      session_id: z.string().nullable(),
      model: z.string().nullable(),
      malformed_lines: count,
      agent: z.string(),
      unit: eventUnitSchema.nullable(),
      /** Absent or null: not tracked (no git workspace, loop.track_changes off, or the snapshot failed). */
      changes: iterationChangesSchema.nullable().optional(),
      /** The verify gate's evidence when its check ran after this iteration (absent: no check ran). */
      verify: verifyRecordSchema.optional(),
    }),
    event('tokens_used', {
      iteration: z.number().int().positive(),
      tokens_in: count,
      tokens_out: count,
      cache_read: count,
      cache_write: count,
    }),
    event('cost_incurred', { iteration: z.number().int().positive(), cost_usd: z.number().nonnegative(), total_cost_usd: z.number().nonnegative() }),
    /**
     * What a running iteration has cost so far (from the usage its agent streams), at most every few seconds:
     * `total_cost_usd` is the run's recorded cost plus what every running iteration has spent so far.
     */
    event('cost_so_far', { iteration: z.number().int().positive(), cost_usd: z.number().nonnegative(), total_cost_usd: z.number().nonnegative() }),
    event('error', {
      iteration: z.number().int().positive().nullable(),
      kind: z.string(),
      message: z.string(),
      consecutive_failures: count,
      /** How many iterations in a row before this one failed (or, for an overload or a limit, waited) too. */
      retry_count: count.optional(),
      /** The agent's last output lines (at most 10). */
      last_output: z.array(z.string()).optional(),
    }),
    event('circuit_breaker_tripped', { consecutive_failures: count, failure_threshold: count }),
    event('checkpoint_created', {
      iteration: count,
      commit_sha: z.string().nullable(),
      state: z.enum(['committed', 'unchanged', 'failed', 'rollback']),
    }),
    event('waiting', { iteration: z.number().int().positive(), until: ms, reason: waitReason }),
  ] as const;

/** Budget, agents, controls, warnings, the sandbox, rollbacks, hooks and programs. */
const controlEvents = () =>
  [
    /**
     * The shared budget's spend reached `percent` (80, 100) of a window's limit (README "Budget"): emitted by the one
     * run, of every process using the store, that claimed it first; notified as `budget` (notify.on).
     */
    event('budget_threshold', {
      window: z.enum(['daily', 'monthly']),
      percent: z.number().int().positive(),
      spent_usd: z.number().nonnegative(),
      limit_usd: z.number().nonnegative(),
      resets_at: ms,
    }),
    event('agent_switched', { from: z.string(), to: z.string(), reason: z.string() }),
    event('agent_install', { agent: z.string(), package: z.string(), dir: z.string(), phase: z.enum(['installing', 'installed']), duration_ms: ms }),
    event('pause_requested', { by: z.string().nullable(), now: z.boolean() }),
    event('paused', { after_iteration: count, by: z.string().nullable(), suspended: z.boolean() }),
    event('resumed', { paused_ms: ms }),
    event('stop_requested', { by: z.string().nullable() }),
    event('limits_changed', { max_iterations: nullableCount, by: z.string().nullable() }),
    event('warning', { message: z.string() }),
    /** A connection the iteration's sandbox refused (sandbox.network): the host and port the agent tried. */
    event('sandbox_blocked', { iteration: z.number().int().positive(), host: z.string(), port: z.number().int().nonnegative() }),
    event('rollback', {
      to_iteration: count,
      target_sha: z.string(),
      commit_sha: z.string().nullable(),
      discarded: z.array(z.string()),
    }),
    event('hook_decision', {
      decision: z.enum(['allow', 'block']),
      reason: z.string(),
      iteration: nullableCount,
      max_iterations: nullableCount,
      session_id: z.string().nullable(),
      stop_hook_active: z.boolean().nullable(),
      warning: z.string().nullable(),
    }),
    event('program', { name: z.string(), data: z.record(z.string(), z.unknown()) }),
  ] as const;

/** Workflows (docs/workflows.md). */
const workflowEvents = () =>
  [
    // Workflows (docs/workflows.md): the workflow's shape at start, each step's start and end, a loop ending by its signal.
    event('workflow_started', {
      name: z.string(),
      workflow_kind: z.enum(['steps', 'loop']),
      user_message: z.string(),
      steps: z.array(z.object({ name: z.string(), agent: z.string(), loop: workflowLoopSchema.nullable() })),
    }),
    event('step_started', {
      step: z.number().int().positive(),
      steps: z.number().int().positive(),
      name: z.string(),
      agent: z.string(),
      loop: workflowLoopSchema.nullable(),
    }),
    event('step_completed', {
      step: z.number().int().positive(),
      steps: z.number().int().positive(),
      name: z.string(),
      status: z.enum(['completed', 'failed']),
      iterations: count,
      cost_usd: z.number().nonnegative(),
      cost_unknown: z.boolean(),
      runtime_ms: ms,
      message: z.string().nullable(),
    }),
    event('loop_completed', {
      step: z.number().int().positive(),
      name: z.string(),
      iterations: z.number().int().positive(),
      max_iterations: z.number().int().positive(),
      until: z.string(),
      by: z.enum(['signal', 'until_command']),
    }),
  ] as const;

/** Task loops (docs/tasks.md). */
const taskEvents = () =>
  [
    // Task loops (docs/tasks.md): a task taken up, its completion check, its end (done or blocked), anomalies.
    event('task_started', {
      task_id: z.string(),
      title: z.string(),
      /** The commit the task started from (its rollback target); null outside git. */
      base: z.string().nullable(),
      /** True when a resumed run takes up the task it was working on. */
      resumed: z.boolean(),
      tasks_started: count,
      max_tasks: count,
      /** A parallel task's own worktree (tasks.parallelism above 1); absent when tasks run one at a time. */
      worktree: z.string().optional(),
      /** The branch of that worktree. */
      branch: z.string().optional(),
    }),
    event('task_check', {
      task_id: z.string(),
      iteration: z.number().int().positive(),
      check_type: z.enum(['test', 'file_exists', 'validate']),
      passed: z.boolean(),
      summary: z.string(),
    }),
    event('task_completed', {
      task_id: z.string(),
      title: z.string(),
      iterations: count,
      cost_usd: z.number().nonnegative(),
      cost_unknown: z.boolean(),
      duration_ms: ms,
      /** The task's commit; null outside git or when nothing changed. */
      commit_sha: z.string().nullable(),
    }),
    event('task_blocked', {
      task_id: z.string(),
      title: z.string(),
      reason: z.string(),
      iterations: count,
      cost_usd: z.number().nonnegative(),
      cost_unknown: z.boolean(),
      duration_ms: ms,
      /** The branch keeping the failed attempt; null when nothing was rolled back. */
      failed_branch: z.string().nullable(),
      /** The commit the workspace was rolled back to; null when nothing was rolled back. */
      rolled_back_to: z.string().nullable(),
    }),
    event('task_anomaly', {
      task_id: z.string(),
      iteration: z.number().int().positive(),
      kind: z.enum(['stalled', 'repeated_output']),
      message: z.string(),
    }),
  ] as const;

/** Notes, the run's end and its notifications. */
const endEvents = () =>
  [
    /** A note to the run was written (docs/notes.md): `by` who ('user', 'api 127.0.0.1'); `text` redacted. */
    event('note_added', { note_id: z.number().int().positive(), text: z.string(), by: z.string().nullable() }),
    /** A note reached the prompt of `iteration` (again, when the iteration it reached first was interrupted). */
    event('note_delivered', { note_id: z.number().int().positive(), iteration: z.number().int().positive() }),
    event('completed', { stop_reason: z.enum(STOP_REASONS) }),
    event('stopped', { stop_reason: z.enum(STOP_REASONS) }),
    event('failed', { stop_reason: z.enum(STOP_REASONS), message: z.string().nullable() }),
    event('run_finished', finishShape()),
    /**
     * A notification's delivery (README.md#notifications): to one target (`slack https://hooks.slack.com/…`, never
     * the secret URL), delivered or failed after `attempts` tries; `answer`: what the target said (HTTP status, exit
     * code); `reason`: why it failed. A run's end is notified after run_finished, so these may follow it.
     */
    event('notification', {
      event: z.enum(NOTIFY_EVENTS),
      target: z.string(),
      status: z.enum(['delivered', 'failed']),
      attempts: count,
      answer: z.string().nullable(),
      reason: z.string().nullable(),
    }),
  ] as const;

/**
 * Every run event type (the manager's event types, plus waiting, agent switches, warnings and the terminal summary).
 * Built on first use (z.lazy): ~470 zod nodes that a CLI run, which writes events without reading them back, does
 * not need (bench/FINDINGS.md, start-up).
 */
export const runEventSchema = z.lazy(() => z.discriminatedUnion('type', [...runEvents(), ...controlEvents(), ...workflowEvents(), ...taskEvents(), ...endEvents()]));

/** One stored run event. */
export type RunEvent = z.infer<typeof runEventSchema>;

/** Names of the event types. */
export type RunEventType = RunEvent['type'];

/** An event as emitted by the loop, before the run's event stream stamps run_id and seq. */
export type RunEventBody = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'run_id' | 'seq'> : never) : never;

/** The body of one event type. */
export type EventBodyOf<T extends RunEventType> = Omit<Extract<RunEvent, { type: T }>, 'run_id' | 'seq'>;

/** Receives stamped run events in order. Must not throw; a slow consumer slows the run. */
export type RunEventSink = (event: RunEvent) => void;

/** Receives event bodies (what the loop emits before stamping). */
export type RunEventBodySink = (event: RunEventBody) => void;

/** What the agent is doing right now: live only (WebSocket, --verbose), bounded, never stored. */
export const agentActivitySchema = z.lazy(() =>
  z.discriminatedUnion('kind', [
    /** Raw output of a plain-text agent, or stderr of any agent; `offset`: where it starts in the iteration's log. */
    z.object({ kind: z.literal('output'), iteration: z.number().int().positive(), time: ms, stream: z.enum(['stdout', 'stderr']), offset: count, text: z.string() }),
    /**
     * Assistant text of a structured (JSON lines) agent. `index` numbers the structured activity of an iteration
     * (text, tool calls, tool results) from 0: reading the log back (GET /api/runs/:id/activity) gives the same numbers.
     */
    z.object({ kind: z.literal('text'), iteration: z.number().int().positive(), time: ms, index: count, text: z.string() }),
    z.object({ kind: z.literal('tool_call'), iteration: z.number().int().positive(), time: ms, index: count, name: z.string(), input: z.string() }),
    z.object({ kind: z.literal('tool_result'), iteration: z.number().int().positive(), time: ms, index: count, name: z.string().nullable(), output: z.string(), is_error: z.boolean() }),
  ]),
);

/** One piece of live agent activity. */
export type AgentActivity = z.infer<typeof agentActivitySchema>;

/** Activity as one iteration reports it (the loop adds the iteration number and the time). */
export type AgentActivityBody = AgentActivity extends infer A ? (A extends AgentActivity ? Omit<A, 'iteration' | 'time'> : never) : never;

/** Receives live agent activity. */
export type AgentActivitySink = (activity: AgentActivity) => void;

/** The event types that end a run's stream. */
export function isFinalEvent(event: { type: string }): boolean {
  return event.type === 'run_finished';
}

/** A stream that stamps event bodies with the run id and the next seq, then hands them to its sinks in order. */
export interface RunEventStream {
  readonly runId: string;
  /** Last seq handed out (0 before the first event). */
  readonly lastSeq: number;
  emit(body: RunEventBody): RunEvent;
}

/** Creates a run's event stream continuing after `lastSeq` (0 for a new run, the stored last seq on resume). */
export function createEventStream(runId: string, lastSeq: number, sink: RunEventSink): RunEventStream {
  let seq = lastSeq;
  return {
    runId,
    get lastSeq() {
      return seq;
    },
    emit(body) {
      seq += 1;
      const stamped: RunEvent = { ...body, run_id: runId, seq };
      sink(stamped);
      return stamped;
    },
  };
}
