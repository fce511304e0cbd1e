// The pure Stop-hook decision of hook mode (docs/hook-mode.md): allow the session to stop, or block it and feed the task back.
import { decide, initialState } from './decide.js';
import { containsSignal } from './signals.js';
import type { IterationResult, Limits, StopReason } from './types.js';

/** The loop state a decision needs, as read from the tracker (no I/O here). */
export interface HookLoopState {
  active: boolean;
  /** Number of times the hook has blocked a stop so far (= continuations). */
  iteration: number;
  maxIterations: number;
  completionMarker: string;
  /** The Claude session the loop belongs to; null until the first Stop claims it. */
  sessionId: string | null;
  /** The tracker's markdown body (below the frontmatter). */
  body: string;
}

/** The facts of one Stop event that the decision uses. */
export interface HookStopEvent {
  sessionId: string;
  /** True when this Stop follows a block (by any hook) in the same session. */
  stopHookActive: boolean;
  /** The assistant text of the current turn (last message, plus the transcript's turn when needed). */
  assistantText: string;
}

/** Why a stop was allowed. */
export type HookAllowReason =
  | 'no_loop'
  | 'inactive'
  | 'other_session'
  | 'foreign_continuation'
  | 'max_iterations'
  | 'marker_in_tracker'
  | 'promise'
  | 'error';

/** What the hook does with one Stop event, and what it writes back to the tracker. */
export type HookDecision =
  | {
      kind: 'allow';
      reason: HookAllowReason;
      /** Set when the loop ends with this decision (the tracker becomes inactive). */
      stopReason: StopReason | null;
    }
  | {
      kind: 'block';
      /** The tracker's iteration after this block. */
      iteration: number;
      /** The session that owns the loop after this decision (claims an unowned loop). */
      sessionId: string;
    };

/** The completion marker without `<promise>` tags, if a user wrote them. */
export function bareMarker(marker: string): string {
  const tagged = /^\s*<\s*promise\s*>([\s\S]*?)<\s*\/\s*promise\s*>\s*$/i.exec(marker);
  return (tagged?.[1] ?? marker).trim();
}

/** True when the text carries `<promise>MARKER</promise>` (whitespace and case inside the tags tolerated). */
export function hasPromise(text: string, marker: string): boolean {
  const bare = bareMarker(marker);
  if (bare === '' || text === '') return false;
  return containsSignal(text, [`<promise>${bare}</promise>`]);
}

/** True when the tracker body contains the marker itself (an exact, case-sensitive string scan, docs/hook-mode.md). */
export function markerInBody(body: string, marker: string): boolean {
  const bare = bareMarker(marker);
  return bare !== '' && body.includes(bare);
}

/** Limits of a hook loop in the process loop's terms: each turn is an iteration; the first turn is not a block. */
function hookLimits(maxBlocks: number): Limits {
  return {
    maxIterations: maxBlocks + 1,
    maxRuntimeMs: null,
    maxCostUsd: null,
    failureThreshold: Number.MAX_SAFE_INTEGER,
    cooldownMs: 0,
    backoffBaseMs: 0,
    backoffMaxMs: 0,
  };
}

/** The finished turn as an iteration result: hook mode only knows whether a completion signal was seen. */
function turnResult(successSignal: boolean, sessionId: string): IterationResult {
  return {
    exitCode: 0,
    exitSignal: null,
    successSignal,
    failureSignal: false,
    durationMs: 0,
    usage: null,
    costUsd: null,
    sessionId,
    model: null,
    errorKind: 'none',
    errorMessage: null,
    resetAtMs: null,
  };
}

/**
 * Decides one Stop event (the flow of docs/hook-mode.md plus session ownership):
 * no loop or inactive: allow; another session's loop: allow; a session continued by someone else's hook
 * never claims an unowned loop. Then the process loop's own `decide()` rules: a completion signal
 * (marker in the tracker body, or a promise in the assistant text) ends the loop, then max_iterations
 * (`maxIterations` blocks at most), otherwise block.
 */
export function decideStop(loop: HookLoopState | null, event: HookStopEvent): HookDecision {
  if (loop === null) return { kind: 'allow', reason: 'no_loop', stopReason: null };
  if (!loop.active) return { kind: 'allow', reason: 'inactive', stopReason: null };
  if (loop.sessionId !== null && loop.sessionId !== event.sessionId) {
    return { kind: 'allow', reason: 'other_session', stopReason: null };
  }
  if (loop.sessionId === null && event.stopHookActive) {
    return { kind: 'allow', reason: 'foreign_continuation', stopReason: null };
  }
  const inBody = markerInBody(loop.body, loop.completionMarker);
  const promised = hasPromise(event.assistantText, loop.completionMarker);
  const state = { ...initialState(0), iteration: loop.iteration };
  const { decision } = decide({
    state,
    result: turnResult(inBody || promised, event.sessionId),
    limits: hookLimits(loop.maxIterations),
    nowMs: 0,
    stopRequested: false,
  });
  if (decision.kind === 'continue') return { kind: 'block', iteration: loop.iteration + 1, sessionId: event.sessionId };
  if (decision.kind === 'stop' && decision.reason === 'success_signal') {
    return { kind: 'allow', reason: inBody ? 'marker_in_tracker' : 'promise', stopReason: 'success_signal' };
  }
  if (decision.kind === 'stop' && decision.reason === 'max_iterations') {
    return { kind: 'allow', reason: 'max_iterations', stopReason: 'max_iterations' };
  }
  return { kind: 'allow', reason: 'error', stopReason: decision.kind === 'stop' ? decision.reason : 'fatal_error' };
}
