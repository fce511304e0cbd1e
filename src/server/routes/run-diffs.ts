// The diff routes, as git unified diffs (text/plain), cut at MAX_DIFF_CHARS (git/diff.ts) with a note:
// GET /api/runs/:id/checkpoints/:sha/diff (a checkpoint commit) and GET /api/runs/:id/iterations/:n/diff (what one
// iteration changed, from the trees change tracking stored on it: manager/iteration-diff.ts).
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { checkpointDiff } from '../../git/diff.js';
import { ManagerError } from '../../manager/errors.js';
import { iterationDiff } from '../../manager/iteration-diff.js';
import { errors, json, type ApiContext } from '../api-context.js';
import { diffParamSchema, errorSchema, iterationDiffParamSchema } from '../schemas.js';

/** The errors every route may give, with what a 404 means here. */
const failures = (notFound: string) => ({ ...errors, 404: json(errorSchema, notFound) });

/** GET /api/runs/{id}/checkpoints/{sha}/diff, /iterations/{n}/diff. */
export function runDiffRoutes(app: OpenAPIHono, ctx: ApiContext): void {
  const { findRun } = ctx;
  const store = ctx.deps.store;
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/checkpoints/{sha}/diff',
      summary: "The changes of one of the run's checkpoint commits, as a git unified diff (text/plain)",
      request: { params: diffParamSchema },
      responses: { 200: { content: { 'text/plain': { schema: z.string() } }, description: 'git show --patch of the commit' }, ...failures('no such run or checkpoint') },
    }),
    async (c) => {
      const { id, sha } = c.req.valid('param');
      const run = await findRun(id);
      const checkpoint = (await store.listCheckpoints(run.id)).find((k) => k.commit_sha !== null && k.commit_sha.startsWith(sha));
      if (!checkpoint?.commit_sha) throw new ManagerError('not_found', `run ${run.id} has no checkpoint commit ${sha}`);
      return c.text(await checkpointDiff(run.worktree ?? run.workspace, checkpoint.commit_sha), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/iterations/{n}/diff',
      summary: 'What one iteration changed, as a git unified diff (text/plain) of the trees stored before and after it',
      request: { params: iterationDiffParamSchema },
      responses: {
        200: { content: { 'text/plain': { schema: z.string() } }, description: 'git diff of the trees' },
        ...failures('no such run or iteration, or the iteration has no stored trees'),
      },
    }),
    async (c) => {
      const { id, n } = c.req.valid('param');
      const run = await findRun(id);
      return c.text(await iterationDiff(store, run, n), 200);
    },
  );
}
