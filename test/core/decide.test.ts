// Table tests of the pure decision: every row of seed 001's outcome matrix and edge cases, seed 000's stop conditions.
import { describe, expect, it } from 'vitest';
import { backoffMs, classifyOutcome, decide, initialState, limitReached } from '../../src/core/decide.js';
import type { IterationResult, Limits, LoopState } from '../../src/core/types.js';

const limits = (over: Partial<Limits> = {}): Limits => ({
  maxIterations: 10,
  maxRuntimeMs: null,
  maxCostUsd: null,
  failureThreshold: 3,
  cooldownMs: 0,
  backoffBaseMs: 0,
  backoffMaxMs: 0,
  ...over,
});

const result = (over: Partial<IterationResult> = {}): IterationResult => ({
  exitCode: 0,
  exitSignal: null,
  successSignal: false,
  failureSignal: false,
  durationMs: 1000,
  usage: null,
  costUsd: null,
  sessionId: null,
  model: null,
  errorKind: 'none',
  errorMessage: null,
  resetAtMs: null,
  ...over,
});

const T0 = 1_000_000;
const state = (over: Partial<LoopState> = {}): LoopState => ({ ...initialState(T0), ...over });

describe('seed 001 outcome matrix (exit code x signal)', () => {
  const rows: Array<[string, Partial<IterationResult>, string, string, number]> = [
    // name, result, outcome, decision kind / stop reason, consecutive failures after (from 1 before)
    ['exit 0, no signal: success, reset, continue', { exitCode: 0 }, 'success', 'continue', 0],
    ['exit 0, SUCCESS: job done, completed', { exitCode: 0, successSignal: true }, 'complete', 'success_signal', 0],
    ['exit 0, FAILURE: agent-reported failure, increment', { exitCode: 0, failureSignal: true, errorKind: 'failure_signal' }, 'failure', 'continue', 2],
    ['non-zero, no signal: process failure, increment', { exitCode: 1, errorKind: 'exit_nonzero' }, 'failure', 'continue', 2],
    ['non-zero, SUCCESS: signal wins, completed', { exitCode: 1, successSignal: true, errorKind: 'exit_nonzero' }, 'complete', 'success_signal', 0],
    ['non-zero, FAILURE: both failed, increment', { exitCode: 2, failureSignal: true, errorKind: 'exit_nonzero' }, 'failure', 'continue', 2],
    ['SUCCESS and FAILURE: success takes precedence', { exitCode: 0, successSignal: true, failureSignal: true }, 'complete', 'success_signal', 0],
  ];
  it.each(rows)('%s', (_name, r, outcome, decision, failures) => {
    const out = decide({ state: state({ consecutiveFailures: 1 }), result: result(r), limits: limits(), nowMs: T0 + 1000, stopRequested: false });
    expect(out.outcome).toBe(outcome);
    expect(out.decision.kind === 'stop' ? out.decision.reason : out.decision.kind).toBe(decision);
    if (out.decision.kind === 'stop' && out.decision.reason === 'success_signal') expect(out.decision.status).toBe('completed');
    expect(out.state.consecutiveFailures).toBe(failures);
    expect(out.state.iteration).toBe(1);
  });
});

describe('seed 001 edge cases', () => {
  it('no max iterations configured anywhere: the caller passes 5; the 5th iteration stops with max_iterations', () => {
    const out = decide({ state: state({ iteration: 4 }), result: result(), limits: limits({ maxIterations: 5 }), nowMs: T0, stopRequested: false });
    expect(out.decision).toEqual({ kind: 'stop', reason: 'max_iterations', status: 'completed' });
  });
  it('unlimited: never stops for iterations', () => {
    const out = decide({ state: state({ iteration: 10_000 }), result: result(), limits: limits({ maxIterations: null }), nowMs: T0, stopRequested: false });
    expect(out.decision).toEqual({ kind: 'continue', delayMs: 0 });
  });
  it('MaxIterations = 1: one iteration, then completed', () => {
    const out = decide({ state: state(), result: result(), limits: limits({ maxIterations: 1, failureThreshold: 1 }), nowMs: T0, stopRequested: false });
    expect(out.decision).toEqual({ kind: 'stop', reason: 'max_iterations', status: 'completed' });
  });
  it('MaxIterations = 1 and threshold 1: a failed iteration aborts (failure threshold before max iterations)', () => {
    const out = decide({ state: state(), result: result({ exitCode: 1, errorKind: 'exit_nonzero' }), limits: limits({ maxIterations: 1, failureThreshold: 1 }), nowMs: T0, stopRequested: false });
    expect(out.decision).toEqual({ kind: 'stop', reason: 'failure_threshold', status: 'failed' });
  });
  it('consecutive failures reach the threshold (default 3): aborted', () => {
    const out = decide({ state: state({ iteration: 5, consecutiveFailures: 2 }), result: result({ exitCode: 1, errorKind: 'exit_nonzero' }), limits: limits(), nowMs: T0, stopRequested: false });
    expect(out.decision).toEqual({ kind: 'stop', reason: 'failure_threshold', status: 'failed' });
    expect(out.state.consecutiveFailures).toBe(3);
  });
  it('a successful iteration after 2 failures resets the counter and continues', () => {
    const out = decide({ state: state({ consecutiveFailures: 2 }), result: result(), limits: limits(), nowMs: T0, stopRequested: false });
    expect(out.state.consecutiveFailures).toBe(0);
    expect(out.decision.kind).toBe('continue');
  });
  it('an interrupted iteration stops the run as interrupted', () => {
    const out = decide({ state: state(), result: result({ exitCode: null, errorKind: 'interrupted' }), limits: limits(), nowMs: T0, stopRequested: false });
    expect(out.outcome).toBe('interrupted');
    expect(out.decision).toEqual({ kind: 'stop', reason: 'interrupted', status: 'stopped' });
  });
  it('timeouts count as failures', () => {
    for (const errorKind of ['idle_timeout', 'iteration_timeout'] as const) {
      const out = decide({ state: state(), result: result({ exitCode: null, exitSignal: 'SIGTERM', errorKind }), limits: limits(), nowMs: T0, stopRequested: false });
      expect(out.outcome).toBe('failure');
      expect(out.state.consecutiveFailures).toBe(1);
    }
  });
});

describe('seed 000 stop conditions, in order', () => {
  it('max runtime: elapsed (including a resumed run\'s earlier runtime) >= max_runtime', () => {
    const l = limits({ maxRuntimeMs: 60_000 });
    expect(decide({ state: state(), result: result(), limits: l, nowMs: T0 + 59_999, stopRequested: false }).decision.kind).toBe('continue');
    expect(decide({ state: state(), result: result(), limits: l, nowMs: T0 + 60_000, stopRequested: false }).decision).toEqual({ kind: 'stop', reason: 'max_runtime', status: 'completed' });
    expect(decide({ state: state({ priorRuntimeMs: 59_000 }), result: result(), limits: l, nowMs: T0 + 1000, stopRequested: false }).decision).toMatchObject({ reason: 'max_runtime' });
  });
  it('max cost: total >= max_cost, counting this iteration\'s cost', () => {
    const l = limits({ maxCostUsd: 1 });
    const out = decide({ state: state({ totalCostUsd: 0.6 }), result: result({ costUsd: 0.4 }), limits: l, nowMs: T0, stopRequested: false });
    expect(out.state.totalCostUsd).toBeCloseTo(1.0);
    expect(out.decision).toEqual({ kind: 'stop', reason: 'max_cost', status: 'completed' });
    const under = decide({ state: state({ totalCostUsd: 0.5 }), result: result({ costUsd: 0.4 }), limits: l, nowMs: T0, stopRequested: false });
    expect(under.decision.kind).toBe('continue');
  });
  it('unknown cost is recorded as unknown, never as 0 silently', () => {
    const out = decide({ state: state(), result: result({ costUsd: null }), limits: limits(), nowMs: T0, stopRequested: false });
    expect(out.state.costUnknown).toBe(true);
  });
  it('external stop: user_stop, status stopped', () => {
    const out = decide({ state: state(), result: result(), limits: limits(), nowMs: T0, stopRequested: true });
    expect(out.decision).toEqual({ kind: 'stop', reason: 'user_stop', status: 'stopped' });
  });
  it('completion signal is checked first, before every limit', () => {
    const out = decide({ state: state({ iteration: 9, totalCostUsd: 100 }), result: result({ successSignal: true }), limits: limits({ maxCostUsd: 1, maxRuntimeMs: 1 }), nowMs: T0 + 10, stopRequested: true });
    expect(out.decision).toEqual({ kind: 'stop', reason: 'success_signal', status: 'completed' });
  });
  it('iterations before runtime before cost', () => {
    const all = limits({ maxIterations: 1, maxRuntimeMs: 1, maxCostUsd: 0 });
    expect(limitReached(state({ iteration: 1 }), all, T0 + 10, false)).toMatchObject({ reason: 'max_iterations' });
    expect(limitReached(state(), all, T0 + 10, false)).toMatchObject({ reason: 'max_runtime' });
    expect(limitReached(state(), limits({ maxCostUsd: 0 }), T0, false)).toMatchObject({ reason: 'max_cost' });
    expect(limitReached(state(), limits(), T0, false)).toBeNull();
  });
  it('a fatal error (auth, missing binary) stops at once', () => {
    for (const errorKind of ['auth', 'missing_binary', 'spawn_failed'] as const) {
      const out = decide({ state: state(), result: result({ exitCode: 1, errorKind }), limits: limits(), nowMs: T0, stopRequested: false });
      expect(out.decision).toEqual({ kind: 'stop', reason: 'fatal_error', status: 'failed' });
    }
  });
});

describe('an agent stopped because the run reached a limit while it worked', () => {
  const cut = (errorKind: 'max_cost' | 'max_runtime', costUsd: number | null): IterationResult => result({ exitCode: null, exitSignal: 'SIGKILL', errorKind, costUsd });

  it('max_cost: the run completes with max_cost, even when the recorded cost falls short of the live estimate', () => {
    const out = decide({ state: state({ totalCostUsd: 0.5, consecutiveFailures: 2 }), result: cut('max_cost', 0.45), limits: limits({ maxCostUsd: 1 }), nowMs: T0, stopRequested: false });
    expect(out.outcome).toBe('failure');
    expect(out.decision).toEqual({ kind: 'stop', reason: 'max_cost', status: 'completed' });
    // Not the agent's failure: the count of consecutive failures is left as it was.
    expect(out.state).toMatchObject({ totalCostUsd: 0.95, consecutiveFailures: 2 });
  });

  it('max_runtime: completes with max_runtime, never the failure threshold (threshold 1)', () => {
    const out = decide({ state: state(), result: cut('max_runtime', null), limits: limits({ failureThreshold: 1, maxRuntimeMs: 60_000 }), nowMs: T0 + 60_000, stopRequested: false });
    expect(out.decision).toEqual({ kind: 'stop', reason: 'max_runtime', status: 'completed' });
    expect(out.state.consecutiveFailures).toBe(0);
  });

  it('in the last iteration allowed, the limit that stopped the agent is the reason, not max_iterations', () => {
    const out = decide({ state: state({ iteration: 4 }), result: cut('max_cost', 1.2), limits: limits({ maxIterations: 5, maxCostUsd: 1 }), nowMs: T0, stopRequested: false });
    expect(out.decision).toEqual({ kind: 'stop', reason: 'max_cost', status: 'completed' });
  });

  it("a user's stop that came meanwhile wins", () => {
    const out = decide({ state: state(), result: cut('max_cost', 2), limits: limits({ maxCostUsd: 1 }), nowMs: T0, stopRequested: true });
    expect(out.decision).toEqual({ kind: 'stop', reason: 'user_stop', status: 'stopped' });
  });
});

describe('pacing: cooldown, backoff, waiting on limits', () => {
  it('cooldown after success; cooldown + exponential backoff after failures, capped', () => {
    const l = limits({ cooldownMs: 500, backoffBaseMs: 1000, backoffMaxMs: 5000, failureThreshold: 10 });
    expect(decide({ state: state(), result: result(), limits: l, nowMs: T0, stopRequested: false }).decision).toEqual({ kind: 'continue', delayMs: 500 });
    const fail = result({ exitCode: 1, errorKind: 'exit_nonzero' });
    const delays = [0, 1, 2, 3, 4].map((n) => decide({ state: state({ consecutiveFailures: n }), result: fail, limits: l, nowMs: T0, stopRequested: false }).decision);
    expect(delays.map((d) => (d.kind === 'continue' ? d.delayMs : -1))).toEqual([1500, 2500, 4500, 5500, 5500]);
    expect(backoffMs(0, l)).toBe(0);
  });
  it('a usage limit with a reset time waits until then and is not a failure, nor uses up the iteration budget', () => {
    const out = decide({ state: state({ consecutiveFailures: 2 }), result: result({ exitCode: 1, errorKind: 'usage_limit', resetAtMs: T0 + 3_600_000 }), limits: limits({ maxIterations: 1 }), nowMs: T0, stopRequested: false });
    expect(out.outcome).toBe('waiting');
    expect(out.decision).toEqual({ kind: 'wait', untilMs: T0 + 3_600_000, reason: 'usage_limit' });
    expect(out.state.consecutiveFailures).toBe(2);
    expect(out.state.waitedIterations).toBe(1);
  });
  it('an agent stopped by the shared budget: not a failure, no iteration of the budget used, no wait of its own (the boundary holds the run)', () => {
    const out = decide({ state: state({ consecutiveFailures: 2, totalCostUsd: 0.04 }), result: result({ exitCode: null, errorKind: 'budget', costUsd: 0.02 }), limits: limits({ maxIterations: 1, cooldownMs: 500 }), nowMs: T0, stopRequested: false });
    expect(out.outcome).toBe('waiting');
    expect(out.decision).toEqual({ kind: 'continue', delayMs: 0 });
    expect(out.state).toMatchObject({ consecutiveFailures: 2, waitedIterations: 1, totalCostUsd: 0.06 });
  });
  it('a limit without a reset time backs off exponentially; overload likewise', () => {
    const l = limits({ backoffBaseMs: 2000, backoffMaxMs: 60_000 });
    const first = decide({ state: state(), result: result({ exitCode: 1, errorKind: 'rate_limit' }), limits: l, nowMs: T0, stopRequested: false });
    expect(first.decision).toEqual({ kind: 'wait', untilMs: T0 + 2000, reason: 'rate_limit' });
    const third = decide({ state: state({ consecutiveWaits: 2 }), result: result({ exitCode: 1, errorKind: 'overloaded' }), limits: l, nowMs: T0, stopRequested: false });
    expect(third.decision).toEqual({ kind: 'wait', untilMs: T0 + 8000, reason: 'overloaded' });
  });
  it('a wait that would outlast max_runtime stops the run instead', () => {
    const out = decide({ state: state(), result: result({ exitCode: 1, errorKind: 'usage_limit', resetAtMs: T0 + 7_200_000 }), limits: limits({ maxRuntimeMs: 3_600_000 }), nowMs: T0, stopRequested: false });
    expect(out.decision).toEqual({ kind: 'stop', reason: 'max_runtime', status: 'completed' });
  });
  it('classifyOutcome: exit 0 with an agent-reported error is a failure', () => {
    expect(classifyOutcome(result({ errorKind: 'agent_error' }))).toBe('failure');
  });
});

describe('pauses never outlast the runtime budget', () => {
  it('a cooldown longer than the remaining runtime ends the run with max_runtime at once', () => {
    const out = decide({ state: state(), result: result(), limits: limits({ maxRuntimeMs: 3000, cooldownMs: 30_000 }), nowMs: T0 + 100, stopRequested: false });
    expect(out.decision).toEqual({ kind: 'stop', reason: 'max_runtime', status: 'completed' });
  });

  it('a failure backoff longer than the remaining runtime ends the run with max_runtime', () => {
    const out = decide({
      state: state(),
      result: result({ exitCode: 1, errorKind: 'exit_nonzero' }),
      limits: limits({ maxRuntimeMs: 10_000, backoffBaseMs: 60_000, backoffMaxMs: 600_000 }),
      nowMs: T0 + 100,
      stopRequested: false,
    });
    expect(out.decision).toEqual({ kind: 'stop', reason: 'max_runtime', status: 'completed' });
  });

  it('a pause that fits in the budget is kept, and resumed runtime counts', () => {
    const fits = decide({ state: state(), result: result(), limits: limits({ maxRuntimeMs: 60_000, cooldownMs: 5000 }), nowMs: T0 + 100, stopRequested: false });
    expect(fits.decision).toEqual({ kind: 'continue', delayMs: 5000 });
    const resumed = decide({ state: state({ priorRuntimeMs: 58_000 }), result: result(), limits: limits({ maxRuntimeMs: 60_000, cooldownMs: 5000 }), nowMs: T0 + 100, stopRequested: false });
    expect(resumed.decision).toEqual({ kind: 'stop', reason: 'max_runtime', status: 'completed' });
  });

  it('a usage-limit reset weeks away with no runtime budget is a wait until then; with a budget it ends the run', () => {
    const reset = T0 + 30 * 86_400_000;
    const limited = result({ exitCode: 1, errorKind: 'usage_limit', resetAtMs: reset });
    const wait = decide({ state: state(), result: limited, limits: limits(), nowMs: T0, stopRequested: false });
    expect(wait.decision).toEqual({ kind: 'wait', untilMs: reset, reason: 'usage_limit' });
    const stop = decide({ state: state(), result: limited, limits: limits({ maxRuntimeMs: 600 * 3_600_000 }), nowMs: T0, stopRequested: false });
    expect(stop.decision).toEqual({ kind: 'stop', reason: 'max_runtime', status: 'completed' });
  });
});

describe('units of work (task runs)', () => {
  it('a completion that ends only the unit counts as done and the run goes on', () => {
    const out = decide({ state: state({ consecutiveFailures: 2 }), result: result({ successSignal: true }), limits: limits(), nowMs: T0, stopRequested: false, completionEnds: 'unit' });
    expect([out.outcome, out.decision.kind, out.state.consecutiveFailures]).toEqual(['complete', 'continue', 0]);
  });
  it('a failure after which the program gave the unit up neither trips the threshold nor backs off', () => {
    const l = limits({ backoffBaseMs: 1000, backoffMaxMs: 60_000, cooldownMs: 5 });
    const failed = result({ exitCode: 1, errorKind: 'exit_nonzero' });
    const ended = decide({ state: state({ consecutiveFailures: 2 }), result: failed, limits: l, nowMs: T0, stopRequested: false, completionEnds: 'unit', unitEnded: true });
    expect([ended.outcome, ended.decision, ended.state.consecutiveFailures]).toEqual(['failure', { kind: 'continue', delayMs: 5 }, 3]);
    const notEnded = decide({ state: state({ consecutiveFailures: 2 }), result: failed, limits: l, nowMs: T0, stopRequested: false, completionEnds: 'unit' });
    expect(notEnded.decision).toEqual({ kind: 'stop', reason: 'failure_threshold', status: 'failed' });
    // A fatal error still ends the run.
    const fatal = decide({ state: state(), result: result({ exitCode: 1, errorKind: 'auth' }), limits: l, nowMs: T0, stopRequested: false, unitEnded: true });
    expect(fatal.decision).toEqual({ kind: 'stop', reason: 'fatal_error', status: 'failed' });
  });
});
