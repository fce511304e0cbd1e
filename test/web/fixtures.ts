// Builders of API payloads for the dashboard's unit tests (complete objects, parsed by the API schemas).
import { runSummarySchema, type RunSummary } from '../../web/src/api/api-types.js';

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
