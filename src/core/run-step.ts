// The run loop as data: the whole state of a running loop (RunLoopState) and the pure step that, given that state
// and what just happened (a look at the boundary, a wait ended, an iteration ended...), returns the next state and
// the next action. runner/run-loop.ts only performs the actions. No I/O, no clock: time comes in as `nowMs`.
// The diagram of the states: docs/architecture.md "The run as a state machine".
import { decide, limitReached, type DecideOutput } from './decide.js';
import { countProgress, noProgress, NO_PROGRESS_STOP, type ProgressCount } from './no-progress.js';
import type { IterationResult, Limits, LoopState, RunStatus, StopReason } from './types.js';

/** Why a run waits before its next iteration (`budget`: the store's shared budget is reached). */
export type WaitReason = 'usage_limit' | 'rate_limit' | 'overloaded' | 'budget';

/** How a run ends: its stop reason and status, with the message a failed run carries. */
export interface RunEnd {
  reason: StopReason;
  status: RunStatus;
  message: string | null;
}

/** Everything the loop keeps between two steps. */
export interface RunLoopState {
  /** The counters decide() keeps: iterations, spend, consecutive failures and waits, runtime. */
  loop: LoopState;
  /** Iteration numbers handed out (started iterations); loop.iteration counts the finished ones. */
  started: number;
  /** Consecutive failures per lane (a task) while iterations run at once; with one at a time, loop's own. */
  laneFailures: Readonly<Record<string, number>>;
  /** The run's agent: its index in the chain (the agent, then its fallbacks). */
  agentIndex: number;
  /** A limit's wait (usage, rate, overload): nothing starts before `untilMs`. */
  wait: { untilMs: number; reason: WaitReason } | null;
  /** The cooldown or backoff decided after the last iteration: it starts when the loop next looks at its boundary (once the iteration is recorded). */
  delayMs: number | null;
  /** When the next iteration may start after a cooldown or backoff; null = now. */
  notBeforeMs: number | null;
  /** The program answered 'wait': nothing starts until a running iteration ends. */
  programWaits: boolean;
  /** The time agents spent suspended (`pause --now`) already taken out of the runtime. */
  suspendedAccountedMs: number;
  /** Iterations in a row that changed no file (`--no-progress-after`, no-progress.ts). */
  progress: ProgressCount;
  /** The reset time of the shared budget's wait already announced (its `waiting` event emitted), or null. */
  budgetAnnounced: number | null;
  /** How the run ends, once it is known; the loop then only collects the iterations still running. */
  end: RunEnd | null;
}

/** The control requests as the loop sees them at a boundary (one snapshot of the run's control channel). */
export interface Controls {
  /** Why the run cannot go on (the store cannot be written), or null. */
  fatal: string | null;
  /** The run was interrupted (a signal, a stop request, a takeover). */
  interrupted: boolean;
  /** A stop was requested. */
  stop: boolean;
  /** A pause was requested (who asked), or null. */
  pause: { by: string | null } | null;
  /** The run is to be handed over at this boundary (a worker's next job). */
  handOver: boolean;
}

/** What does not change from step to step (limits may: `extend` raises max_iterations in place). */
export interface StepSetup {
  limits: Limits;
  /** Iterations that may run at once (LoopProgram.concurrency, at least 1). */
  capacity: number;
  /** Agents in the chain (the run's agent and its fallbacks). */
  agents: number;
  /** `--no-progress-after N`: the run stops after N iterations in a row that changed no file (0: never). */
  noProgressAfter: number;
}

/** What just happened, the input of `step`. */
export type LoopInput =
  /** The loop looks at its boundary: before an iteration starts, or to know whether another may start. */
  | {
      type: 'boundary';
      nowMs: number;
      controls: Controls;
      running: number;
      /** The run's own max_cost is spent by what its running iterations cost so far. */
      budgetExhausted: boolean;
      /** The store's shared budget is reached: when its window resets (the shell read it); null or absent = not reached. */
      budgetWait?: number | null;
    }
  /** A limit's wait ended: in full, or cut short (a control request, an interrupt). */
  | { type: 'waited'; nowMs: number; full: boolean }
  /** The run was paused at a boundary for `pausedMs` (not counted toward max runtime). */
  | { type: 'resumed'; pausedMs: number }
  /** The program answered 'stop' (its verdict, or it could not go on). */
  | { type: 'program_stop'; end: RunEnd }
  /** The program answered 'wait' (iterations at once: the next one needs a running one to end). */
  | { type: 'program_wait' }
  /** The program gave a step in `lane`; `firstOfUnit` when it starts a new unit (task, workflow step). */
  | { type: 'step'; lane: string; firstOfUnit: boolean }
  /** The iteration could not start (its row could not be written, the run was interrupted meanwhile). */
  | { type: 'not_started'; end: RunEnd }
  /** The iteration's agent was started. */
  | { type: 'started'; iteration: number }
  /** Agents have been suspended `totalMs` in all so far (`pause --now`); read when an iteration ends. */
  | { type: 'suspended'; totalMs: number }
  /** An iteration ended and its program judged it. */
  | IterationEnded;

/** An iteration that ended, as judged by its program (the input decide() needs, and who ran it). */
export interface IterationEnded {
  type: 'iteration_ended';
  nowMs: number;
  lane: string;
  result: IterationResult;
  completionEnds: 'run' | 'unit';
  unitEnded: boolean;
  /** The program's own stop, which wins over a limit reached at the same iteration. */
  programStop: RunEnd | null;
  stopRequested: boolean;
  /** The iteration ran the run's agent (not a step's own agent): a limit's wait may switch to the next one. */
  ranRunAgent: boolean;
  /** Files the iteration changed (change tracking), or null when unknown or not tracked. */
  filesChanged: number | null;
}

/** What the shell does next. */
export type LoopAction =
  /** Wait for a running iteration to end, or until `untilMs` (then look again). */
  | { kind: 'collect'; untilMs: number | null }
  /** The run ends (state.end): stop the running iterations, record them, report the end. */
  | { kind: 'end' }
  /** Pause here until resumed (emit `paused`, then `resumed` unless stopped). */
  | { kind: 'pause'; by: string | null }
  /** End the loop without ending the run: its next owner goes on from this state. */
  | { kind: 'hand_over' }
  /** Wait for a limit (emit `waiting`) until `untilMs`, unless a control request comes first. */
  | { kind: 'wait'; untilMs: number; reason: WaitReason }
  /**
   * The shared budget is reached (until its window resets at `untilMs`, or it is raised): emit `waiting` (reason
   * budget) when `announce`, look at the store again after a while, unless a control request comes first.
   */
  | { kind: 'budget_wait'; untilMs: number; announce: boolean }
  /** Sleep `ms` (a cooldown or backoff), unless a control request comes first; then look again. */
  | { kind: 'sleep'; ms: number }
  /** Ask the program for its next step. */
  | { kind: 'next' }
  /** Start iteration `iteration` with the step the program gave. */
  | { kind: 'start'; iteration: number }
  /** Switch the run's agent to the next one of the chain (state.agentIndex) because of `reason`, then look again. */
  | { kind: 'switch_agent'; reason: string }
  /** Look at the boundary again. */
  | { kind: 'look' };

/** The next state and action; after an iteration ended, decide()'s output too (its events report it). */
export interface StepOutput {
  state: RunLoopState;
  action: LoopAction;
  decided?: DecideOutput;
}

/** Ends the run with a fatal error (the store, the disk, the sandbox, an invalid program step). */
export const FATAL_END: RunEnd = { reason: 'fatal_error', status: 'failed', message: null };
/** The run was interrupted (signal, shutdown, takeover): resumable. */
export const INTERRUPTED_END: RunEnd = { reason: 'interrupted', status: 'stopped', message: null };

/** The state of a loop starting (or resuming) with these counters and, when it was waiting for a limit, that wait. */
export function startState(loop: LoopState, wait: RunLoopState['wait'] = null, suspendedMs = 0): RunLoopState {
  return { loop, started: loop.iteration, laneFailures: {}, agentIndex: 0, wait, delayMs: null, notBeforeMs: null, programWaits: false, suspendedAccountedMs: suspendedMs, progress: { idle: 0 }, budgetAnnounced: null, end: null };
}

/** Consecutive failures that count for `lane`. */
export function failuresOf(state: RunLoopState, lane: string, setup: StepSetup): number {
  return setup.capacity === 1 ? state.loop.consecutiveFailures : (state.laneFailures[lane] ?? 0);
}

/** The one transition function of the run loop. */
export function step(state: RunLoopState, input: LoopInput, setup: StepSetup): StepOutput {
  switch (input.type) {
    case 'boundary':
      return atBoundary(state, input, setup);
    case 'waited':
      return input.full ? afterWait(state, input.nowMs) : { state, action: { kind: 'look' } };
    case 'resumed':
      // A wait for the budget that a pause interrupted is announced again (the pause's events came after it).
      return { state: { ...withLoop(state, { startedAtMs: state.loop.startedAtMs + input.pausedMs }), budgetAnnounced: null }, action: { kind: 'look' } };
    case 'program_stop':
    case 'not_started':
      return { state: { ...state, end: input.end }, action: { kind: 'end' } };
    case 'program_wait':
      return { state: { ...state, programWaits: true }, action: { kind: 'look' } };
    case 'step':
      return { state: unitStarted(state, input.lane, input.firstOfUnit, setup), action: { kind: 'start', iteration: state.started + 1 } };
    case 'started':
      return { state: { ...state, started: input.iteration }, action: { kind: 'look' } };
    case 'suspended': {
      const extra = Math.max(0, input.totalMs - state.suspendedAccountedMs);
      return { state: { ...withLoop(state, { startedAtMs: state.loop.startedAtMs + extra }), suspendedAccountedMs: input.totalMs }, action: { kind: 'look' } };
    }
    case 'iteration_ended':
      return iterationEnded(state, input, setup);
  }
}

/** How the run ends, given the end the loop reached and the controls at that moment. */
export function finalEnd(end: RunEnd, controls: Pick<Controls, 'fatal' | 'stop'>): RunEnd {
  if (controls.fatal !== null) return { ...FATAL_END, message: controls.fatal };
  // An interrupt that a stop request caused is a user stop, not a crash-like interruption.
  if (end.reason === 'interrupted' && controls.stop) return { reason: 'user_stop', status: 'stopped', message: end.message };
  return end;
}

function withLoop(state: RunLoopState, loop: Partial<LoopState>): RunLoopState {
  return { ...state, loop: { ...state.loop, ...loop } };
}

function ending(state: RunLoopState, end: RunEnd): StepOutput {
  return { state: { ...state, end }, action: { kind: 'end' } };
}

/** At the boundary: the order of the checks is the order of precedence (fatal, interrupt, pause, limits, hand-over, the shared budget, waits). */
function atBoundary(decided: RunLoopState, input: Extract<LoopInput, { type: 'boundary' }>, setup: StepSetup): StepOutput {
  const { controls, nowMs, running } = input;
  const state = decided.delayMs === null ? decided : { ...decided, delayMs: null, notBeforeMs: nowMs + decided.delayMs };
  if (running > 0) {
    const can = running < setup.capacity ? startable(state, input, setup) : { now: false, at: null };
    if (!can.now) return { state, action: { kind: 'collect', untilMs: can.at } };
  }
  if (controls.fatal !== null) return ending(state, FATAL_END);
  if (controls.interrupted) return ending(state, INTERRUPTED_END);
  // A paused run being handed over goes to its next owner paused (its stored status), not through another pause.
  if (controls.pause && !controls.stop && !controls.handOver) return { state: { ...state, notBeforeMs: null }, action: { kind: 'pause', by: controls.pause.by } };
  const limit = limitReached(state.loop, setup.limits, nowMs, controls.stop);
  if (limit?.kind === 'stop') return ending(state, { reason: limit.reason, status: limit.status, message: null });
  // The next owner starts from this state; a wait or cooldown is cut short here (the next owner waits until the same time).
  if (controls.handOver) return { state, action: { kind: 'hand_over' } };
  // The shared budget holds every run back, whatever else it waits for; it is announced once per wait.
  const budgetWait = input.budgetWait ?? null;
  if (budgetWait !== null) return { state: { ...state, budgetAnnounced: budgetWait }, action: { kind: 'budget_wait', untilMs: budgetWait, announce: state.budgetAnnounced !== budgetWait } };
  const free = state.budgetAnnounced === null ? state : { ...state, budgetAnnounced: null };
  if (free.wait !== null && free.wait.untilMs > nowMs) return { state: free, action: { kind: 'wait', untilMs: free.wait.untilMs, reason: free.wait.reason } };
  return afterWait(free, nowMs);
}

/** No limit's wait (any more): a cooldown or backoff first, else the next step. */
function afterWait(state: RunLoopState, nowMs: number): StepOutput {
  const next = { ...state, wait: null };
  if (state.notBeforeMs === null) return { state: next, action: { kind: 'next' } };
  // The pause after an iteration, cut short by a pause or stop request; then look again.
  return { state: { ...next, notBeforeMs: null }, action: { kind: 'sleep', ms: Math.max(0, state.notBeforeMs - nowMs) } };
}

/** While iterations run: whether another may start now, or when to look again (null: when one ends). */
function startable(state: RunLoopState, input: Extract<LoopInput, { type: 'boundary' }>, setup: StepSetup): { now: boolean; at: number | null } {
  const { controls, nowMs } = input;
  if (controls.fatal !== null || controls.interrupted || state.programWaits || controls.pause !== null || controls.handOver) return { now: false, at: null };
  const counted = { ...state.loop, iteration: state.loop.iteration + input.running };
  if (input.budgetExhausted || (input.budgetWait ?? null) !== null || limitReached(counted, setup.limits, nowMs, controls.stop)) return { now: false, at: null };
  const at = Math.max(state.wait?.untilMs ?? 0, state.notBeforeMs ?? 0);
  return at > nowMs ? { now: false, at } : { now: true, at: null };
}

/** A new unit (task, workflow step) starts with no consecutive failures: they were the previous unit's. */
function unitStarted(state: RunLoopState, lane: string, firstOfUnit: boolean, setup: StepSetup): RunLoopState {
  if (!firstOfUnit || failuresOf(state, lane, setup) === 0) return state;
  return { ...withLoop(state, { consecutiveFailures: 0 }), laneFailures: { ...state.laneFailures, [lane]: 0 } };
}

/**
 * An iteration ended: decide() counts it and says what comes next. While the run is ending (state.end set: the
 * others are being stopped) it is only counted. The program's stop comes first: it says more (the workflow
 * completed, which step failed) than a limit reached at the same iteration.
 */
function iterationEnded(state: RunLoopState, input: IterationEnded, setup: StepSetup): StepOutput {
  const decided = decide({
    state: { ...state.loop, consecutiveFailures: failuresOf(state, input.lane, setup) },
    result: input.result,
    limits: setup.limits,
    nowMs: input.nowMs,
    stopRequested: input.stopRequested,
    completionEnds: input.completionEnds,
    unitEnded: input.unitEnded,
  });
  const counted: RunLoopState = { ...state, loop: decided.state, laneFailures: { ...state.laneFailures, [input.lane]: decided.state.consecutiveFailures }, programWaits: false };
  const look = (next: RunLoopState, action: LoopAction = { kind: 'look' }): StepOutput => ({ state: next, action, decided });
  if (state.end !== null) return look(counted);
  if (input.programStop) return look({ ...counted, end: input.programStop });
  const decision = decided.decision;
  switch (decision.kind) {
    case 'stop':
      return look({ ...counted, end: { reason: decision.reason, status: decision.status, message: decision.reason === 'fatal_error' ? input.result.errorMessage : null } });
    case 'wait':
      // A usage or rate limit of the run's agent hands the run to the next agent of the chain, if there is one.
      if (state.agentIndex + 1 < setup.agents && decision.reason !== 'overloaded' && input.ranRunAgent) {
        return look({ ...counted, agentIndex: state.agentIndex + 1 }, { kind: 'switch_agent', reason: input.result.errorMessage ?? decision.reason });
      }
      return look({ ...counted, wait: { untilMs: decision.untilMs, reason: decision.reason } });
    case 'continue': {
      // --no-progress-after: the last N iterations that went on changed no file.
      const progress = countProgress(state.progress, decided.outcome, input.filesChanged);
      if (noProgress(progress, setup.noProgressAfter)) return look({ ...counted, progress, end: { reason: NO_PROGRESS_STOP.reason, status: NO_PROGRESS_STOP.status, message: null } });
      return look({ ...counted, progress, delayMs: decision.delayMs });
    }
  }
}
