// Schemas of the HTTP API and the WebSocket protocol: request parameters, response bodies and messages. The
// OpenAPI document is generated from these; the dashboard takes its types from them.
import { z } from 'zod';
import { RUN_STATUSES } from '../core/types.js';
import { CONTROL_ACTIONS } from '../store/rows.js';
import { agentActivitySchema, runEventSchema } from '../runner/events.js';
import { checkpointViewSchema, errorViewSchema, iterationViewSchema, runViewSchema } from '../manager/views.js';

/** Every error response: `{error: {code, message}}`. */
export const errorSchema = z
  .object({ error: z.object({ code: z.string().describe('invalid_request | unauthorized | forbidden | not_found | conflict | unavailable | internal'), message: z.string() }) })
  .meta({ id: 'Error' });

/** GET /api/health. */
export const healthSchema = z.object({ ok: z.literal(true), version: z.string(), pid: z.number().int(), uptime_ms: z.number().int().nonnegative(), store: z.string() }).meta({ id: 'Health' });

/** Transient states between a request and its effect, for runs driven by this server. */
export const transitionSchema = z.enum(['pausing', 'stopping']).nullable();

/** A run in a list: its view plus what this server knows live. */
export const runItemSchema = runViewSchema
  .unwrap()
  .extend({
    transition: transitionSchema,
    last_seq: z.number().int().nonnegative().describe('seq of the last stored event: the snapshot reflects every event up to it'),
    waiting_until: z.string().nullable().describe('ISO time a run waiting for a usage or rate limit goes on (runs driven by this server)'),
    suspended: z.boolean().describe("a paused run whose agent is frozen mid-iteration (pause --now), not between iterations (runs driven by this server)"),
    queue_position: z.number().int().positive().nullable().describe('a pending run\'s place in the queue (1 starts next; runs queued by this server), else null'),
  })
  .meta({ id: 'RunItem' });

/** A unit of work of a task or workflow run, with what its iterations cost. */
export const unitSchema = z
  .object({ id: z.string(), title: z.string().nullable(), status: z.string().nullable(), iterations: z.number().int().nonnegative(), cost_usd: z.number().nonnegative() })
  .meta({ id: 'Unit' });

/** GET /api/runs. */
export const runListSchema = z.object({ runs: z.array(runItemSchema), total: z.number().int().nonnegative(), limit: z.number().int().positive(), offset: z.number().int().nonnegative() }).meta({ id: 'RunList' });

/** Query of GET /api/runs. */
export const runListQuerySchema = z.object({
  status: z.string().optional().describe(`comma-separated statuses (${RUN_STATUSES.join(', ')})`),
  workspace: z.string().optional().describe("a workspace's path"),
  text: z.string().optional().describe('matches the run id, workspace or prompt, case-insensitively'),
  limit: z.coerce.number().int().positive().max(1000).default(100),
  offset: z.coerce.number().int().nonnegative().default(0),
});

/** GET /api/runs/:id. */
export const runDetailSchema = z
  .object({
    run: runItemSchema.extend({ spec: z.unknown(), last_iteration: z.number().int().nonnegative(), duration_ms: z.number().int().nonnegative() }),
    iterations: z.array(iterationViewSchema),
    checkpoints: z.array(checkpointViewSchema),
    /** The run's error records, oldest first (kind, message, context: retry_count, last_output, exit_code, agent). */
    errors: z.array(errorViewSchema),
    units: z.array(unitSchema),
  })
  .meta({ id: 'RunDetail' });

/** POST /api/runs answer. */
export const runCreatedSchema = z.object({ id: z.string(), status: z.enum(RUN_STATUSES) }).meta({ id: 'RunCreated' });

/** Path parameter of the run routes. */
export const runIdParamSchema = z.object({ id: z.string().min(1).max(200) });

/** Path of the control routes. */
export const controlParamSchema = runIdParamSchema.extend({ action: z.enum(['pause', 'resume', 'stop']) });

/** Query of the control routes: `?now=true` with pause suspends the running agent at once (SIGSTOP). */
export const controlQuerySchema = z.strictObject({ now: z.enum(['true', 'false']).optional() });

/** Body of POST /api/runs/:id/extend. */
export const extendBodySchema = z.strictObject({ iterations: z.number().int().positive().max(1_000_000) });

/** Body of POST /api/runs/:id/rollback. */
export const rollbackBodySchema = z.strictObject({ to: z.number().int().nonnegative().optional(), force: z.boolean().optional() });

/** POST /api/runs/:id/rollback answer. */
export const rollbackResultSchema = z
  .object({ run_id: z.string(), iteration: z.number().int(), target_sha: z.string(), commit_sha: z.string().nullable(), workspace: z.string(), discarded: z.array(z.string()), warning: z.string().nullable().describe('the agent a dead run left running in the workspace, killed first') })
  .meta({ id: 'RollbackResult' });

/** Query of GET /api/runs/:id/activity. */
export const activityQuerySchema = z.object({
  iteration: z.coerce.number().int().positive(),
  limit: z.coerce.number().int().positive().max(100_000).default(20_000).describe('most activities in the page'),
  offset: z.coerce.number().int().nonnegative().default(0).describe("byte offset in the log where the page starts: 0, or the previous page's next_offset"),
  index: z.coerce.number().int().nonnegative().default(0).describe("number of the page's first activity: 0, or the previous page's next_index"),
});

/** GET /api/runs/:id/activity: an iteration's log read back as activity. */
export const activityListSchema = z
  .object({
    activity: z.array(agentActivitySchema),
    truncated: z.boolean().describe('the log goes on after next_offset: ask for the next page'),
    next_offset: z.number().int().nonnegative(),
    next_index: z.number().int().nonnegative(),
  })
  .meta({ id: 'ActivityList' });

/** Query of GET /api/runs/:id/search. */
export const searchQuerySchema = z.object({
  q: z.string().min(1).max(1000).describe('text to find, ignoring case'),
  before: z.coerce.number().int().positive().optional().describe('only the iterations before this one (those a client has not loaded)'),
});

/** GET /api/runs/:id/search: how many rows of output contain the text, per iteration that has any. */
export const searchResultSchema = z
  .object({
    iterations: z.array(z.object({ iteration: z.number().int().positive(), matches: z.number().int().positive() })),
    truncated: z.boolean().describe('a log was longer than the 32 MiB searched per iteration'),
  })
  .meta({ id: 'SearchResult' });

/** Path of GET /api/runs/:id/checkpoints/:sha/diff. */
export const diffParamSchema = runIdParamSchema.extend({ sha: z.string().regex(/^[0-9a-f]{7,64}$/) });

/** Path of GET /api/runs/:id/iterations/:n/diff. */
export const iterationDiffParamSchema = runIdParamSchema.extend({ n: z.coerce.number().int().positive().max(1_000_000_000).describe('the iteration number') });

/** GET /api/agents. */
export const agentListSchema = z
  .object({ agents: z.array(z.object({ name: z.string(), display_name: z.string(), format: z.enum(['text', 'jsonl']), supports_resume: z.boolean() })) })
  .meta({ id: 'AgentList' });

/** POST /api/runs/:id/{pause,resume,stop} answer. */
export const controlOutcomeSchema = z
  .object({
    id: z.string(),
    action: z.enum(CONTROL_ACTIONS),
    answer: z.string().describe('accepted | already | not_running | requested (asked another process, no answer yet)'),
    status: z.enum([...RUN_STATUSES, 'orphaned']),
    transition: transitionSchema,
  })
  .meta({ id: 'ControlOutcome' });

/** Query of GET /api/runs/:id/events. */
export const eventsQuerySchema = z.object({
  after_seq: z.coerce.number().int().nonnegative().default(0),
  limit: z.coerce.number().int().positive().max(10_000).default(1000),
});

/** GET /api/runs/:id/events. */
export const eventListSchema = z.object({ events: z.array(runEventSchema), last_seq: z.number().int().nonnegative() }).meta({ id: 'EventList' });

/** Query of GET /api/runs/:id/logs. */
export const logsQuerySchema = z.object({
  iteration: z.coerce.number().int().positive(),
  offset: z.coerce.number().int().nonnegative().default(0),
  limit: z.coerce.number().int().positive().max(4 * 1024 * 1024).default(256 * 1024),
});

/** GET /api/runs/:id/logs: a byte range of one iteration's log, decoded as UTF-8 up to a whole character. */
export const logChunkSchema = z
  .object({
    iteration: z.number().int().positive(),
    offset: z.number().int().nonnegative(),
    next_offset: z.number().int().nonnegative(),
    size: z.number().int().nonnegative().describe('bytes in the log file now'),
    complete: z.boolean().describe('the iteration has ended and next_offset is the end of its log'),
    text: z.string(),
  })
  .meta({ id: 'LogChunk' });

/** GET /api/stats: the loop manager's numbers over active runs, plus capacity and today's spend. */
export const statsSchema = z
  .object({
    total_active: z.number().int(),
    running: z.number().int(),
    paused: z.number().int(),
    pending: z.number().int(),
    waiting: z.number().int(),
    total_cost_usd: z.number(),
    total_iterations: z.number().int(),
    total_tokens: z.number().int(),
    max_concurrent: z.number().int(),
    driving: z.number().int(),
    today_cost_usd: z.number(),
  })
  .meta({ id: 'Stats' });

const usdLimit = z.number().finite().nonnegative().max(1e9).nullable();

/** PUT /api/budget: a number sets a limit, null clears it, an absent field keeps it. */
export const budgetChangeSchema = z
  .strictObject({ daily_usd: usdLimit.optional(), monthly_usd: usdLimit.optional() })
  .refine((b) => b.daily_usd !== undefined || b.monthly_usd !== undefined, { message: 'give daily_usd and/or monthly_usd (null clears one)' })
  .meta({ id: 'BudgetChange' });

const budgetWindowSchema = z.object({
  limit_usd: z.number().nullable(),
  spent_usd: z.number(),
  start: z.number().describe('epoch ms: the UTC day or month began'),
  resets_at: z.number().describe('epoch ms: the next UTC day or month'),
  projected_usd: z.number().describe('the spend at the end of the window at the pace so far'),
  reached: z.boolean(),
});

/** GET /api/budget: the shared budget, each window's spend against it, by agent and by run, the unpriced runs. */
export const budgetReportSchema = z
  .object({
    now: z.number(),
    daily: budgetWindowSchema,
    monthly: budgetWindowSchema,
    by_agent: z.array(z.object({ agent: z.string(), today_usd: z.number(), month_usd: z.number() })),
    by_run: z.array(z.object({ run_id: z.string(), agent: z.string(), iterations: z.number().int(), today_usd: z.number(), month_usd: z.number() })),
    unpriced: z.array(z.object({ run_id: z.string(), agent: z.string(), iterations: z.number().int() })).describe('runs whose agent reports no cost: the budget cannot count them'),
    reached: z.object({ window: z.enum(['daily', 'monthly']), resets_at: z.number() }).nullable().describe('the limit holding runs back (status waiting, reason budget), or null'),
  })
  .meta({ id: 'BudgetReport' });

/** What a client sends on the WebSocket. */
export const clientMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('subscribe'),
    runs: z.union([z.literal('*'), z.array(z.string().min(1)).max(10_000)]),
    /** Last seq the client has of each run: stored events after it are replayed first. */
    since: z.record(z.string(), z.number().int().nonnegative()).optional(),
    /** Agent activity: 'full' (default for named runs), 'summary' (the latest tool and line, at most once a second), 'none'. */
    activity: z.enum(['full', 'summary', 'none']).optional(),
  }),
  z.object({ type: z.literal('unsubscribe'), runs: z.union([z.literal('*'), z.array(z.string())]) }),
  z.object({ type: z.literal('ping') }),
]);

/** A client message. */
export type ClientMessage = z.infer<typeof clientMessageSchema>;

/** What the server sends on the WebSocket. */
export const serverMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hello'), version: z.string(), time: z.number().int() }),
  z.object({ type: z.literal('event'), run_id: z.string(), seq: z.number().int().positive(), time: z.number().int(), event: runEventSchema }),
  z.object({
    type: z.literal('activity'),
    run_id: z.string(),
    activity: agentActivitySchema,
    /** Set on the once-a-second summaries (the latest tool, or the last line of output): not the whole piece. */
    summary: z.literal(true).optional(),
  }),
  z.object({ type: z.literal('subscribed'), runs: z.union([z.literal('*'), z.array(z.string())]), replayed: z.record(z.string(), z.number().int().nonnegative()) }),
  z.object({ type: z.literal('pong') }),
  z.object({ type: z.literal('error'), error: z.object({ code: z.string(), message: z.string() }) }),
]);

/** A server message. */
export type ServerMessage = z.infer<typeof serverMessageSchema>;

/** Body of POST /api/runs/:id/notes (the 4 KiB limit is checked after, so that it answers 413). */
export const noteBodySchema = z.strictObject({ text: z.string() });

/** A note as the API shows it. */
export const noteSchema = z
  .object({
    id: z.number().int(),
    run_id: z.string(),
    text: z.string(),
    by: z.string().nullable(),
    created_at: z.string(),
    status: z.enum(['pending', 'delivered', 'withdrawn']),
    delivered_iteration: z.number().int().nullable(),
  })
  .meta({ id: 'Note' });

/** GET /api/runs/:id/notes answer. */
export const noteListSchema = z.object({ notes: z.array(noteSchema) });
