// The loop snapshot: the loop state stored with each checkpoint, so a checkpoint says where the run stood.
import { budgetedIterations, runtimeUsedMs } from './decide.js';
import type { LoopState, RunStatus } from './types.js';

/** The loop state at a checkpoint (snake_case, stored as JSON with the checkpoint row). */
export interface LoopSnapshot {
  iteration: number;
  status: RunStatus;
  budgeted_iterations: number;
  waited_iterations: number;
  consecutive_failures: number;
  total_cost_usd: number;
  cost_unknown: boolean;
  tokens_in: number;
  tokens_out: number;
  cache_read: number;
  cache_write: number;
  runtime_ms: number;
  taken_at: number;
}

/** The snapshot of `state` at `nowMs`. */
export function loopSnapshot(state: LoopState, status: RunStatus, nowMs: number): LoopSnapshot {
  return {
    iteration: state.iteration,
    status,
    budgeted_iterations: budgetedIterations(state),
    waited_iterations: state.waitedIterations,
    consecutive_failures: state.consecutiveFailures,
    total_cost_usd: state.totalCostUsd,
    cost_unknown: state.costUnknown,
    tokens_in: state.totalUsage.tokensIn,
    tokens_out: state.totalUsage.tokensOut,
    cache_read: state.totalUsage.cacheRead,
    cache_write: state.totalUsage.cacheWrite,
    runtime_ms: Math.round(runtimeUsedMs(state, nowMs)),
    taken_at: nowMs,
  };
}
