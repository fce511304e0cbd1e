// The events that report one finished iteration, built from its result and the decision taken after it.
import type { DecideOutput } from '../core/decide.js';
import type { IterationResult, Limits } from '../core/types.js';
import type { EventBodyOf, RunEventBody } from './events.js';
import type { ProgramUnit } from './program.js';
import type { VerifyRecord } from '../store/rows.js';

/** The unit as events carry it (snake_case). */
export function eventUnit(unit: ProgramUnit | null): EventBodyOf<'iteration_started'>['unit'] {
  return unit === null ? null : { id: unit.id, title: unit.title, iteration: unit.iteration, max_iterations: unit.maxIterations };
}

/** What the events of a finished iteration need to know. */
export interface FinishedIteration {
  time: number;
  iteration: number;
  maxIterations: number | null;
  result: IterationResult;
  decided: DecideOutput;
  limits: Limits;
  malformedLines: number;
  agent: string;
  unit: ProgramUnit | null;
  /** What the iteration changed, when tracked. */
  changes?: EventBodyOf<'iteration_completed'>['changes'];
  /** The verify gate's evidence when its check ran after the iteration. */
  verify?: VerifyRecord | null;
}

/**
 * The events of a finished iteration, in order: completion signal detected, iteration completed, tokens used,
 * cost incurred, error, circuit breaker tripped (each only when it applies).
 */
export function iterationEvents(f: FinishedIteration): RunEventBody[] {
  const { result, decided, time, iteration } = f;
  const state = decided.state;
  const events: RunEventBody[] = [];
  if (result.successSignal) events.push({ type: 'completion_signal_detected', time, iteration });
  events.push({
    type: 'iteration_completed',
    time,
    iteration,
    max_iterations: f.maxIterations,
    outcome: decided.outcome,
    duration_ms: Math.max(0, Math.round(result.durationMs)),
    exit_code: result.exitCode,
    exit_signal: result.exitSignal,
    consecutive_failures: state.consecutiveFailures,
    failure_threshold: f.limits.failureThreshold,
    completion_signal_found: result.successSignal,
    failure_signal_found: result.failureSignal,
    error_kind: result.errorKind,
    error_message: result.errorMessage,
    tokens_in: result.usage?.tokensIn ?? null,
    tokens_out: result.usage?.tokensOut ?? null,
    cache_read: result.usage?.cacheRead ?? null,
    cache_write: result.usage?.cacheWrite ?? null,
    cost_usd: result.costUsd,
    session_id: result.sessionId,
    model: result.model,
    malformed_lines: f.malformedLines,
    agent: f.agent,
    unit: eventUnit(f.unit),
    ...(f.changes ? { changes: f.changes } : {}),
    ...(f.verify ? { verify: f.verify } : {}),
  });
  if (result.usage) {
    const u = result.usage;
    events.push({ type: 'tokens_used', time, iteration, tokens_in: u.tokensIn, tokens_out: u.tokensOut, cache_read: u.cacheRead, cache_write: u.cacheWrite });
  }
  if (result.costUsd !== null) events.push({ type: 'cost_incurred', time, iteration, cost_usd: result.costUsd, total_cost_usd: state.totalCostUsd });
  if (result.errorKind !== 'none') {
    const message = result.errorMessage ?? result.errorKind;
    events.push({ type: 'error', time, iteration, kind: result.errorKind, message, consecutive_failures: state.consecutiveFailures, retry_count: decided.retries, last_output: result.lastOutput ?? [] });
  }
  if (decided.decision.kind === 'stop' && decided.decision.reason === 'failure_threshold') {
    events.push({ type: 'circuit_breaker_tripped', time, consecutive_failures: state.consecutiveFailures, failure_threshold: f.limits.failureThreshold });
  }
  return events;
}
