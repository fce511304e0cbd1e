// Builders of API payloads for the dashboard's unit tests (complete objects, parsed by the API schemas).
import { runEventSchema, runSummarySchema, type RunEvent, type RunSummary } from '../../web/src/api/api-types.js';

/** A run summary with sensible defaults, parsed by the schema the API client uses. */
export function runSummary(fields: Partial<RunSummary> & { id: string }): RunSummary {
  return runSummarySchema.parse({
    status: 'running',
    stop_reason: null,
    agent: 'claude',
    workspace: '/work/app',
    iterations: 0,
    cost_usd: 0,
    tokens_in: 0,
    tokens_out: 0,
    runtime_ms: 0,
    created_at: '2026-01-01T10:00:00.000Z',
    updated_at: '2026-01-01T10:00:00.000Z',
    ended_at: null,
    ...fields,
  });
}

/** Fields an event type needs that a test does not care about. */
const EVENT_DEFAULTS: Record<string, Record<string, unknown>> = {
  run_started: { kind: 'loop', label: 'PROMPT.md', max_iterations: null, workspace: '/work/app', agent: 'claude', resumed: false },
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
  failed: { message: null },
};

/** A stored run event (run_id, seq, time and the type's other fields defaulted), parsed by the API's event schema. */
export function runEvent(fields: { type: string; run_id?: string; seq: number; time?: number } & Record<string, unknown>): RunEvent {
  return runEventSchema.parse({ run_id: 'r', time: 0, ...EVENT_DEFAULTS[fields.type], ...fields });
}
