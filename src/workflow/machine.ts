// The pure state machine of a workflow run: which step runs next, what one iteration's result means for it,
// and when the workflow is done. No I/O, no clock (time comes in). Its state is JSON: stored with the run
// and read back on resume.
import { z } from 'zod';
import { classifyOutcome } from '../core/decide.js';
import { formatElapsed } from '../core/duration.js';
import type { IterationResult, StopReason } from '../core/types.js';
import { loopCompleteLine, maxIterationsMessage, stepFailureMessage } from './progress.js';
import type { ResolvedStep } from './resolve.js';

/** Where one step is. */
export type StepStatus = 'pending' | 'running' | 'completed' | 'failed';

export const stepStateSchema = z.object({
  name: z.string(),
  status: z.enum(['pending', 'running', 'completed', 'failed']),
  /** Counted iterations of the step (waits and interruptions are not). */
  iterations: z.number().int().min(0),
  cost_usd: z.number().min(0),
  cost_unknown: z.boolean(),
  /** Sum of the counted iterations' durations (a loop's max_runtime). */
  runtime_ms: z.number().min(0),
  message: z.string().nullable(),
});

/**
 * The machine's state (snake_case: it is stored as the run's metadata). It holds the current step only, so that its
 * size, and the cost of storing it after every iteration, do not depend on the number of steps: the outcome of the
 * steps before it is in their iterations' rows (meta.ts derives it for views).
 */
export const workflowStateSchema = z.object({
  /** 0-based index of the step that runs next; the number of steps once the workflow is done. */
  current: z.number().int().min(0),
  /** The state of step `current` (of the last step once the workflow is done). */
  step: stepStateSchema,
  /** Counted iterations of every step so far. */
  iterations: z.number().int().min(0),
  /** The agent's own text of the last counted iteration ($PREVIOUS_OUTPUT), bounded by the caller. */
  previous_output: z.string(),
});

/** State of one step. */
export type StepState = z.infer<typeof stepStateSchema>;
/** State of a workflow run. */
export type WorkflowState = z.infer<typeof workflowStateSchema>;

/** What an iteration's result means for the workflow. */
export type Verdict =
  /** Run the same step again (next loop iteration, or the same iteration again after a wait). */
  | { kind: 'again' }
  /** The step is done (`ended`: its final state); `next` is the index of the step to run, or null when the workflow is complete. */
  | { kind: 'step_completed'; step: number; next: number | null; line: string | null; ended: StepState }
  /** The workflow failed at this step. */
  | { kind: 'failed'; step: number; reason: StopReason; message: string };

/** The state of a step not started yet. */
export function pendingStep(name: string): StepState {
  return { name, status: 'pending', iterations: 0, cost_usd: 0, cost_unknown: false, runtime_ms: 0, message: null };
}

/** The state before the first iteration. */
export function initialWorkflowState(steps: readonly ResolvedStep[]): WorkflowState {
  return { current: 0, step: pendingStep(steps[0]?.step.name ?? ''), iterations: 0, previous_output: '' };
}

/** The step the next iteration belongs to and its 1-based loop iteration, or null when the workflow (of `total` steps) is done. */
export function nextIteration(state: WorkflowState, total: number): { step: number; iteration: number } | null {
  return state.current >= total ? null : { step: state.current, iteration: state.step.iterations + 1 };
}

/** Marks the current step as running (its first iteration, or a resumed step that had failed); no-op when done. */
export function startStep(state: WorkflowState, total: number): WorkflowState {
  return state.current >= total ? state : withStep(state, { status: 'running', message: null });
}

/** What the program found out about an iteration besides its result. */
export interface IterationFacts {
  /** The result; `successSignal` = the loop's completion signal was in the agent's own text. */
  result: IterationResult;
  /** The loop's until_command exited 0 after the iteration (null: none, or not run). */
  untilCommandPassed: boolean | null;
  /** The agent's own text of the iteration (becomes $PREVIOUS_OUTPUT). */
  text: string;
}

function withStep(state: WorkflowState, change: Partial<StepState>, extra: Partial<WorkflowState> = {}): WorkflowState {
  return { ...state, ...extra, step: { ...state.step, ...change } };
}

/**
 * Folds one iteration of the current step into the state. In a steps workflow a loop's max_cost and
 * max_runtime are the program's and messages name the step; in a loop workflow the limits are the run's and
 * messages are the documented ones (`Iteration 3: ...`, `Max iterations (N) reached ...`).
 */
export function settleIteration(steps: readonly ResolvedStep[], state: WorkflowState, facts: IterationFacts, kind: 'steps' | 'loop'): { state: WorkflowState; verdict: Verdict } {
  const index = state.current;
  const spec = steps[index];
  const before = state.step;
  if (!spec || index >= steps.length) throw new Error(`settleIteration: no step ${index + 1}`);
  const outcome = classifyOutcome(facts.result);
  if (outcome === 'waiting' || outcome === 'interrupted') return { state: withStep(state, { status: 'running' }), verdict: { kind: 'again' } };

  const iterations = before.iterations + 1;
  const counted: Partial<StepState> = {
    iterations,
    cost_usd: before.cost_usd + (facts.result.costUsd ?? 0),
    cost_unknown: before.cost_unknown || facts.result.costUsd === null,
    runtime_ms: before.runtime_ms + facts.result.durationMs,
  };
  const total = steps.length;
  const ownLimits = kind === 'steps';
  const fail = (reason: StopReason, why: string) => {
    const message = ownLimits ? stepFailureMessage(spec.step.index, total, spec.step.name, spec.loop ? iterations : null, why) : reason === 'max_iterations' ? why : `Iteration ${iterations}: ${why}`;
    return { state: withStep(state, { ...counted, status: 'failed', message }, { previous_output: facts.text, iterations: state.iterations + 1 }), verdict: { kind: 'failed' as const, step: index, reason, message } };
  };

  if (outcome === 'failure') return fail('fatal_error', facts.result.errorMessage ?? `exit code ${facts.result.exitCode ?? facts.result.exitSignal ?? '?'}`);
  const loop = spec.loop;
  const done = loop === null || outcome === 'complete' || facts.untilCommandPassed === true;
  if (done) {
    const next = index + 1 < total ? index + 1 : null;
    const line = loop === null ? null : loopCompleteLine(spec.step.name, iterations);
    const ended: StepState = { ...before, ...counted, status: 'completed', message: line };
    const following = steps[index + 1];
    // The last step's state stays (the workflow's last word); otherwise the next step's begins.
    const settled: WorkflowState = { current: index + 1, step: following ? pendingStep(following.step.name) : ended, iterations: state.iterations + 1, previous_output: facts.text };
    return { state: settled, verdict: { kind: 'step_completed', step: index, next, line, ended } };
  }
  if (iterations >= spec.maxIterations) return fail('max_iterations', maxIterationsMessage(spec.maxIterations, loop.until));
  if (ownLimits && loop.maxCostUsd !== null && (counted.cost_usd ?? 0) >= loop.maxCostUsd) return fail('max_cost', `max_cost $${loop.maxCostUsd} reached ($${(counted.cost_usd ?? 0).toFixed(4)} spent)`);
  if (ownLimits && loop.maxRuntimeMs !== null && (counted.runtime_ms ?? 0) >= loop.maxRuntimeMs) return fail('max_runtime', `max_runtime ${formatElapsed(loop.maxRuntimeMs)} reached`);
  return { state: withStep(state, { ...counted, status: 'running' }, { previous_output: facts.text, iterations: state.iterations + 1 }), verdict: { kind: 'again' } };
}
