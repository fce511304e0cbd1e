// The pure decision after each iteration (the stop conditions and the outcome matrix: docs/architecture.md "One iteration").
// No I/O, no clock: time comes in as `nowMs`.
import type { Decision, IterationOutcome, IterationResult, Limits, LoopState, RunStatus, StopReason } from './types.js';
import { addUsage, ZERO_USAGE } from './types.js';
import { isRunFatal, isRunLimit, isWait } from './error-policy.js';

/** The state of a run before its first iteration. */
export function initialState(startedAtMs: number, priorRuntimeMs = 0): LoopState {
  return {
    iteration: 0,
    waitedIterations: 0,
    consecutiveFailures: 0,
    consecutiveWaits: 0,
    priorRuntimeMs,
    startedAtMs,
    totalCostUsd: 0,
    costUnknown: false,
    totalUsage: ZERO_USAGE,
  };
}

/** Outcome of one iteration: the outcome matrix (success, failure, complete), plus waiting and interrupted. */
export function classifyOutcome(result: IterationResult): IterationOutcome {
  if (result.errorKind === 'interrupted') return 'interrupted';
  if (result.successSignal) return 'complete';
  if (isWait(result.errorKind)) return 'waiting';
  if (result.failureSignal || result.exitCode !== 0 || result.errorKind !== 'none') return 'failure';
  return 'success';
}

/** Iterations that count against max_iterations: limit-waits do not use up the budget. */
export function budgetedIterations(state: LoopState): number {
  return state.iteration - state.waitedIterations;
}

/** Runtime used by the run so far (including earlier processes of a resumed run). */
export function runtimeUsedMs(state: LoopState, nowMs: number): number {
  return state.priorRuntimeMs + Math.max(0, nowMs - state.startedAtMs);
}

/** Overloaded answers retried in a row by default (loop.overload_retries). */
export const DEFAULT_OVERLOAD_RETRIES = 10;

/**
 * An overload (HTTP 5xx, 529) is waited out and retried, but not forever: the answer that follows
 * `limits.overloadRetries` retries in a row is a failure like any other (it counts toward max_iterations and the
 * failure threshold), its message the agent's own with the count.
 */
export function overloadRetried(result: IterationResult, state: LoopState, limits: Limits): IterationResult {
  const retries = limits.overloadRetries ?? DEFAULT_OVERLOAD_RETRIES;
  if (result.errorKind !== 'overloaded' || state.consecutiveWaits < retries) return result;
  return { ...result, errorKind: 'agent_error', errorMessage: `${result.errorMessage ?? 'overloaded'} (still failing after ${retries} retries: loop.overload_retries)` };
}

/** Exponential backoff: base * 2^(n-1), capped; 0 for n <= 0. */
export function backoffMs(consecutive: number, limits: Limits): number {
  if (consecutive <= 0 || limits.backoffBaseMs <= 0) return 0;
  return Math.min(limits.backoffBaseMs * 2 ** Math.min(consecutive - 1, 30), limits.backoffMaxMs);
}

function stop(reason: StopReason, status: RunStatus): Decision {
  return { kind: 'stop', reason, status };
}

/**
 * The limits that stop a run whatever the last iteration did: an external stop first (the user's word wins
 * over a budget), then iterations, runtime, cost. Used before every iteration and after each one.
 */
export function limitReached(state: LoopState, limits: Limits, nowMs: number, stopRequested: boolean): Decision | null {
  if (stopRequested) return stop('user_stop', 'stopped');
  if (limits.maxIterations !== null && budgetedIterations(state) >= limits.maxIterations) {
    return stop('max_iterations', 'completed');
  }
  if (limits.maxRuntimeMs !== null && runtimeUsedMs(state, nowMs) >= limits.maxRuntimeMs) {
    return stop('max_runtime', 'completed');
  }
  if (limits.maxCostUsd !== null && state.totalCostUsd >= limits.maxCostUsd) return stop('max_cost', 'completed');
  return null;
}

/** Input of `decide`. */
export interface DecideInput {
  state: LoopState;
  result: IterationResult;
  limits: Limits;
  nowMs: number;
  /** An external stop (user, manager) was requested while the iteration ran. */
  stopRequested: boolean;
  /**
   * What a completion ends: the run (default), or only the current unit of work (a task, a workflow step):
   * then the iteration counts as a success and the run goes on under its limits.
   */
  completionEnds?: 'run' | 'unit';
  /**
   * The program gave up the current unit after this iteration: a failure does not trip the failure
   * threshold (the unit's own rules ended it) and no backoff follows (the next unit starts afresh).
   */
  unitEnded?: boolean;
}

/** Output of `decide`: the next state, the iteration's outcome and what to do next. */
export interface DecideOutput {
  state: LoopState;
  outcome: IterationOutcome;
  decision: Decision;
  /** Iterations in a row before this one that failed or waited (an error record's retry count). */
  retries: number;
}

/**
 * Decides what happens after an iteration. Order: interrupt, success signal, fatal error, limit-wait,
 * failure threshold (before max iterations: "MaxIterations = 1 ... aborted if the iteration
 * fails and threshold is 1"), then external stop, iterations, runtime, cost. A pause (cooldown, backoff, or
 * a limit's wait) that would end past the runtime budget stops the run with max_runtime at once.
 */
export function decide(input: DecideInput): DecideOutput {
  return { ...decideNext(input), retries: input.state.consecutiveFailures + input.state.consecutiveWaits };
}

function decideNext({ state, result, limits, nowMs, stopRequested, completionEnds = 'run', unitEnded = false }: DecideInput): Omit<DecideOutput, 'retries'> {
  const outcome = classifyOutcome(result);
  const next: LoopState = {
    ...state,
    iteration: state.iteration + 1,
    waitedIterations: state.waitedIterations + (outcome === 'waiting' ? 1 : 0),
    totalCostUsd: state.totalCostUsd + (result.costUsd ?? 0),
    costUnknown: state.costUnknown || result.costUsd === null,
    totalUsage: result.usage ? addUsage(state.totalUsage, result.usage) : state.totalUsage,
  };
  switch (outcome) {
    case 'interrupted':
      return { state: next, outcome, decision: stop('interrupted', 'stopped') };
    case 'complete':
      next.consecutiveFailures = 0;
      next.consecutiveWaits = 0;
      if (completionEnds === 'run') return { state: next, outcome, decision: stop('success_signal', 'completed') };
      break;
    case 'success':
      next.consecutiveFailures = 0;
      next.consecutiveWaits = 0;
      break;
    case 'failure':
      // Stopped by the run's own limit (its runtime, its budget): not the agent's failure; the run ends with that
      // limit (unless a user's stop came first), even if another limit is reached too (the last iteration) or the
      // cost recorded falls a little short of what was estimated live.
      if (isRunLimit(result.errorKind)) {
        return { state: next, outcome, decision: stopRequested ? stop('user_stop', 'stopped') : stop(result.errorKind, 'completed') };
      }
      if (isRunFatal(result.errorKind)) {
        next.consecutiveFailures = state.consecutiveFailures + 1;
        return { state: next, outcome, decision: stop('fatal_error', 'failed') };
      }
      next.consecutiveFailures = state.consecutiveFailures + 1;
      next.consecutiveWaits = 0;
      if (!unitEnded && next.consecutiveFailures >= limits.failureThreshold) {
        return { state: next, outcome, decision: stop('failure_threshold', 'failed') };
      }
      break;
    case 'waiting': {
      next.consecutiveWaits = state.consecutiveWaits + 1;
      const limit = limitReached(next, limits, nowMs, stopRequested);
      if (limit) return { state: next, outcome, decision: limit };
      // Stopped by the shared budget: no wait of its own; the boundary reads the store and waits while it is reached.
      if (result.errorKind === 'budget') return { state: next, outcome, decision: { kind: 'continue', delayMs: 0 } };
      const untilMs = result.resetAtMs !== null && result.resetAtMs > nowMs
        ? result.resetAtMs
        : nowMs + Math.max(backoffMs(next.consecutiveWaits, limits), 1000);
      if (limits.maxRuntimeMs !== null && runtimeUsedMs(next, untilMs) >= limits.maxRuntimeMs) {
        return { state: next, outcome, decision: stop('max_runtime', 'completed') };
      }
      const reason = result.errorKind === 'overloaded' ? 'overloaded' : result.errorKind === 'rate_limit' ? 'rate_limit' : 'usage_limit';
      return { state: next, outcome, decision: { kind: 'wait', untilMs, reason } };
    }
  }
  const limit = limitReached(next, limits, nowMs, stopRequested);
  if (limit) return { state: next, outcome, decision: limit };
  const delayMs = limits.cooldownMs + (outcome === 'failure' && !unitEnded ? backoffMs(next.consecutiveFailures, limits) : 0);
  // A pause that would outlast the runtime budget ends the run now: sleeping until the deadline changes nothing.
  if (delayMs > 0 && limits.maxRuntimeMs !== null && runtimeUsedMs(next, nowMs + delayMs) >= limits.maxRuntimeMs) {
    return { state: next, outcome, decision: stop('max_runtime', 'completed') };
  }
  return { state: next, outcome, decision: { kind: 'continue', delayMs } };
}
