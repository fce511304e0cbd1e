// The REST API over the loop manager (Hono + zod schemas; the OpenAPI document is generated from them). Every
// error leaves as `{error: {code, message}}` from the one handler at the bottom.
import { OpenAPIHono, createRoute, type z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { UserError } from '../core/errors.js';
import { storedEvent } from '../manager/event-rows.js';
import { ManagerError } from '../manager/errors.js';
import type { LoopManager } from '../manager/manager.js';
import { runRequestSchema } from '../manager/run-request.js';
import { checkpointView, iterationView, runView } from '../manager/views.js';
import type { RunStatus } from '../core/types.js';
import { RUN_STATUSES } from '../core/types.js';
import { displayStatus, type LivenessProbe } from '../store/liveness.js';
import { AmbiguousRunIdError } from '../store/errors.js';
import type { RunRow, RunWithTotals, Store } from '../store/index.js';
import { checkAccess, type AccessPolicy } from './auth.js';
import { readLogRange } from './log-range.js';
import {
  controlOutcomeSchema,
  controlParamSchema,
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
}

/** An error response with its HTTP status. */
class HttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 503 | 500,
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
};

const STATUS_OF_CODE: Record<string, HttpError['status']> = { invalid_request: 400, not_found: 404, conflict: 409, not_running: 409, unavailable: 503 };

/** Builds the API app. */
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

  app.use('/api/*', async (c, next) => {
    const refusal = checkAccess(deps.access, { method: c.req.method, url: new URL(c.req.url), header: (name) => c.req.header(name) });
    if (refusal) return c.json({ error: { code: refusal.code, message: refusal.message } }, refusal.status);
    return next();
  });

  const view = (run: RunWithTotals | (RunRow & { totals: RunWithTotals['totals'] })) => ({
    ...runView(run, run.totals, deps.manager.owns(run.id) ? run.status : displayStatus(run, deps.probe())),
    transition: deps.manager.transition(run.id),
  });

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
      return c.json({ runs: runs.map(view), total, limit: q.limit, offset: q.offset }, 200);
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
      const [totals, iterations, checkpoints] = await Promise.all([deps.store.runTotals(run.id), deps.store.listIterations(run.id), deps.store.listCheckpoints(run.id)]);
      return c.json(
        {
          run: { ...view({ ...run, totals }), spec: run.spec, last_iteration: totals.last_iteration, duration_ms: totals.duration_ms },
          iterations: iterations.map(iterationView),
          checkpoints: checkpoints.map(checkpointView),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/{action}',
      summary: 'Pause (at the next iteration boundary), resume or stop a run, wherever it is driven',
      request: { params: controlParamSchema },
      responses: { 200: json(controlOutcomeSchema, 'what the run did with the request'), 404: json(errorSchema, 'no such run'), 409: json(errorSchema, 'the run cannot do that'), ...errors },
    }),
    async (c) => {
      const { id, action } = c.req.valid('param');
      const run = await findRun(id);
      return c.json(await deps.manager.control(run.id, action, 'user'), 200);
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

  app.openapi(createRoute({ method: 'get', path: '/api/stats', summary: "Seed 000's LoopManagerStats over the active runs", responses: { 200: json(statsSchema, 'the numbers'), ...errors } }), async (c) =>
    c.json(await deps.manager.stats(), 200),
  );

  app.doc31('/api/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'Ringmaster API', version: deps.version, description: 'Watch and steer Ralph loops: runs, events, logs, controls. WebSocket: /api/ws (see README).' },
  });

  app.notFound((c) => c.json({ error: { code: 'not_found', message: `no route ${c.req.method} ${new URL(c.req.url).pathname}` } }, 404));
  app.onError((error, c) => errorResponse(c, error));
  return app;
}

/** The one place errors become HTTP responses. */
function errorResponse(c: Context, error: unknown): Response {
  if (error instanceof HttpError) return c.json({ error: { code: error.code, message: error.message } }, error.status);
  if (error instanceof ManagerError) return c.json({ error: { code: error.code, message: error.message } }, STATUS_OF_CODE[error.code] ?? 400);
  if (error instanceof UserError) return c.json({ error: { code: 'invalid_request', message: error.message } }, 400);
  if (error instanceof SyntaxError) return c.json({ error: { code: 'invalid_request', message: `malformed JSON body: ${error.message}` } }, 400);
  const message = error instanceof Error ? error.message : String(error);
  return c.json({ error: { code: 'internal', message } }, 500);
}

export { runItemSchema };
