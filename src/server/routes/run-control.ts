// Routes that steer a run: more iterations, a rollback, pause / resume / stop. The generic /{action} route comes
// last: the routes before it take their own paths.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { DirtyWorkspaceError } from '../../git/rollback.js';
import { rollbackRun } from '../../manager/rollback-run.js';
import { LockHeldError } from '../../runner/lock.js';
import { HttpError, errors, json, type ApiContext } from '../api-context.js';
import { controlOutcomeSchema, controlParamSchema, controlQuerySchema, errorSchema, extendBodySchema, rollbackBodySchema, rollbackResultSchema, runIdParamSchema } from '../schemas.js';

/** POST /api/runs/{id}/extend, /rollback, /{action} (pause, resume, stop). */
export function runControlRoutes(app: OpenAPIHono, ctx: ApiContext): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/extend',
      summary: 'Raise the iteration limit; a run that ended at its limit continues',
      request: { params: runIdParamSchema, body: { content: { 'application/json': { schema: extendBodySchema } }, required: true } },
      responses: { 200: json(controlOutcomeSchema, 'what the run did with the request'), 404: json(errorSchema, 'no such run'), ...errors },
    }),
    async (c) => {
      const run = await ctx.findRun(c.req.valid('param').id);
      return c.json(await ctx.deps.manager.control(run.id, 'extend', 'user', { iterations: c.req.valid('json').iterations }), 200);
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
      const run = await ctx.findRun(c.req.valid('param').id);
      const body = c.req.valid('json');
      try {
        const r = await rollbackRun(ctx.deps.store, ctx.deps.env, run, { to: body.to ?? null, force: body.force === true });
        if (r.event) ctx.deps.publish(r.event);
        return c.json({ run_id: r.runId, iteration: r.iteration, target_sha: r.targetSha, commit_sha: r.commitSha, workspace: r.workspace, discarded: r.discarded, warning: r.warning }, 200);
      } catch (error) {
        if (error instanceof LockHeldError || error instanceof DirtyWorkspaceError) throw new HttpError(409, 'conflict', error.message);
        throw error;
      }
    },
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
      const run = await ctx.findRun(id);
      return c.json(await ctx.deps.manager.control(run.id, action, 'user', { now }), 200);
    },
  );
}
