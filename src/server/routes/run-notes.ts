// The notes routes (docs/notes.md): POST /api/runs/:id/notes writes a note for the run's next iteration, GET lists
// them, DELETE /api/runs/:id/notes/:noteId withdraws a pending one. Registered before the control routes, whose
// path /api/runs/{id}/{action} would match them.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { cancelNote, NoteTooLargeError, noteView } from '../../manager/notes.js';
import { errors, HttpError, json, type ApiContext } from '../api-context.js';
import { errorSchema, noteBodySchema, noteListSchema, noteSchema, runIdParamSchema } from '../schemas.js';

const noteParamSchema = runIdParamSchema.extend({ noteId: z.coerce.number().int().positive() });
const failures = { ...errors, 404: json(errorSchema, 'no such run or note') };

/** POST/GET /api/runs/{id}/notes, DELETE /api/runs/{id}/notes/{noteId}. */
export function runNoteRoutes(app: OpenAPIHono, ctx: ApiContext): void {
  const { deps, findRun } = ctx;
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/notes',
      summary: 'A note for the run: delivered once, in the prompt of the next iteration that starts (at most 4 KiB; 413 over)',
      request: { params: runIdParamSchema, body: { content: { 'application/json': { schema: noteBodySchema } }, required: true } },
      responses: { 201: json(noteSchema, 'the note, pending'), ...failures, 413: json(errorSchema, 'the note is over 4 KiB (or the body over 1 MiB)') },
    }),
    async (c) => {
      const run = await findRun(c.req.valid('param').id);
      try {
        return c.json(noteView(await deps.manager.addNote(run.id, c.req.valid('json').text, 'user')), 201);
      } catch (error) {
        if (error instanceof NoteTooLargeError) throw new HttpError(413, 'payload_too_large', error.message);
        throw error;
      }
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/notes',
      summary: "The run's notes, oldest first: pending, delivered (with the iteration) and withdrawn",
      request: { params: runIdParamSchema },
      responses: { 200: json(noteListSchema, 'the notes'), ...failures },
    }),
    async (c) => {
      const run = await findRun(c.req.valid('param').id);
      return c.json({ notes: (await deps.store.listNotes(run.id)).map(noteView) }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'delete',
      path: '/api/runs/{id}/notes/{noteId}',
      summary: 'Withdraws a pending note (409 once delivered)',
      request: { params: noteParamSchema },
      responses: { 200: json(noteSchema, 'the note, withdrawn'), ...failures, 409: json(errorSchema, 'already delivered or withdrawn') },
    }),
    async (c) => {
      const { id, noteId } = c.req.valid('param');
      const run = await findRun(id);
      return c.json(noteView(await cancelNote(deps.store, run, noteId, deps.now())), 200);
    },
  );
}
