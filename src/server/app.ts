// The REST API over the loop manager (Hono + zod schemas; the OpenAPI document is generated from them). Every
// error leaves as `{error: {code, message}}` from the one handler at the bottom.
import { redactor, type Redactor } from '../core/redact.js';
import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import { addBudgetRoutes } from './budget-api.js';
import { z } from 'zod';
import { agentNames, getAdapter } from '../agents/registry.js';
import { DirtyWorkspaceError } from '../git/rollback.js';
import { checkpointDiff } from '../git/diff.js';
import { readLogActivity } from '../manager/log-activity.js';
import { rollbackRun } from '../manager/rollback-run.js';
import { LockHeldError } from '../runner/lock.js';
import type { RunEvent } from '../runner/events.js';
import type { IterationRow } from '../store/rows.js';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { UserError } from '../core/errors.js';
import { storedEvent } from '../manager/event-rows.js';
import { ManagerError } from '../manager/errors.js';
import type { LoopManager } from '../manager/manager.js';
import { runRequestSchema } from '../manager/run-request.js';
import { checkpointView, errorView, iterationView, runView } from '../manager/views.js';
import type { RunStatus } from '../core/types.js';
import { RUN_STATUSES } from '../core/types.js';
import { displayStatus, type LivenessProbe } from '../store/liveness.js';
import { AmbiguousRunIdError } from '../store/errors.js';
import type { RunRow, RunWithTotals, Store } from '../store/index.js';
import type { AccessPolicy } from './auth.js';
import { accessGuard, jsonGuard, sizeGuard } from './guards.js';
import { signOutApi } from './sign-in.js';
import { readLogRange } from './log-range.js';
import {
  activityListSchema,
  activityQuerySchema,
  agentListSchema,
  controlOutcomeSchema,
  controlParamSchema,
  controlQuerySchema,
  diffParamSchema,
  extendBodySchema,
  rollbackBodySchema,
  rollbackResultSchema,
  errorSchema,
  eventListSchema,
  eventsQuerySchema,
  healthSchema,
  logChunkSchema,
  logsQuerySchema,
  runCreatedSchema,
  runDetailSchema,
  runIdParamSchema,
  runItemSchema,
  runListQuerySchema,
  runListSchema,
  statsSchema,
} from './schemas.js';

/** What the API needs. */
export interface ApiDeps {
  manager: LoopManager;
  store: Store;
  access: AccessPolicy;
  version: string;
  startedAt: number;
  storeKind: string;
  probe(): LivenessProbe;
  now(): number;
  env: Readonly<Record<string, string | undefined>>;
  /** Hands an event written outside a run's driver (a rollback) to the WebSocket. */
  publish(event: RunEvent): void;
  /** The Prometheus exposition of GET /metrics (absent: no such route). */
  metrics?: () => Promise<{ contentType: string; body: string }>;
}

/** An error response with its HTTP status. */
class HttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 503 | 500,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errors = {
  400: json(errorSchema, 'invalid request'),
  401: json(errorSchema, 'a token is required, or it is wrong'),
  403: json(errorSchema, 'cross-origin or foreign-host request refused'),
  413: json(errorSchema, 'the body is larger than 1 MiB'),
  415: json(errorSchema, 'the body is not declared JSON'),
};

const STATUS_OF_CODE: Record<string, HttpError['status']> = { invalid_request: 400, not_found: 404, conflict: 409, not_running: 409, unavailable: 503 };

/** Builds the API app. */
// eslint-disable-next-line max-lines-per-function -- too long today; to be split by concern (docs/architecture.md "Layers and size")
export function createApi(deps: ApiDeps): OpenAPIHono {
  const app = new OpenAPIHono({
    defaultHook: (result) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
        throw new HttpError(400, 'invalid_request', `${where}${issue?.message ?? 'invalid request'}`);
      }
    },
  });

  // Who may call comes first (nothing of a refused request is read), then the body's size and type. /metrics takes
  // the same credential (Prometheus sends it as Authorization: Bearer).
  app.use('/api/*', accessGuard(deps.access), sizeGuard(), jsonGuard());
  app.use('/metrics', accessGuard(deps.access));
  app.route('/', signOutApi(deps.access));
  const metrics = deps.metrics;
  if (metrics) {
    app.get('/metrics', async (c) => {
      const { contentType, body } = await metrics();
      return c.body(body, 200, { 'content-type': contentType });
    });
  }

  const view = async (run: RunWithTotals) => {
    const waiting = deps.manager.waitingUntil(run.id);
    return {
      ...runView(run, run.totals, deps.manager.owns(run.id) ? run.status : displayStatus(run, deps.probe())),
      transition: deps.manager.transition(run.id),
      last_seq: await deps.store.lastEventSeq(run.id),
      waiting_until: waiting === null ? null : new Date(waiting).toISOString(),
      suspended: deps.manager.suspended(run.id),
    };
  };

  const findRun = async (id: string): Promise<RunRow> => {
    try {
      const run = await deps.store.findRun(id);
      if (!run) throw new HttpError(404, 'not_found', `no run '${id}'`);
      return run;
    } catch (error) {
      if (error instanceof AmbiguousRunIdError) throw new HttpError(400, 'invalid_request', error.message);
      throw error;
    }
  };

  app.openapi(createRoute({ method: 'get', path: '/api/health', summary: 'Liveness of the server', responses: { 200: json(healthSchema, 'the server is up'), ...errors } }), (c) =>
    c.json({ ok: true as const, version: deps.version, pid: process.pid, uptime_ms: Math.max(0, deps.now() - deps.startedAt), store: deps.storeKind }, 200),
  );

  app.openapi(
    createRoute({ method: 'get', path: '/api/runs', summary: 'Runs of every workspace, newest first', request: { query: runListQuerySchema }, responses: { 200: json(runListSchema, 'a page of runs'), ...errors } }),
    async (c) => {
      const q = c.req.valid('query');
      const statuses = q.status?.split(',').map((s) => s.trim()).filter((s) => s !== '');
      for (const s of statuses ?? []) if (!(RUN_STATUSES as readonly string[]).includes(s)) throw new HttpError(400, 'invalid_request', `status: unknown status '${s}' (one of ${RUN_STATUSES.join(', ')})`);
      const filter = {
        ...(statuses ? { status: statuses as RunStatus[] } : {}),
        ...(q.workspace ? { workspace: q.workspace } : {}),
        ...(q.text ? { text: q.text } : {}),
      };
      const [runs, total] = await Promise.all([deps.store.listRuns({ ...filter, limit: q.limit, offset: q.offset }), deps.store.countRuns(filter)]);
      return c.json({ runs: await Promise.all(runs.map(view)), total, limit: q.limit, offset: q.offset }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs',
      summary: "Start a run: the options of 'ringmaster run'",
      request: { body: { content: { 'application/json': { schema: runRequestSchema } }, required: true } },
      responses: { 201: json(runCreatedSchema, 'created: running, or pending until a slot frees'), 409: json(errorSchema, 'the workspace already has an active run'), ...errors },
    }),
    async (c) => c.json(await deps.manager.createRun(c.req.valid('json')), 201),
  );

  app.openapi(
    createRoute({ method: 'get', path: '/api/runs/{id}', summary: 'One run with its iterations and checkpoints', request: { params: runIdParamSchema }, responses: { 200: json(runDetailSchema, 'the run'), 404: json(errorSchema, 'no such run'), ...errors } }),
    async (c) => {
      const run = await findRun(c.req.valid('param').id);
      const [totals, iterations, checkpoints, errors] = await Promise.all([deps.store.runTotals(run.id), deps.store.listIterations(run.id), deps.store.listCheckpoints(run.id), deps.store.listErrors(run.id)]);
      return c.json(
        {
          run: { ...(await view({ ...run, totals })), spec: run.spec, last_iteration: totals.last_iteration, duration_ms: totals.duration_ms },
          iterations: iterations.map(iterationView),
          checkpoints: checkpoints.map(checkpointView),
          errors: errors.map(errorView),
          units: unitsOf(run, iterations),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/events',
      summary: "A run's events after a seq, in order",
      request: { params: runIdParamSchema, query: eventsQuerySchema },
      responses: { 200: json(eventListSchema, 'events in seq order'), 404: json(errorSchema, 'no such run'), ...errors },
    }),
    async (c) => {
      const run = await findRun(c.req.valid('param').id);
      const q = c.req.valid('query');
      const stored = (await deps.store.listEvents(run.id, { afterSeq: q.after_seq, limit: q.limit })).map(storedEvent);
      const last = stored.at(-1)?.seq ?? q.after_seq;
      const pending = deps.manager.unstoredEvents(run.id).filter((e) => e.seq > last);
      const events = [...stored, ...pending].slice(0, q.limit);
      return c.json({ events, last_seq: events.at(-1)?.seq ?? q.after_seq }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/logs',
      summary: "A byte range of one iteration's agent output; follow by polling with next_offset",
      request: { params: runIdParamSchema, query: logsQuerySchema },
      responses: { 200: json(logChunkSchema, 'a chunk of the log'), 404: json(errorSchema, 'no such run or iteration'), ...errors },
    }),
    async (c) => {
      const run = await findRun(c.req.valid('param').id);
      const q = c.req.valid('query');
      const row = await deps.store.getIteration(run.id, q.iteration);
      if (!row) throw new HttpError(404, 'not_found', `run ${run.id} has no iteration ${q.iteration}`);
      const chunk = row.log_path === null ? { text: '', nextOffset: q.offset, size: 0 } : await readLogRange(row.log_path, q.offset, q.limit);
      const complete = row.status !== 'running' && chunk.nextOffset >= chunk.size;
      return c.json({ iteration: q.iteration, offset: q.offset, next_offset: chunk.nextOffset, size: chunk.size, complete, text: chunk.text }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/extend',
      summary: 'Raise the iteration limit; a run that ended at its limit continues',
      request: { params: runIdParamSchema, body: { content: { 'application/json': { schema: extendBodySchema } }, required: true } },
      responses: { 200: json(controlOutcomeSchema, 'what the run did with the request'), 404: json(errorSchema, 'no such run'), ...errors },
    }),
    async (c) => {
      const run = await findRun(c.req.valid('param').id);
      return c.json(await deps.manager.control(run.id, 'extend', 'user', { iterations: c.req.valid('json').iterations }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/rollback',
      summary: "Restore the run's workspace to a checkpoint (refused while a run holds the workspace)",
      request: { params: runIdParamSchema, body: { content: { 'application/json': { schema: rollbackBodySchema } }, required: true } },
      responses: { 200: json(rollbackResultSchema, 'rolled back'), 404: json(errorSchema, 'no such run'), 409: json(errorSchema, 'the workspace is in use or dirty'), ...errors },
    }),
    async (c) => {
      const run = await findRun(c.req.valid('param').id);
      const body = c.req.valid('json');
      try {
        const r = await rollbackRun(deps.store, deps.env, run, { to: body.to ?? null, force: body.force === true });
        if (r.event) deps.publish(r.event);
        return c.json({ run_id: r.runId, iteration: r.iteration, target_sha: r.targetSha, commit_sha: r.commitSha, workspace: r.workspace, discarded: r.discarded }, 200);
      } catch (error) {
        if (error instanceof LockHeldError || error instanceof DirtyWorkspaceError) throw new HttpError(409, 'conflict', error.message);
        throw error;
      }
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/activity',
      summary: "One iteration's log read back as agent activity (text, tool calls, raw output), numbered like the live activity, a page (at most 1 MiB of log) at a time",
      request: { params: runIdParamSchema, query: activityQuerySchema },
      responses: { 200: json(activityListSchema, 'the activity, oldest first'), 404: json(errorSchema, 'no such run or iteration'), ...errors },
    }),
    async (c) => {
      const run = await findRun(c.req.valid('param').id);
      const q = c.req.valid('query');
      const row = await deps.store.getIteration(run.id, q.iteration);
      if (!row) throw new HttpError(404, 'not_found', `run ${run.id} has no iteration ${q.iteration}`);
      if (row.log_path === null) return c.json({ activity: [], truncated: false, next_offset: q.offset, next_index: q.index }, 200);
      const spec = run.spec as { agent?: { command?: string[] | null } };
      const read = await readLogActivity({
        agent: row.agent,
        command: spec.agent?.command ?? null,
        logPath: row.log_path,
        iteration: row.number,
        time: row.started_at,
        cwd: run.worktree ?? run.workspace,
        model: row.model,
        limit: q.limit,
        offset: q.offset,
        index: q.index,
      });
      return c.json({ activity: read.activity, truncated: read.truncated, next_offset: read.nextOffset, next_index: read.nextIndex }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/checkpoints/{sha}/diff',
      summary: "The changes of one of the run's checkpoint commits, as a git unified diff (text/plain)",
      request: { params: diffParamSchema },
      responses: { 200: { content: { 'text/plain': { schema: z.string() } }, description: 'git show --patch of the commit' }, 404: json(errorSchema, 'no such run or checkpoint'), ...errors },
    }),
    async (c) => {
      const { id, sha } = c.req.valid('param');
      const run = await findRun(id);
      const checkpoint = (await deps.store.listCheckpoints(run.id)).find((k) => k.commit_sha !== null && k.commit_sha.startsWith(sha));
      if (!checkpoint?.commit_sha) throw new HttpError(404, 'not_found', `run ${run.id} has no checkpoint commit ${sha}`);
      return c.text(await checkpointDiff(run.worktree ?? run.workspace, checkpoint.commit_sha), 200);
    },
  );

  app.openapi(createRoute({ method: 'get', path: '/api/agents', summary: 'The agent CLIs a run can use', responses: { 200: json(agentListSchema, 'the agents'), ...errors } }), (c) =>
    c.json({ agents: agentList() }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/{action}',
      summary: 'Pause (at the next iteration boundary, or with ?now=true at once: its agent suspended), resume or stop a run, wherever it is driven',
      request: { params: controlParamSchema, query: controlQuerySchema },
      responses: { 200: json(controlOutcomeSchema, 'what the run did with the request'), 404: json(errorSchema, 'no such run'), 409: json(errorSchema, 'the run cannot do that'), ...errors },
    }),
    async (c) => {
      const { id, action } = c.req.valid('param');
      const now = c.req.valid('query').now === 'true';
      if (now && action !== 'pause') throw new HttpError(400, 'invalid_request', `now: only a pause can be immediate, not ${action}`);
      const run = await findRun(id);
      return c.json(await deps.manager.control(run.id, action, 'user', { now }), 200);
    },
  );

  app.openapi(createRoute({ method: 'get', path: '/api/stats', summary: "The loop manager's numbers over the active runs", responses: { 200: json(statsSchema, 'the numbers'), ...errors } }), async (c) =>
    c.json(await deps.manager.stats(), 200),
  );

  addBudgetRoutes(app, deps.store, () => deps.now());

  app.doc31('/api/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'Ringmaster API', version: deps.version, description: 'Watch and steer Ralph loops: runs, events, logs, controls. WebSocket: /api/ws (see README).' },
  });

  app.notFound((c) => c.json({ error: { code: 'not_found', message: `no route ${c.req.method} ${new URL(c.req.url).pathname}` } }, 404));
  // Messages may quote what was sent or what failed: the server's own secrets never go out in them.
  const redact = redactor(deps.env);
  app.onError((error, c) => errorResponse(c, error, redact));
  return app;
}

/** Units of work of a task or workflow run: the program's list (meta.units) with what their iterations cost. */
function unitsOf(run: RunRow, iterations: IterationRow[]): Array<{ id: string; title: string | null; status: string | null; iterations: number; cost_usd: number }> {
  const declared = Array.isArray(run.meta.units) ? (run.meta.units as Array<Record<string, unknown>>) : [];
  const units = new Map<string, { id: string; title: string | null; status: string | null; iterations: number; cost_usd: number }>();
  for (const u of declared) {
    if (typeof u.id !== 'string') continue;
    units.set(u.id, { id: u.id, title: typeof u.title === 'string' ? u.title : null, status: typeof u.status === 'string' ? u.status : null, iterations: 0, cost_usd: 0 });
  }
  for (const row of iterations) {
    if (row.unit_id === null) continue;
    const unit = units.get(row.unit_id) ?? { id: row.unit_id, title: null, status: null, iterations: 0, cost_usd: 0 };
    unit.iterations += 1;
    unit.cost_usd = Math.round((unit.cost_usd + (row.cost_usd ?? 0)) * 1e9) / 1e9;
    units.set(row.unit_id, unit);
  }
  return [...units.values()];
}

/** The agents known to this build. */
function agentList(): Array<{ name: string; display_name: string; format: 'text' | 'jsonl'; supports_resume: boolean }> {
  return agentNames().map((name) => {
    const adapter = getAdapter({ name, command: name === 'command' ? ['true'] : null });
    return { name, display_name: adapter.displayName, format: adapter.format, supports_resume: adapter.supportsResume };
  });
}

/** The one place errors become HTTP responses (messages redacted). */
function errorResponse(c: Context, error: unknown, redact: Redactor): Response {
  const body = (code: string, message: string) => ({ error: { code, message: redact(message) } });
  if (error instanceof HttpError) return c.json(body(error.code, error.message), error.status);
  if (error instanceof ManagerError) return c.json(body(error.code, error.message), STATUS_OF_CODE[error.code] ?? 400);
  if (error instanceof UserError) return c.json(body('invalid_request', error.message), 400);
  if (error instanceof SyntaxError) return c.json(body('invalid_request', `malformed JSON body: ${error.message}`), 400);
  if (error instanceof HTTPException) return c.json(body(error.status === 400 ? 'invalid_request' : 'internal', error.message), error.status === 400 ? 400 : 500);
  return c.json(body('internal', error instanceof Error ? error.message : String(error)), 500);
}

export { runItemSchema };
