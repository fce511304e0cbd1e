// Routes of the runs themselves: the list, starting one, one run in full.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { RUN_STATUSES, type RunStatus } from '../../core/types.js';
import { runRequestSchema } from '../../manager/run-request.js';
import { checkpointView, errorView, iterationView } from '../../manager/views.js';
import type { IterationRow } from '../../store/rows.js';
import { detailedRunMeta } from '../../workflow/meta-view.js';
import { HttpError, errors, json, type ApiContext } from '../api-context.js';
import { errorSchema, runCreatedSchema, runDetailSchema, runIdParamSchema, runListQuerySchema, runListSchema } from '../schemas.js';

/** GET /api/runs, POST /api/runs, GET /api/runs/{id}. */
export function runRoutes(app: OpenAPIHono, ctx: ApiContext): void {
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
      const [runs, total] = await Promise.all([ctx.deps.store.listRuns({ ...filter, limit: q.limit, offset: q.offset }), ctx.deps.store.countRuns(filter)]);
      return c.json({ runs: await Promise.all(runs.map(ctx.view)), total, limit: q.limit, offset: q.offset }, 200);
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
    async (c) => c.json(await ctx.deps.manager.createRun(c.req.valid('json')), 201),
  );

  app.openapi(
    createRoute({ method: 'get', path: '/api/runs/{id}', summary: 'One run with its iterations and checkpoints', request: { params: runIdParamSchema }, responses: { 200: json(runDetailSchema, 'the run'), 404: json(errorSchema, 'no such run'), ...errors } }),
    async (c) => {
      const run = await ctx.findRun(c.req.valid('param').id);
      const [totals, iterations, checkpoints, errors] = await Promise.all([ctx.deps.store.runTotals(run.id), ctx.deps.store.listIterations(run.id), ctx.deps.store.listCheckpoints(run.id), ctx.deps.store.listErrors(run.id)]);
      const meta = await detailedRunMeta(ctx.deps.store, run, iterations);
      return c.json(
        {
          run: { ...(await ctx.view({ ...run, meta, totals })), spec: run.spec, last_iteration: totals.last_iteration, duration_ms: totals.duration_ms },
          iterations: iterations.map(iterationView),
          checkpoints: checkpoints.map(checkpointView),
          errors: errors.map(errorView),
          units: unitsOf(meta, iterations),
        },
        200,
      );
    },
  );
}

/** Units of work of a task or workflow run: the program's list (meta.units) with what their iterations cost. */
function unitsOf(meta: Record<string, unknown>, iterations: IterationRow[]): Array<{ id: string; title: string | null; status: string | null; iterations: number; cost_usd: number }> {
  const declared = Array.isArray(meta.units) ? (meta.units as Array<Record<string, unknown>>) : [];
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
