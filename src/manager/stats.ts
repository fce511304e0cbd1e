// The loop manager's numbers (docs/manager.md): the active runs of every process that shares the store, this process's share of
// them, and what was spent today.
import type { RunStatus } from '../core/types.js';
import { ACTIVE_STATUSES, isOrphaned, type LivenessProbe } from '../store/liveness.js';
import type { Store } from '../store/index.js';

/** The loop manager's numbers, over the active runs of every process that shares the store. */
export interface ManagerStats {
  total_active: number;
  running: number;
  paused: number;
  pending: number;
  waiting: number;
  total_cost_usd: number;
  total_iterations: number;
  total_tokens: number;
  max_concurrent: number;
  /** Runs this process drives right now (at most max_concurrent). */
  driving: number;
  /** Cost of the iterations started since local midnight, every run. */
  today_cost_usd: number;
}

/** The stats now: `owns` tells the runs this process drives or queues (counted even when they look orphaned). */
export async function managerStats(
  store: Store,
  here: { probe: LivenessProbe; owns: (runId: string) => boolean; now: number; maxConcurrent: number; driving: number },
): Promise<ManagerStats> {
  const runs = (await store.listRuns({ status: ACTIVE_STATUSES })).filter((r) => !isOrphaned(r, here.probe) || here.owns(r.id));
  const count = (status: RunStatus): number => runs.filter((r) => r.status === status).length;
  const midnight = new Date(here.now);
  // The UTC day, as the shared budget's daily window (core/budget.ts).
  midnight.setUTCHours(0, 0, 0, 0);
  const today = (await store.stats()).cost_by_hour.filter((h) => h.hour >= midnight.getTime()).reduce((sum, h) => sum + h.cost_usd, 0);
  return {
    total_active: runs.length,
    running: count('running'),
    paused: count('paused'),
    pending: count('pending'),
    waiting: count('waiting'),
    total_cost_usd: round(runs.reduce((sum, r) => sum + r.totals.cost_usd, 0)),
    total_iterations: runs.reduce((sum, r) => sum + r.totals.iterations, 0),
    total_tokens: runs.reduce((sum, r) => sum + r.totals.tokens_in + r.totals.tokens_out, 0),
    max_concurrent: here.maxConcurrent,
    driving: here.driving,
    today_cost_usd: round(today),
  };
}

function round(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
