// The shared budget every run of the store is held to (README "Budget"): GET /api/budget reads spend today and
// this month (UTC) against it, PUT /api/budget changes it.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { readBudgetReport } from '../../store/budget.js';
import { errors, json, type ApiContext } from '../api-context.js';
import { budgetChangeSchema, budgetReportSchema } from '../schemas.js';

/** GET and PUT /api/budget. */
export function budgetRoutes(app: OpenAPIHono, ctx: ApiContext): void {
  const { store } = ctx.deps;
  app.openapi(
    createRoute({ method: 'get', path: '/api/budget', summary: 'The shared budget: spend today and this month (UTC) against it, by agent and by run', responses: { 200: json(budgetReportSchema, 'the budget'), ...errors } }),
    async (c) => c.json(await readBudgetReport(store, ctx.deps.now()), 200),
  );
  app.openapi(
    createRoute({
      method: 'put',
      path: '/api/budget',
      summary: 'Change the shared budget (daily_usd, monthly_usd; null clears one); every run of the store is held to it',
      request: { body: { content: { 'application/json': { schema: budgetChangeSchema } }, required: true } },
      responses: { 200: json(budgetReportSchema, 'the budget as now stored'), ...errors },
    }),
    async (c) => {
      await store.setBudget(c.req.valid('json'), ctx.deps.now());
      return c.json(await readBudgetReport(store, ctx.deps.now()), 200);
    },
  );
}
