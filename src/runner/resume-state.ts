// Rebuilds a run's LoopState from its iteration rows, so a resumed run keeps its totals and limits.
import type { LoopState } from '../core/types.js';
import type { IterationRow } from '../store/index.js';
import { costUnknownRow } from '../store/rows.js';

/** The loop state after the given rows (any order), for a process that starts driving the run at `nowMs`. */
export function stateFromRows(rows: readonly IterationRow[], nowMs: number): { state: LoopState; lastSessionId: string | null } {
  const sorted = [...rows].sort((a, b) => a.number - b.number);
  let consecutiveFailures = 0;
  let consecutiveWaits = 0;
  let lastSessionId: string | null = null;
  const state: LoopState = {
    iteration: sorted.at(-1)?.number ?? 0,
    waitedIterations: 0,
    consecutiveFailures: 0,
    consecutiveWaits: 0,
    priorRuntimeMs: 0,
    startedAtMs: nowMs,
    totalCostUsd: 0,
    costUnknown: false,
    totalUsage: { tokensIn: 0, tokensOut: 0, cacheRead: 0, cacheWrite: 0 },
  };
  let unit: string | null = null;
  for (const row of sorted) {
    // Consecutive failures are counted within a unit of work (a task): a new unit starts afresh, as in the loop.
    if (row.unit_id !== null && row.unit_id !== unit) consecutiveFailures = 0;
    unit = row.unit_id;
    state.totalCostUsd += row.cost_usd ?? 0;
    // A row whose driver died has only what was reported while it ran (a lower bound): counted, and unknown.
    if (row.cost_usd === null || costUnknownRow(row)) state.costUnknown = true;
    state.totalUsage = {
      tokensIn: state.totalUsage.tokensIn + (row.tokens_in ?? 0),
      tokensOut: state.totalUsage.tokensOut + (row.tokens_out ?? 0),
      cacheRead: state.totalUsage.cacheRead + (row.cache_read ?? 0),
      cacheWrite: state.totalUsage.cacheWrite + (row.cache_write ?? 0),
    };
    state.priorRuntimeMs += row.duration_ms ?? Math.max(0, (row.completed_at ?? row.started_at) - row.started_at);
    if (row.session_id) lastSessionId = row.session_id;
    switch (row.status) {
      case 'failure':
        consecutiveFailures += 1;
        consecutiveWaits = 0;
        break;
      case 'waiting':
        state.waitedIterations += 1;
        consecutiveWaits += 1;
        break;
      case 'interrupted':
      case 'running':
        break;
      default:
        consecutiveFailures = 0;
        consecutiveWaits = 0;
    }
  }
  state.consecutiveFailures = consecutiveFailures;
  state.consecutiveWaits = consecutiveWaits;
  return { state, lastSessionId };
}
