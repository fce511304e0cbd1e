// GET /api/budget and PUT /api/budget: the shared budget every run of the store is held to (README "Budget"),
// behind the same access guard as every /api route (registered on the API app, whose hook turns a body that
// fails its schema into a 400).
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { z } from 'zod';
import { readBudgetReport } from '../store/budget.js';
import type { Store } from '../store/store.js';
import { budgetChangeSchema, budgetReportSchema, errorSchema } from './schemas.js';

const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errors = {
  400: json(errorSchema, 'invalid request'),
  401: json(errorSchema, 'a token is required, or it is wrong'),
  403: json(errorSchema, 'cross-origin or foreign-host request refused'),
};

/** Adds the budget routes to the API app. */
export function addBudgetRoutes(app: OpenAPIHono, store: Store, now: () => number): void {
  app.openapi(
    createRoute({ method: 'get', path: '/api/budget', summary: 'The shared budget: spend today and this month (UTC) against it, by agent and by run', responses: { 200: json(budgetReportSchema, 'the budget'), ...errors } }),
    async (c) => c.json(await readBudgetReport(store, now()), 200),
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
      await store.setBudget(c.req.valid('json'), now());
      return c.json(await readBudgetReport(store, now()), 200);
    },
  );
}
