// The notes routes (docs/notes.md): POST /api/runs/:id/notes writes a note for the run's next iteration, GET lists
// them, DELETE /api/runs/:id/notes/:noteId withdraws a pending one. Errors leave through the API's one handler
// (a note over 4 KiB: 413).
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { LoopManager } from '../manager/manager.js';
import { cancelNote, noteView } from '../manager/notes.js';
import type { RunRow, Store } from '../store/index.js';
import { errorSchema, noteBodySchema, noteListSchema, noteSchema, runIdParamSchema } from './schemas.js';

const noteParamSchema = runIdParamSchema.extend({ noteId: z.coerce.number().int().positive() });
const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errors = { 400: json(errorSchema, 'invalid request'), 401: json(errorSchema, 'a token is required, or it is wrong'), 404: json(errorSchema, 'no such run or note') };

/** Adds the notes routes to the API (before the control routes, whose path would match them). */
export function registerNoteRoutes(app: OpenAPIHono, deps: { manager: LoopManager; store: Store; now(): number }, findRun: (id: string) => Promise<RunRow>): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/notes',
      summary: "A note for the run: delivered once, in the prompt of the next iteration that starts (at most 4 KiB; 413 over)",
      request: { params: runIdParamSchema, body: { content: { 'application/json': { schema: noteBodySchema } }, required: true } },
      responses: { 201: json(noteSchema, 'the note, pending'), 413: json(errorSchema, 'the note is over 4 KiB'), ...errors },
    }),
    async (c) => {
      const run = await findRun(c.req.valid('param').id);
      return c.json(noteView(await deps.manager.addNote(run.id, c.req.valid('json').text, 'user')), 201);
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/notes',
      summary: "The run's notes, oldest first: pending, delivered (with the iteration) and withdrawn",
      request: { params: runIdParamSchema },
      responses: { 200: json(noteListSchema, 'the notes'), ...errors },
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
      responses: { 200: json(noteSchema, 'the note, withdrawn'), 409: json(errorSchema, 'already delivered or withdrawn'), ...errors },
    }),
    async (c) => {
      const { id, noteId } = c.req.valid('param');
      const run = await findRun(id);
      return c.json(noteView(await cancelNote(deps.store, run, noteId, deps.now())), 200);
    },
  );
}
