// The REST API over the loop manager (Hono + zod schemas; the OpenAPI document is generated from them). The routes
// live in one module per resource (routes/); here the app is put together: who may call, body limits, the route
// modules in order, the OpenAPI document, and the one handler every error leaves through as
// `{error: {code, message}}`.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { UserError } from '../core/errors.js';
import { redactor, type Redactor } from '../core/redact.js';
import { ManagerError } from '../manager/errors.js';
import { HttpError, apiContext, type ApiDeps, type RouteModule } from './api-context.js';
import { accessGuard, jsonGuard, sizeGuard } from './guards.js';
import { budgetRoutes } from './routes/budget.js';
import { runControlRoutes } from './routes/run-control.js';
import { runDiffRoutes } from './routes/run-diffs.js';
import { runNoteRoutes } from './routes/run-notes.js';
import { runOutputRoutes } from './routes/run-output.js';
import { runRoutes } from './routes/runs.js';
import { runSearchRoutes } from './routes/run-search.js';
import { serviceRoutes } from './routes/service.js';
import { signOutApi } from './sign-in.js';

export type { ApiDeps } from './api-context.js';
export { runItemSchema } from './schemas.js';

const STATUS_OF_CODE: Record<string, HttpError['status']> = { invalid_request: 400, not_found: 404, conflict: 409, not_running: 409, unavailable: 503 };

/** The route modules, in the order their routes are matched (the generic control route /api/runs/{id}/{action} last). */
const ROUTES: RouteModule[] = [serviceRoutes, budgetRoutes, runRoutes, runOutputRoutes, runSearchRoutes, runDiffRoutes, runNoteRoutes, runControlRoutes];

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

  const ctx = apiContext(deps);
  for (const routes of ROUTES) routes(app, ctx);

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
