// REST calls of the dashboard: one function per endpoint, every response parsed with the server's own schema,
// every failure an ApiError carrying the server's {error: {code, message}} (or what went wrong on the way).
import type { z } from 'zod';
import {
  activityListSchema,
  agentListSchema,
  budgetReportSchema,
  controlOutcomeSchema,
  errorSchema,
  noteListSchema,
  noteSchema,
  eventListSchema,
  rollbackResultSchema,
  runCreatedSchema,
  runDetailSchema,
  runListSchema,
  searchResultSchema,
  statsSchema,
  type Agent,
  type AgentActivity,
  type BudgetReport,
  type ControlOutcome,
  type Note,
  type RunCreated,
  type RunDetail,
  type RunEvent,
  type RunItem,
  type RunRequest,
  type SearchResult,
  type Stats,
} from './api-types.js';
import { noteSignedOut, noteStatus } from './session.js';

/** A failed API call: the server's error code and message, or `network` / `http` / `bad_response`. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number | null;
  constructor(code: string, message: string, status: number | null) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
  }
}

/** Where the API lives: the page's own origin (the dashboard is served by `ringmaster serve`). */
const BASE = '/api';

async function request(path: string, init?: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(`${BASE}${path}`, { ...init, headers: { accept: 'application/json', ...(init?.body === undefined ? {} : { 'content-type': 'application/json' }), ...init?.headers } });
  } catch (e) {
    throw new ApiError('network', `cannot reach the server: ${(e as Error).message}`, null);
  }
  noteStatus(response.status);
  if (response.ok) return response;
  const body: unknown = await response.json().catch(() => null);
  const parsed = errorSchema.safeParse(body);
  if (parsed.success) throw new ApiError(parsed.data.error.code, parsed.data.error.message, response.status);
  throw new ApiError('http', `${response.status} ${response.statusText}`, response.status);
}

async function json<S extends z.ZodType>(schema: S, path: string, init?: RequestInit): Promise<z.infer<S>> {
  const response = await request(path, init);
  const body: unknown = await response.json().catch(() => undefined);
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ApiError('bad_response', `unexpected response from ${path}: ${parsed.error.issues[0]?.message ?? 'invalid'}`, response.status);
  return parsed.data;
}

const post = (body: unknown = {}): RequestInit => ({ method: 'POST', body: JSON.stringify(body) });
const run = (id: string): string => `/runs/${encodeURIComponent(id)}`;

/** Most runs the board loads (newest first); older ones are counted but not listed. */
export const MAX_BOARD_RUNS = 5000;

/** Runs per request (the server's largest page). */
const PAGE = 1000;

/** GET /api/runs, page after page (newest first) up to MAX_BOARD_RUNS; `total` counts every run. */
export async function listRuns(): Promise<{ runs: RunItem[]; total: number }> {
  const runs: RunItem[] = [];
  const seen = new Set<string>();
  let total = 0;
  for (let offset = 0; offset < MAX_BOARD_RUNS; offset += PAGE) {
    const page = await json(runListSchema, `/runs?limit=${PAGE}&offset=${offset}`);
    total = page.total;
    // Runs created meanwhile shift the pages: a run seen on the previous page may come again.
    for (const item of page.runs) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      runs.push(item);
    }
    if (page.runs.length < PAGE || offset + PAGE >= total) break;
  }
  return { runs, total };
}

/** GET /api/runs/:id. */
export function getRun(id: string): Promise<RunDetail> {
  return json(runDetailSchema, run(id));
}

/** One run as the board lists it (GET /api/runs/:id without what only the run page shows). */
export async function getRunItem(id: string): Promise<RunItem> {
  const { spec: _spec, last_iteration: _last, duration_ms: _duration, ...item } = (await getRun(id)).run;
  return item;
}

/** GET /api/stats. */
export function getStats(): Promise<Stats> {
  return json(statsSchema, '/stats');
}

/** GET /api/budget. */
export function getBudget(): Promise<BudgetReport> {
  return json(budgetReportSchema, '/budget');
}

/** PUT /api/budget: a number sets the limit, null clears it. */
export function setDailyBudget(usd: number | null): Promise<BudgetReport> {
  return json(budgetReportSchema, '/budget', { method: 'PUT', body: JSON.stringify({ daily_usd: usd }) });
}

/** GET /api/agents. */
export async function listAgents(): Promise<Agent[]> {
  return (await json(agentListSchema, '/agents')).agents;
}

/** GET /api/runs/:id/events?after_seq=N: stored events after a seq, in order (at most `limit`). */
export async function eventsAfter(id: string, afterSeq: number, limit = 1000): Promise<RunEvent[]> {
  return (await json(eventListSchema, `${run(id)}/events?after_seq=${afterSeq}&limit=${limit}`)).events;
}

/** Most pages of one iteration's activity loaded (a page covers at most 1 MiB of log). */
export const MAX_ACTIVITY_PAGES = 32;

/**
 * GET /api/runs/:id/activity?iteration=N, page after page: one iteration's log read back by its agent's parser
 * (`truncated`: more than MAX_ACTIVITY_PAGES). The next page is asked for before a page is taken in, so the server
 * reads it meanwhile.
 */
export async function iterationActivity(id: string, iteration: number): Promise<{ activity: AgentActivity[]; truncated: boolean }> {
  const activity: AgentActivity[] = [];
  const page = (offset: number, index: number) => json(activityListSchema, `${run(id)}/activity?iteration=${iteration}&offset=${offset}&index=${index}`);
  let next = page(0, 0);
  for (let n = 0; n < MAX_ACTIVITY_PAGES; n++) {
    const current = await next;
    if (!current.truncated) return { activity: activity.concat(current.activity), truncated: false };
    if (n + 1 < MAX_ACTIVITY_PAGES) next = page(current.next_offset, current.next_index);
    for (const piece of current.activity) activity.push(piece);
  }
  return { activity, truncated: true };
}

/** GET /api/runs/:id/search: the iterations (before `before`, when given) whose stored output contains `query`. */
export function searchOutput(id: string, query: string, before?: number): Promise<SearchResult> {
  const q = new URLSearchParams({ q: query });
  if (before !== undefined) q.set('before', String(before));
  return json(searchResultSchema, `${run(id)}/search?${q.toString()}`);
}

/** GET /api/runs/:id/checkpoints/:sha/diff: the unified diff of one checkpoint commit. */
export async function checkpointDiff(id: string, sha: string): Promise<string> {
  const response = await request(`${run(id)}/checkpoints/${encodeURIComponent(sha)}/diff`, { headers: { accept: 'text/plain' } });
  return response.text();
}

/** GET /api/runs/:id/iterations/:n/diff: what one iteration changed, as a unified diff. */
export async function iterationDiff(id: string, iteration: number): Promise<string> {
  const response = await request(`${run(id)}/iterations/${iteration}/diff`, { headers: { accept: 'text/plain' } });
  return response.text();
}

/** POST /api/sign-out: ends this browser's session. */
export async function signOut(): Promise<void> {
  await request('/sign-out', post());
  noteSignedOut();
}

/** POST /api/runs. */
export function createRun(body: RunRequest): Promise<RunCreated> {
  return json(runCreatedSchema, '/runs', post(body));
}

/** A control of a run (POST /api/runs/:id/<action>). */
export type RunAction = 'pause' | 'resume' | 'stop';

/** POST /api/runs/:id/pause|resume|stop (pause `now`: the agent suspended at once): what the run did with the request. */
export function controlRun(id: string, action: RunAction, now = false): Promise<ControlOutcome> {
  return json(controlOutcomeSchema, `${run(id)}/${action}${now ? '?now=true' : ''}`, post());
}

/** POST /api/runs/:id/extend: allow `iterations` more iterations (a run that ended on its limit continues). */
export function extendRun(id: string, iterations: number): Promise<ControlOutcome> {
  return json(controlOutcomeSchema, `${run(id)}/extend`, post({ iterations }));
}

/** GET /api/runs/:id/notes: the run's notes, oldest first. */
export async function listNotes(id: string): Promise<Note[]> {
  return (await json(noteListSchema, `${run(id)}/notes`)).notes;
}

/** POST /api/runs/:id/notes: a note for the run's next iteration (400 empty, 413 over 4 KiB). */
export function addNote(id: string, text: string): Promise<Note> {
  return json(noteSchema, `${run(id)}/notes`, post({ text }));
}

/** DELETE /api/runs/:id/notes/:noteId: withdraws a pending note. */
export function withdrawNote(id: string, noteId: number): Promise<Note> {
  return json(noteSchema, `${run(id)}/notes/${noteId}`, { method: 'DELETE' });
}

/** POST /api/runs/:id/rollback: restore the files of an iteration's checkpoint as a new commit (`force`: over uncommitted work). */
export function rollbackRun(id: string, iteration: number, force: boolean): Promise<z.infer<typeof rollbackResultSchema>> {
  return json(rollbackResultSchema, `${run(id)}/rollback`, post({ to: iteration, force }));
}
