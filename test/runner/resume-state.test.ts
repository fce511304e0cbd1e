// The loop state rebuilt from stored iteration rows on resume: totals, waits, and consecutive failures
// counted within a unit of work (a task), as the loop counts them.
import { expect, it } from 'vitest';
import { stateFromRows } from '../../src/runner/resume-state.js';
import type { IterationRow } from '../../src/store/index.js';

function row(number: number, status: IterationRow['status'], unit: string | null, cost: number | null = 0.1): IterationRow {
  return {
    run_id: 'r', number, agent: 'claude', status, started_at: 1000 * number, completed_at: 1000 * number + 500, duration_ms: 500, exit_code: status === 'failure' ? 1 : 0,
    exit_signal: null, tokens_in: 10, tokens_out: 1, cache_read: 0, cache_write: 0, cost_usd: cost, completion_signal_found: status === 'complete',
    failure_signal_found: false, error_kind: status === 'failure' ? 'exit_nonzero' : 'none', error_message: null, session_id: `s${number}`, model: null, log_path: null, unit_id: unit,
    tree_before: null, tree_after: null, files_changed: null, files_changed_total: null, discarded_ref: null, verify: null,
  };
}

it('counts totals over every row and consecutive failures only within the last unit', () => {
  const rows = [row(1, 'failure', 'A'), row(2, 'failure', 'A'), row(3, 'failure', 'B'), row(4, 'interrupted', 'B', null)];
  const { state, lastSessionId } = stateFromRows(rows, 99_000);
  expect(state).toMatchObject({ iteration: 4, consecutiveFailures: 1, totalCostUsd: 0.30000000000000004, costUnknown: true, priorRuntimeMs: 2000, startedAtMs: 99_000 });
  expect(lastSessionId).toBe('s4');
  // Rows without units (a prompt loop) count across the whole run.
  expect(stateFromRows([row(1, 'failure', null), row(2, 'failure', null)], 0).state.consecutiveFailures).toBe(2);
});
