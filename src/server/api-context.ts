// What every route module of the API shares: its dependencies, the HTTP error type the one error handler turns
// into a response, the response helpers of the OpenAPI routes, and the lookups of a run and its list view.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { z } from 'zod';
import type { LoopManager } from '../manager/manager.js';
import { runView } from '../manager/views.js';
import type { RunEvent } from '../runner/events.js';
import { AmbiguousRunIdError } from '../store/errors.js';
import type { RunRow, RunWithTotals, Store } from '../store/index.js';
import { displayStatus, type LivenessProbe } from '../store/liveness.js';
import type { AccessPolicy } from './auth.js';
import { errorSchema, type runItemSchema } from './schemas.js';

/** What the API needs. */
export interface ApiDeps {
  manager: LoopManager;
  store: Store;
  access: AccessPolicy;
  version: string;
  startedAt: number;
  storeKind: string;
  probe(): LivenessProbe;
  now(): number;
  env: Readonly<Record<string, string | undefined>>;
  /** Hands an event written outside a run's driver (a rollback) to the WebSocket. */
  publish(event: RunEvent): void;
  /** The Prometheus exposition of GET /metrics (absent: no such route). */
  metrics?: () => Promise<{ contentType: string; body: string }>;
}

/** An error response with its HTTP status. */
export class HttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 503 | 500,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A JSON response of an OpenAPI route. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });

/** The error responses every route may give. */
export const errors = {
  400: json(errorSchema, 'invalid request'),
  401: json(errorSchema, 'a token is required, or it is wrong'),
  403: json(errorSchema, 'cross-origin or foreign-host request refused'),
  413: json(errorSchema, 'the body is larger than 1 MiB'),
  415: json(errorSchema, 'the body is not declared JSON'),
};

/** What a route module is handed. */
export interface ApiContext {
  deps: ApiDeps;
  /** A run as the list and the WebSocket show it (status as this server sees it, waits, suspension). */
  view: (run: RunWithTotals) => Promise<z.infer<typeof runItemSchema>>;
  /** The run of a full or unique short id; 404 or 400 (ambiguous) otherwise. */
  findRun: (id: string) => Promise<RunRow>;
}

/** A module of routes, registered on the app in order. */
export type RouteModule = (app: OpenAPIHono, ctx: ApiContext) => void;

/** The shared lookups over `deps`. */
export function apiContext(deps: ApiDeps): ApiContext {
  const view = async (run: RunWithTotals) => {
    const waiting = deps.manager.waitingUntil(run.id);
    return {
      ...runView(run, run.totals, deps.manager.owns(run.id) ? run.status : displayStatus(run, deps.probe())),
      transition: deps.manager.transition(run.id),
      last_seq: await deps.store.lastEventSeq(run.id),
      waiting_until: waiting === null ? null : new Date(waiting).toISOString(),
      suspended: deps.manager.suspended(run.id),
      queue_position: deps.manager.queuePosition(run.id),
    };
  };
  const findRun = async (id: string): Promise<RunRow> => {
    try {
      const run = await deps.store.findRun(id);
      if (!run) throw new HttpError(404, 'not_found', `no run '${id}'`);
      return run;
    } catch (error) {
      if (error instanceof AmbiguousRunIdError) throw new HttpError(400, 'invalid_request', error.message);
      throw error;
    }
  };
  return { deps, view, findRun };
}
