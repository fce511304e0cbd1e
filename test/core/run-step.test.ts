// Table tests of the run loop's pure step (core/run-step.ts): at a boundary, after a wait, a pause, a program's
// answer and an ended iteration, the next state and action, compared with plain equality.
import { describe, expect, it } from 'vitest';
import { initialState } from '../../src/core/decide.js';
import { FATAL_END, finalEnd, INTERRUPTED_END, startState, step, type Controls, type IterationEnded, type LoopInput, type RunLoopState, type StepSetup } from '../../src/core/run-step.js';
import type { IterationResult, Limits } from '../../src/core/types.js';

const T0 = 1_000_000;
const limits = (over: Partial<Limits> = {}): Limits => ({ maxIterations: 10, maxRuntimeMs: null, maxCostUsd: null, failureThreshold: 3, cooldownMs: 0, backoffBaseMs: 0, backoffMaxMs: 0, ...over });
const setup = (over: Partial<StepSetup> = {}): StepSetup => ({ limits: limits(), capacity: 1, agents: 1, noProgressAfter: 0, ...over });
const fresh = (over: Partial<RunLoopState> = {}): RunLoopState => ({ ...startState(initialState(T0)), ...over });
const calm: Controls = { fatal: null, interrupted: false, stop: false, pause: null, handOver: false };
const boundary = (over: Partial<Controls> = {}, running = 0, budgetExhausted = false, nowMs = T0): LoopInput => ({ type: 'boundary', nowMs, controls: { ...calm, ...over }, running, budgetExhausted });
const result = (over: Partial<IterationResult> = {}): IterationResult => ({
  exitCode: 0,
  exitSignal: null,
  successSignal: false,
  failureSignal: false,
  durationMs: 1000,
  usage: null,
  costUsd: 0,
  sessionId: null,
  model: null,
  errorKind: 'none',
  errorMessage: null,
  resetAtMs: null,
  ...over,
});
const ended = (over: Partial<IterationEnded> = {}): IterationEnded => ({
  type: 'iteration_ended',
  nowMs: T0,
  lane: '',
  result: result(),
  completionEnds: 'run',
  unitEnded: false,
  programStop: null,
  stopRequested: false,
  ranRunAgent: true,
  filesChanged: null,
  ...over,
});

describe('at a boundary, one iteration at a time', () => {
  const rows: Array<[string, Partial<RunLoopState>, Partial<Controls>, Partial<RunLoopState>, unknown]> = [
    // name, state before, controls, state after (changed fields), action
    ['nothing pending: ask the program', {}, {}, {}, { kind: 'next' }],
    ['a fatal error ends the run, before anything else', {}, { fatal: 'disk full', interrupted: true, pause: { by: null } }, { end: FATAL_END }, { kind: 'end' }],
    ['an interrupt ends the run', {}, { interrupted: true, pause: { by: null } }, { end: INTERRUPTED_END }, { kind: 'end' }],
    ['a pause is taken, and drops a cooldown', { notBeforeMs: T0 + 5000 }, { pause: { by: 'ann' } }, { notBeforeMs: null }, { kind: 'pause', by: 'ann' }],
    ['a pause with a stop: the stop', {}, { pause: { by: null }, stop: true }, { end: { reason: 'user_stop', status: 'stopped', message: null } }, { kind: 'end' }],
    ['a paused run handed over is not paused again', {}, { pause: { by: null }, handOver: true }, {}, { kind: 'hand_over' }],
    ['a stop request ends the run', {}, { stop: true }, { end: { reason: 'user_stop', status: 'stopped', message: null } }, { kind: 'end' }],
    ['a limit comes before a hand-over', { loop: { ...initialState(T0), iteration: 10 } }, { handOver: true }, { end: { reason: 'max_iterations', status: 'completed', message: null } }, { kind: 'end' }],
    ['a hand-over cuts a wait short', { wait: { untilMs: T0 + 60_000, reason: 'usage_limit' } }, { handOver: true }, {}, { kind: 'hand_over' }],
    ['a limit\'s wait not over: wait', { wait: { untilMs: T0 + 60_000, reason: 'rate_limit' } }, {}, {}, { kind: 'wait', untilMs: T0 + 60_000, reason: 'rate_limit' }],
    ['a wait already over is dropped', { wait: { untilMs: T0, reason: 'rate_limit' } }, {}, { wait: null }, { kind: 'next' }],
    ['a cooldown: sleep its rest', { notBeforeMs: T0 + 2000 }, {}, { notBeforeMs: null }, { kind: 'sleep', ms: 2000 }],
    ['a cooldown just decided starts now', { delayMs: 3000 }, {}, { delayMs: null, notBeforeMs: null }, { kind: 'sleep', ms: 3000 }],
  ];
  for (const [name, before, controls, after, action] of rows) {
    it(name, () => {
      const state = fresh(before);
      expect(step(state, boundary(controls), setup())).toEqual({ state: { ...state, ...after }, action });
    });
  }
});

describe('at a boundary, the shared budget', () => {
  const RESET = T0 + 3_600_000;
  const held = (over: Partial<Controls> = {}): LoopInput => ({ ...(boundary(over) as Extract<LoopInput, { type: 'boundary' }>), budgetWait: RESET });
  it('reached: wait for it, announced once', () => {
    const first = step(fresh(), held(), setup());
    expect(first).toEqual({ state: fresh({ budgetAnnounced: RESET }), action: { kind: 'budget_wait', untilMs: RESET, announce: true } });
    expect(step(first.state, held(), setup())).toEqual({ state: first.state, action: { kind: 'budget_wait', untilMs: RESET, announce: false } });
  });
  it('a new window (another reset time) is announced again', () => {
    expect(step(fresh({ budgetAnnounced: RESET - 86_400_000 }), held(), setup()).action).toEqual({ kind: 'budget_wait', untilMs: RESET, announce: true });
  });
  it('raised or reset: the run goes on, and a later wait is announced again', () => {
    expect(step(fresh({ budgetAnnounced: RESET }), boundary(), setup())).toEqual({ state: fresh(), action: { kind: 'next' } });
  });
  it('comes before a limit\'s wait, which goes on after it', () => {
    const wait = { untilMs: RESET + 1, reason: 'usage_limit' as const };
    expect(step(fresh({ wait }), held(), setup()).action).toEqual({ kind: 'budget_wait', untilMs: RESET, announce: true });
    expect(step(fresh({ wait, budgetAnnounced: RESET }), boundary(), setup())).toEqual({ state: fresh({ wait }), action: { kind: 'wait', ...wait } });
  });
  const first: Array<[string, Partial<Controls>, unknown]> = [
    ['a stop ends the run', { stop: true }, { kind: 'end' }],
    ['a pause is taken', { pause: { by: 'ann' } }, { kind: 'pause', by: 'ann' }],
    ['a hand-over is taken', { handOver: true }, { kind: 'hand_over' }],
  ];
  for (const [name, controls, action] of first) {
    it(`${name} before it`, () => {
      expect(step(fresh(), held(controls), setup()).action).toEqual(action);
    });
  }
  it('a pause resumed: the wait is announced again', () => {
    expect(step(fresh({ budgetAnnounced: RESET }), { type: 'resumed', pausedMs: 0 }, setup()).state.budgetAnnounced).toBeNull();
  });
  it('iterations at once: no other starts, collect until one ends', () => {
    expect(step(fresh(), { ...(boundary({}, 1) as Extract<LoopInput, { type: 'boundary' }>), budgetWait: RESET }, setup({ capacity: 4 })).action).toEqual({ kind: 'collect', untilMs: null });
  });
});

describe('at a boundary, iterations at once', () => {
  const four = setup({ capacity: 4 });
  it('room and nothing pending: another starts', () => {
    expect(step(fresh(), boundary({}, 2), four).action).toEqual({ kind: 'next' });
  });
  it('full: collect the next to end', () => {
    expect(step(fresh(), boundary({}, 4), four).action).toEqual({ kind: 'collect', untilMs: null });
  });
  const blocked: Array<[string, Partial<RunLoopState>, Partial<Controls>, boolean]> = [
    ['the program waits', { programWaits: true }, {}, false],
    ['a pause is asked', {}, { pause: { by: null } }, false],
    ['a stop is asked', {}, { stop: true }, false],
    ['a hand-over is asked', {}, { handOver: true }, false],
    ['the budget is spent', {}, {}, true],
  ];
  for (const [name, before, controls, exhausted] of blocked) {
    it(`${name}: collect until one ends`, () => {
      expect(step(fresh(before), boundary(controls, 1, exhausted), four).action).toEqual({ kind: 'collect', untilMs: null });
    });
  }
  it('the running ones count toward max_iterations', () => {
    const state = fresh({ loop: { ...initialState(T0), iteration: 8 } });
    expect(step(state, boundary({}, 2), four).action).toEqual({ kind: 'collect', untilMs: null });
  });
  it('a cooldown: collect until it ends', () => {
    expect(step(fresh({ notBeforeMs: T0 + 500 }), boundary({}, 1), four).action).toEqual({ kind: 'collect', untilMs: T0 + 500 });
  });
});

describe('waits, pauses and the program', () => {
  it('a wait cut short: look again, still waiting', () => {
    const state = fresh({ wait: { untilMs: T0 + 9, reason: 'overloaded' } });
    expect(step(state, { type: 'waited', nowMs: T0, full: false }, setup())).toEqual({ state, action: { kind: 'look' } });
  });
  it('a wait in full: the next step at once (no second look)', () => {
    const state = fresh({ wait: { untilMs: T0 + 9, reason: 'overloaded' } });
    expect(step(state, { type: 'waited', nowMs: T0 + 9, full: true }, setup())).toEqual({ state: { ...state, wait: null }, action: { kind: 'next' } });
  });
  it('time paused does not count toward max runtime', () => {
    expect(step(fresh(), { type: 'resumed', pausedMs: 700 }, setup()).state.loop.startedAtMs).toBe(T0 + 700);
  });
  it('time suspended is counted once', () => {
    const once = step(fresh(), { type: 'suspended', totalMs: 300 }, setup()).state;
    const again = step(once, { type: 'suspended', totalMs: 300 }, setup()).state;
    expect([once.loop.startedAtMs, again.loop.startedAtMs, again.suspendedAccountedMs]).toEqual([T0 + 300, T0 + 300, 300]);
  });
  it('the program stops: the run ends with its words', () => {
    const end = { reason: 'success_signal', status: 'completed', message: 'workflow done' } as const;
    expect(step(fresh(), { type: 'program_stop', end }, setup())).toEqual({ state: fresh({ end }), action: { kind: 'end' } });
  });
  it('the program waits: nothing starts until one ends', () => {
    expect(step(fresh(), { type: 'program_wait' }, setup()).state.programWaits).toBe(true);
  });
  it('a step is numbered after the started ones; started counts it once its agent runs', () => {
    const state = fresh({ started: 4 });
    expect(step(state, { type: 'step', lane: '', firstOfUnit: false }, setup()).action).toEqual({ kind: 'start', iteration: 5 });
    expect(step(state, { type: 'started', iteration: 5 }, setup()).state.started).toBe(5);
  });
  it('a new unit starts with no consecutive failures, in its lane', () => {
    const state = fresh({ loop: { ...initialState(T0), consecutiveFailures: 2 }, laneFailures: { a: 2, b: 1 } });
    expect(step(state, { type: 'step', lane: 'a', firstOfUnit: true }, setup()).state.loop.consecutiveFailures).toBe(0);
    expect(step(state, { type: 'step', lane: 'a', firstOfUnit: true }, setup({ capacity: 2 })).state.laneFailures).toEqual({ a: 0, b: 1 });
    expect(step(state, { type: 'step', lane: 'a', firstOfUnit: false }, setup()).state).toBe(state);
  });
  it('a row that cannot be written ends the run', () => {
    const end = { ...FATAL_END, message: 'disk full' };
    expect(step(fresh(), { type: 'not_started', end }, setup())).toEqual({ state: fresh({ end }), action: { kind: 'end' } });
  });
});

describe('after an iteration', () => {
  const rows: Array<[string, Partial<IterationEnded>, StepSetup, Partial<RunLoopState>, unknown]> = [
    ['a success: continue after the cooldown', {}, setup({ limits: limits({ cooldownMs: 250 }) }), { delayMs: 250 }, { kind: 'look' }],
    ['the success signal ends the run', { result: result({ successSignal: true }) }, setup(), { end: { reason: 'success_signal', status: 'completed', message: null } }, { kind: 'look' }],
    ['a fatal error ends the run with the agent\'s words', { result: result({ exitCode: 1, errorKind: 'auth', errorMessage: 'log in' }) }, setup(), { end: { reason: 'fatal_error', status: 'failed', message: 'log in' } }, { kind: 'look' }],
    ['the program\'s stop wins over a limit', { programStop: { reason: 'fatal_error', status: 'failed', message: 'step failed' } }, setup({ limits: limits({ maxIterations: 1 }) }), { end: { reason: 'fatal_error', status: 'failed', message: 'step failed' } }, { kind: 'look' }],
    ['a usage limit: wait until its reset', { result: result({ exitCode: 1, errorKind: 'usage_limit', resetAtMs: T0 + 3600_000 }) }, setup(), { wait: { untilMs: T0 + 3600_000, reason: 'usage_limit' } }, { kind: 'look' }],
    ['a usage limit with a fallback agent: switch to it', { result: result({ exitCode: 1, errorKind: 'usage_limit', errorMessage: 'limit reached', resetAtMs: T0 + 3600_000 }) }, setup({ agents: 2 }), { agentIndex: 1 }, { kind: 'switch_agent', reason: 'limit reached' }],
    ['an overload never switches the agent', { result: result({ exitCode: 1, errorKind: 'overloaded', resetAtMs: null }) }, setup({ agents: 2 }), { wait: { untilMs: T0 + 1000, reason: 'overloaded' } }, { kind: 'look' }],
    ['an iteration that changed no file is counted', { filesChanged: 0 }, setup(), { progress: { idle: 1 }, delayMs: 0 }, { kind: 'look' }],
    ['with --no-progress-after 1, an iteration that changed no file ends the run', { filesChanged: 0 }, setup({ noProgressAfter: 1 }), { progress: { idle: 1 }, end: { reason: 'no_progress', status: 'completed', message: null } }, { kind: 'look' }],
    ['an iteration whose changes are unknown is not counted', { filesChanged: null }, setup({ noProgressAfter: 1 }), { delayMs: 0 }, { kind: 'look' }],
    ['a step\'s own agent never switches the run\'s', { ranRunAgent: false, result: result({ exitCode: 1, errorKind: 'rate_limit', resetAtMs: T0 + 5000 }) }, setup({ agents: 2 }), { wait: { untilMs: T0 + 5000, reason: 'rate_limit' } }, { kind: 'look' }],
  ];
  for (const [name, input, stepSetup, after, action] of rows) {
    it(name, () => {
      const out = step(fresh(), ended(input), stepSetup);
      const { loop: _loop, laneFailures: _lanes, ...changed } = out.state;
      const { loop: _l, laneFailures: _f, ...base } = fresh();
      expect({ changed, action: out.action }).toEqual({ changed: { ...base, ...after }, action });
      expect(out.decided?.state.iteration).toBe(1);
    });
  }
  it('an iteration that changed files resets the no-progress count', () => {
    const out = step(fresh({ progress: { idle: 2 } }), ended({ filesChanged: 3 }), setup({ noProgressAfter: 3 }));
    expect([out.state.progress, out.state.end]).toEqual([{ idle: 0 }, null]);
  });
  it('while the run ends, an iteration is only counted', () => {
    const out = step(fresh({ end: INTERRUPTED_END }), ended({ result: result({ successSignal: true }) }), setup());
    expect([out.state.end, out.state.loop.iteration, out.action]).toEqual([INTERRUPTED_END, 1, { kind: 'look' }]);
  });
  it('failures are counted per lane when iterations run at once', () => {
    const state = fresh({ laneFailures: { a: 2 } });
    const out = step(state, ended({ lane: 'a', result: result({ exitCode: 1 }) }), setup({ capacity: 2 }));
    expect([out.state.laneFailures, out.state.end?.reason]).toEqual([{ a: 3 }, 'failure_threshold']);
  });
});

describe('the end', () => {
  it('a fatal error wins, with its message', () => {
    expect(finalEnd({ reason: 'max_iterations', status: 'completed', message: null }, { fatal: 'disk full', stop: false })).toEqual({ ...FATAL_END, message: 'disk full' });
  });
  it('an interrupt a stop request caused is a user stop', () => {
    expect(finalEnd(INTERRUPTED_END, { fatal: null, stop: true })).toEqual({ reason: 'user_stop', status: 'stopped', message: null });
  });
  it('otherwise the end the loop reached', () => {
    expect(finalEnd(INTERRUPTED_END, { fatal: null, stop: false })).toEqual(INTERRUPTED_END);
  });
});
