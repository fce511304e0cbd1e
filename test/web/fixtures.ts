// Builders of API payloads for the dashboard's unit tests: complete objects, parsed by the server's own schemas.
import { runDetailSchema, runItemSchema } from '../../src/server/schemas.js';
import { runEventSchema, type RunDetail, type RunEvent, type RunItem } from '../../web/src/api/api-types.js';

/** Fields a run item of GET /api/runs has that a test does not care about. */
const RUN_DEFAULTS: Omit<RunItem, 'id'> = {
  status: 'running',
  stored_status: 'running',
  stop_reason: null,
  agent: 'claude',
  kind: 'prompt',
  meta: {},
  label: null,
  title: null,
  model: null,
  limits: { max_iterations: null, max_runtime_ms: null, max_cost_usd: null, failure_threshold: null },
  iterations: 0,
  cost_usd: 0,
  cost_unknown: false,
  tokens_in: 0,
  tokens_out: 0,
  cache_read: 0,
  cache_write: 0,
  runtime_ms: 0,
  workspace: '/work/app',
  worktree: null,
  branch: null,
  created_at: '2026-01-01T10:00:00.000Z',
  updated_at: '2026-01-01T10:00:00.000Z',
  ended_at: null,
  owner_pid: 100,
  owner_host: 'host',
  heartbeat_at: null,
  transition: null,
  suspended: false,
  queue_position: null,
  last_seq: 0,
  waiting_until: null,
};

/** A run as GET /api/runs lists it, parsed by the server's schema. */
export function runItem(fields: Partial<RunItem> & { id: string }): RunItem {
  return runItemSchema.parse({ ...RUN_DEFAULTS, ...fields });
}

/** A run's detail as GET /api/runs/:id answers, parsed by the server's schema. */
export function runDetail(fields: Partial<RunItem> & { id: string }, rest: Partial<Omit<RunDetail, 'run'>> = {}): RunDetail {
  return runDetailSchema.parse({ run: { ...runItem(fields), spec: {}, last_iteration: fields.iterations ?? 0, duration_ms: 0 }, iterations: [], checkpoints: [], errors: [], units: [], ...rest });
}

/** Fields an event type needs that a test does not care about. */
const EVENT_DEFAULTS: Record<string, Record<string, unknown>> = {
  run_queued: { position: 0, workspace: '/work/app', agent: 'claude', label: 'PROMPT.md' },
  run_started: { kind: 'prompt', label: 'PROMPT.md', max_iterations: null, workspace: '/work/app', agent: 'claude', resumed: false },
  iteration_started: { max_iterations: null, agent: 'claude', log_path: '/logs/iteration.log', unit: null },
  iteration_completed: {
    max_iterations: null,
    outcome: 'success',
    duration_ms: 900,
    exit_code: 0,
    exit_signal: null,
    consecutive_failures: 0,
    failure_threshold: 3,
    completion_signal_found: false,
    failure_signal_found: false,
    error_kind: 'none',
    error_message: null,
    tokens_in: null,
    tokens_out: null,
    cache_read: null,
    cache_write: null,
    cost_usd: null,
    session_id: null,
    model: null,
    malformed_lines: 0,
    agent: 'claude',
    unit: null,
  },
  pause_requested: { by: null, now: false },
  paused: { after_iteration: 0, by: null, suspended: false },
  resumed: { paused_ms: 0 },
  stop_requested: { by: null },
  limits_changed: { by: null },
  failed: { message: null },
};

/** A stored run event (run_id, seq, time and the type's other fields defaulted), parsed by the API's event schema. */
export function runEvent(fields: { type: string; run_id?: string; seq: number; time?: number } & Record<string, unknown>): RunEvent {
  return runEventSchema.parse({ run_id: 'r', time: 0, ...EVENT_DEFAULTS[fields.type], ...fields });
}
