// REST calls of the dashboard: one function per endpoint, every response parsed with its schema, every
// failure an ApiError carrying the server's {error: {code, message}} (or what went wrong on the way).
import type { z } from 'zod';
import {
  activityListSchema,
  apiErrorSchema,
  createdRunSchema,
  eventListSchema,
  runDetailSchema,
  runListSchema,
  statsSchema,
  type AgentActivity,
  type CreateRun,
  type RunDetail,
  type RunEvent,
  type RunList,
  type Stats,
} from './api-types.js';

/** A failed API call: the server's error code and message, or `network` / `bad_response`. */
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
  if (response.ok) return response;
  const body: unknown = await response.json().catch(() => null);
  const parsed = apiErrorSchema.safeParse(body);
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

const post = (body?: unknown): RequestInit => ({ method: 'POST', body: body === undefined ? undefined : JSON.stringify(body) });

/** Most runs the board loads (GET /api/runs is paginated; the board follows next_cursor up to this). */
export const MAX_BOARD_RUNS = 5000;

/** GET /api/runs, every page. */
export async function listRuns(): Promise<RunList> {
  const runs: RunList['runs'] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: '500' });
    if (cursor !== null) query.set('cursor', cursor);
    const page: RunList = await json(runListSchema, `/runs?${query.toString()}`);
    runs.push(...page.runs);
    cursor = page.next_cursor;
  } while (cursor !== null && runs.length < MAX_BOARD_RUNS);
  return { runs, next_cursor: cursor };
}

/** GET /api/runs/:id. */
export function getRun(id: string): Promise<RunDetail> {
  return json(runDetailSchema, `/runs/${encodeURIComponent(id)}`);
}

/** GET /api/stats. */
export function getStats(): Promise<Stats> {
  return json(statsSchema, '/stats');
}

/** GET /api/runs/:id/events?after_seq=N: stored events after a seq (the back-fill of a gap). */
export async function eventsAfter(id: string, afterSeq: number): Promise<RunEvent[]> {
  return (await json(eventListSchema, `/runs/${encodeURIComponent(id)}/events?after_seq=${afterSeq}`)).events;
}

/** GET /api/runs/:id/activity?iteration=N: one iteration's output, parsed by its agent's adapter. */
export async function iterationActivity(id: string, iteration: number): Promise<{ activity: AgentActivity[]; truncated: boolean }> {
  return json(activityListSchema, `/runs/${encodeURIComponent(id)}/activity?iteration=${iteration}`);
}

/** GET /api/runs/:id/checkpoints/:sha/diff: the unified diff of one checkpoint commit. */
export async function checkpointDiff(id: string, sha: string): Promise<string> {
  const response = await request(`/runs/${encodeURIComponent(id)}/checkpoints/${encodeURIComponent(sha)}/diff`, { headers: { accept: 'text/plain' } });
  return response.text();
}

/** POST /api/runs. */
export function createRun(body: CreateRun): Promise<z.infer<typeof createdRunSchema>> {
  return json(createdRunSchema, '/runs', post(body));
}

/** A control of a run (POST /api/runs/:id/<action>). */
export type RunAction = 'pause' | 'resume' | 'stop';

/** POST /api/runs/:id/pause|resume|stop. */
export async function controlRun(id: string, action: RunAction): Promise<void> {
  await request(`/runs/${encodeURIComponent(id)}/${action}`, post({}));
}

/** POST /api/runs/:id/extend: allow `iterations` more iterations (resuming the run if it ended on its limit). */
export async function extendRun(id: string, iterations: number): Promise<void> {
  await request(`/runs/${encodeURIComponent(id)}/extend`, post({ iterations }));
}

/** POST /api/runs/:id/rollback: restore the files of an iteration's checkpoint as a new commit (`force`: even over uncommitted work). */
export async function rollbackRun(id: string, iteration: number, force: boolean): Promise<void> {
  await request(`/runs/${encodeURIComponent(id)}/rollback`, post({ to: iteration, force }));
}
