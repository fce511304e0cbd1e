// The one module that says what the server's API carries: schemas of every REST payload and WebSocket
// message the dashboard reads or sends, and the types inferred from them. Everything else in web/ imports
// API shapes from here only, so aligning with the server's own zod schemas (src/server) is a change to
// this file alone: it re-exports them instead of declaring them.
import { z } from 'zod';
import { RUN_STATUSES, STOP_REASONS } from '../../../src/core/types.js';
import { agentActivitySchema, runEventSchema } from '../../../src/runner/events.js';
import { CHECKPOINT_STATES, ITERATION_STATUSES } from '../../../src/store/rows.js';

/** Stored run events (one schema for --json, the events table and the WebSocket) and live agent activity. */
export { agentActivitySchema, runEventSchema, type AgentActivity, type RunEvent } from '../../../src/runner/events.js';

const ms = z.number().int().nonnegative();
const count = z.number().int().nonnegative();
const iso = z.string();

/** Statuses a run is shown with: the stored ones plus `orphaned` (an active run whose owner is gone). */
export const DISPLAY_STATUSES = [...RUN_STATUSES, 'orphaned'] as const;

/** A status as displayed. */
export type DisplayStatus = (typeof DISPLAY_STATUSES)[number];

/** A stored run status. */
export type RunStatus = (typeof RUN_STATUSES)[number];

const stopReason = z.enum(STOP_REASONS);

/** One run as the list and the board show it: `ringmaster runs --json` fields plus its limits and last seq. */
export const runSummarySchema = z.object({
  id: z.string().min(1),
  status: z.enum(DISPLAY_STATUSES),
  stop_reason: stopReason.nullable(),
  agent: z.string(),
  model: z.string().nullable().default(null),
  label: z.string().default(''),
  kind: z.string().default('loop'),
  workspace: z.string(),
  worktree: z.string().nullable().default(null),
  branch: z.string().nullable().default(null),
  iterations: count,
  cost_usd: z.number().nonnegative(),
  cost_unknown: z.boolean().default(false),
  tokens_in: count,
  tokens_out: count,
  runtime_ms: ms,
  max_iterations: count.nullable().default(null),
  max_cost_usd: z.number().nonnegative().nullable().default(null),
  max_runtime_ms: ms.nullable().default(null),
  waiting_until: ms.nullable().default(null),
  pause_requested: z.boolean().default(false),
  stop_requested: z.boolean().default(false),
  last_seq: count.default(0),
  created_at: iso,
  updated_at: iso,
  ended_at: iso.nullable(),
});

/** One run on the board. */
export type RunSummary = z.infer<typeof runSummarySchema>;

/** GET /api/runs. */
export const runListSchema = z.object({ runs: z.array(runSummarySchema), next_cursor: z.string().nullable().default(null) });

/** GET /api/runs response. */
export type RunList = z.infer<typeof runListSchema>;

/** One iteration row, as `ringmaster show --json` prints it. */
export const iterationSchema = z.object({
  number: z.number().int().positive(),
  status: z.enum(ITERATION_STATUSES),
  exit_code: z.number().int().nullable(),
  exit_signal: z.string().nullable(),
  duration_ms: ms.nullable(),
  tokens_in: count.nullable(),
  tokens_out: count.nullable(),
  cost_usd: z.number().nonnegative().nullable(),
  completion_signal_found: z.boolean(),
  error_kind: z.string().nullable(),
  error_message: z.string().nullable(),
  model: z.string().nullable(),
  agent: z.string(),
  started_at: iso,
  completed_at: iso.nullable(),
});

/** One iteration row. */
export type Iteration = z.infer<typeof iterationSchema>;

/** One checkpoint row (`show --json` checkpoints). */
export const checkpointSchema = z.object({
  iteration: count,
  commit_sha: z.string().nullable(),
  state: z.enum(CHECKPOINT_STATES),
  message: z.string().nullable(),
  created_at: iso,
});

/** One checkpoint. */
export type Checkpoint = z.infer<typeof checkpointSchema>;

/** A unit of a run that has them: a task of a task loop, or a step of a workflow. */
export const unitSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.string(),
  iterations: count,
  cost_usd: z.number().nonnegative().nullable(),
});

/** One task or workflow step. */
export type Unit = z.infer<typeof unitSchema>;

/** GET /api/runs/:id. */
export const runDetailSchema = z.object({
  run: runSummarySchema,
  iterations: z.array(iterationSchema),
  checkpoints: z.array(checkpointSchema).default([]),
  units: z.array(unitSchema).default([]),
});

/** One run with its iterations, checkpoints and units. */
export type RunDetail = z.infer<typeof runDetailSchema>;

/** GET /api/stats: seed 000's LoopManagerStats plus capacity and today's spend. */
export const statsSchema = z.object({
  total_active: count,
  running: count,
  paused: count,
  pending: count,
  waiting: count,
  total_cost_usd: z.number().nonnegative(),
  total_iterations: count,
  total_tokens: count,
  max_concurrent: count.nullable().default(null),
  today_cost_usd: z.number().nonnegative().nullable().default(null),
});

/** Manager stats. */
export type Stats = z.infer<typeof statsSchema>;

/** GET /api/runs/:id/events?after_seq=N. */
export const eventListSchema = z.object({ events: z.array(runEventSchema) });

/** GET /api/runs/:id/activity?iteration=N: the parsed output of one iteration (from its log). */
export const activityListSchema = z.object({ activity: z.array(agentActivitySchema), truncated: z.boolean().default(false) });

/** Messages the server sends on /api/ws. */
export const serverMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('event'), run_id: z.string(), seq: z.number().int().positive(), time: ms, event: z.unknown() }),
  z.object({ type: z.literal('activity'), run_id: z.string(), activity: agentActivitySchema }),
  z.object({ type: z.literal('error'), error: z.object({ code: z.string(), message: z.string() }) }),
]);

/** One message from the server. */
export type ServerMessage = z.infer<typeof serverMessageSchema>;

/** The message the client sends on /api/ws to (re)subscribe, resuming each run after its last seen seq. */
export const subscribeMessageSchema = z.object({
  type: z.literal('subscribe'),
  runs: z.union([z.array(z.string()), z.literal('*')]),
  since: z.record(z.string(), count),
});

/** A subscribe message. */
export type SubscribeMessage = z.infer<typeof subscribeMessageSchema>;

/** An error response of any endpoint. */
export const apiErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/** POST /api/runs body: the options of `ringmaster run`, flag values as the user typed them. */
export const createRunSchema = z.object({
  workspace: z.string().min(1),
  prompt: z.string().optional(),
  prompt_file: z.string().optional(),
  procedure: z.string().optional(),
  context: z.string().optional(),
  agent: z.string().optional(),
  agent_command: z.string().optional(),
  model: z.string().optional(),
  max_iterations: z.number().int().positive().optional(),
  unlimited: z.boolean().optional(),
  max_runtime: z.string().optional(),
  max_cost: z.string().optional(),
  failure_threshold: z.number().int().positive().optional(),
  cooldown: z.string().optional(),
  idle_timeout: z.string().optional(),
  iteration_timeout: z.string().optional(),
  checkpoint_interval: z.number().int().nonnegative().optional(),
  worktree: z.boolean().optional(),
});

/** A new run request. */
export type CreateRun = z.infer<typeof createRunSchema>;

/** POST /api/runs response. */
export const createdRunSchema = z.object({ id: z.string(), status: z.enum(RUN_STATUSES) });

/** Agents a new run can use (`ringmaster run --agent`). */
export const AGENT_NAMES = ['claude', 'codex', 'gemini', 'opencode', 'copilot', 'amp', 'cursor', 'command', 'scripted'] as const;
