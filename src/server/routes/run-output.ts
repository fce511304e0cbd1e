// Routes reading what a run recorded: its events, and its agents' output as bytes (a byte range of a log).
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { storedEvent } from '../../manager/event-rows.js';
import { HttpError, errors, json, type ApiContext } from '../api-context.js';
import { readLogRange } from '../log-range.js';
import { errorSchema, eventListSchema, eventsQuerySchema, logChunkSchema, logsQuerySchema, runIdParamSchema } from '../schemas.js';

/** GET /api/runs/{id}/events, /logs: what a run recorded, and its agents' output as bytes. */
export function runOutputRoutes(app: OpenAPIHono, ctx: ApiContext): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/events',
      summary: "A run's events after a seq, in order",
      request: { params: runIdParamSchema, query: eventsQuerySchema },
      responses: { 200: json(eventListSchema, 'events in seq order'), 404: json(errorSchema, 'no such run'), ...errors },
    }),
    async (c) => {
      const run = await ctx.findRun(c.req.valid('param').id);
      const q = c.req.valid('query');
      const stored = (await ctx.deps.store.listEvents(run.id, { afterSeq: q.after_seq, limit: q.limit })).map(storedEvent);
      const last = stored.at(-1)?.seq ?? q.after_seq;
      const pending = ctx.deps.manager.unstoredEvents(run.id).filter((e) => e.seq > last);
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
      const run = await ctx.findRun(c.req.valid('param').id);
      const q = c.req.valid('query');
      const row = await ctx.deps.store.getIteration(run.id, q.iteration);
      if (!row) throw new HttpError(404, 'not_found', `run ${run.id} has no iteration ${q.iteration}`);
      const chunk = row.log_path === null ? { text: '', nextOffset: q.offset, size: 0 } : await readLogRange(row.log_path, q.offset, q.limit);
      const complete = row.status !== 'running' && chunk.nextOffset >= chunk.size;
      return c.json({ iteration: q.iteration, offset: q.offset, next_offset: chunk.nextOffset, size: chunk.size, complete, text: chunk.text }, 200);
    },
  );
}
