// The routes that read a run's stored output back through its agent's parser: GET /api/runs/:id/activity (one
// iteration's log as agent activity, a page at a time) and GET /api/runs/:id/search (which iterations' output
// contains a text).
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { readLogActivity, type LogActivityRequest } from '../../manager/log-activity.js';
import { searchLog } from '../../manager/log-search.js';
import type { IterationRow, RunRow } from '../../store/index.js';
import { HttpError, errors as baseErrors, json, type ApiContext } from '../api-context.js';
import { activityListSchema, activityQuerySchema, errorSchema, runIdParamSchema, searchQuerySchema, searchResultSchema } from '../schemas.js';

const errors = { ...baseErrors, 404: json(errorSchema, 'no such run or iteration') };

/** Most activities one search reads per page of log. */
const SEARCH_PAGE_LIMIT = 100_000;

/** How to read an iteration's log back: its agent's parser, its start as the time. */
function logRequest(run: RunRow, row: IterationRow & { log_path: string }, limit: number): Omit<LogActivityRequest, 'offset' | 'index'> {
  const spec = run.spec as { agent?: { command?: string[] | null } };
  return { agent: row.agent, command: spec.agent?.command ?? null, logPath: row.log_path, iteration: row.number, time: row.started_at, cwd: run.worktree ?? run.workspace, model: row.model, limit };
}

/** GET /api/runs/{id}/activity, /search. */
export function runSearchRoutes(app: OpenAPIHono, ctx: ApiContext): void {
  const { findRun } = ctx;
  const store = ctx.deps.store;
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/activity',
      summary: "One iteration's log read back as agent activity (text, tool calls, raw output), numbered like the live activity, a page (at most 1 MiB of log) at a time",
      request: { params: runIdParamSchema, query: activityQuerySchema },
      responses: { 200: json(activityListSchema, 'the activity, oldest first'), ...errors },
    }),
    async (c) => {
      const run = await findRun(c.req.valid('param').id);
      const q = c.req.valid('query');
      const row = await store.getIteration(run.id, q.iteration);
      if (!row) throw new HttpError(404, 'not_found', `run ${run.id} has no iteration ${q.iteration}`);
      if (row.log_path === null) return c.json({ activity: [], truncated: false, next_offset: q.offset, next_index: q.index }, 200);
      const read = await readLogActivity({ ...logRequest(run, { ...row, log_path: row.log_path }, q.limit), offset: q.offset, index: q.index });
      return c.json({ activity: read.activity, truncated: read.truncated, next_offset: read.nextOffset, next_index: read.nextIndex }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/search',
      summary: "Which iterations' stored output contains a text (ignoring case), with how many rows match in each",
      request: { params: runIdParamSchema, query: searchQuerySchema },
      responses: { 200: json(searchResultSchema, 'the iterations with matches, oldest first'), ...errors },
    }),
    async (c) => {
      const run = await findRun(c.req.valid('param').id);
      const q = c.req.valid('query');
      const iterations: Array<{ iteration: number; matches: number }> = [];
      let truncated = false;
      for (const row of await store.listIterations(run.id)) {
        if (row.log_path === null || (q.before !== undefined && row.number >= q.before)) continue;
        const found = await searchLog(logRequest(run, { ...row, log_path: row.log_path }, SEARCH_PAGE_LIMIT), q.q);
        truncated ||= found.truncated;
        if (found.matches > 0) iterations.push({ iteration: row.number, matches: found.matches });
      }
      iterations.sort((a, b) => a.iteration - b.iteration);
      return c.json({ iterations, truncated }, 200);
    },
  );
}
