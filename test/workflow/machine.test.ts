// The workflow state machine: steps in order, loops until the signal or until_command, the seed's messages
// at max iterations and on agent errors, waits that do not count, per-loop budgets in steps workflows.
import { describe, expect, it } from 'vitest';
import type { IterationResult } from '../../src/core/types.js';
import { initialWorkflowState, nextIteration, settleIteration, workflowStateSchema, type IterationFacts, type StepState, type WorkflowState } from '../../src/workflow/machine.js';
import type { ResolvedStep } from '../../src/workflow/resolve.js';
import type { LoopSpec } from '../../src/workflow/types.js';

function result(over: Partial<IterationResult> = {}): IterationResult {
  return { exitCode: 0, exitSignal: null, successSignal: false, failureSignal: false, durationMs: 1000, usage: null, costUsd: 0.5, sessionId: 's', model: null, errorKind: 'none', errorMessage: null, resetAtMs: null, ...over };
}

function facts(over: Partial<IterationResult> = {}, text = 'text', untilCommandPassed: boolean | null = null): IterationFacts {
  return { result: result(over), text, untilCommandPassed };
}

function step(index: number, name: string, loop: Partial<LoopSpec> | null = null): ResolvedStep {
  const spec: LoopSpec | null = loop === null ? null : { until: 'DONE', maxIterations: 3, freshContext: false, untilCommand: null, maxCostUsd: null, maxRuntimeMs: null, idleTimeoutMs: null, ...loop };
  return {
    step: { index, name, prompt: { kind: 'text', text: 'p' }, agent: null, model: null, clearContext: false, loop: spec },
    agent: { name: 'claude', model: null, command: null },
    maxIterations: spec?.maxIterations ?? 1,
    loop: spec,
    idleTimeoutMs: null,
  };
}

/** Settles a list of iterations, returning the verdict kinds, the final state and the final state of each step that ended. */
function play(steps: ResolvedStep[], kind: 'steps' | 'loop', list: IterationFacts[]): { trace: string[]; state: WorkflowState; ended: StepState[] } {
  let state = initialWorkflowState(steps);
  const trace: string[] = [];
  const ended: StepState[] = [];
  for (const f of list) {
    const at = nextIteration(state, steps.length);
    const settled = settleIteration(steps, state, f, kind);
    state = settled.state;
    const v = settled.verdict;
    if (v.kind === 'step_completed') ended.push(v.ended);
    trace.push(`${at?.step ?? '-'}.${at?.iteration ?? '-'} ${v.kind}${v.kind === 'step_completed' ? ` next=${v.next ?? 'end'}${v.line ? ` "${v.line}"` : ''}` : v.kind === 'failed' ? ` ${v.reason} "${v.message}"` : ''}`);
  }
  expect(workflowStateSchema.parse(JSON.parse(JSON.stringify(state)))).toEqual(state);
  return { trace, state, ended };
}

describe('workflow state machine', () => {
  const pir = [step(1, 'plan'), step(2, 'implement', { maxIterations: 3 }), step(3, 'review')];

  it('plan once, loop until the signal, review once: the workflow completes after the last step', () => {
    const { trace, state, ended } = play(pir, 'steps', [facts(), facts(), facts({ successSignal: true }, 'all done'), facts()]);
    expect(trace).toEqual(['0.1 step_completed next=1', '1.1 again', '1.2 step_completed next=2 "Loop complete: implement (2 iterations)"', '2.1 step_completed next=end']);
    expect(nextIteration(state, pir.length)).toBeNull();
    // The state holds the last step only (its size does not grow with the workflow), and every counted iteration.
    expect([state.current, state.step.name, state.step.status, state.iterations]).toEqual([3, 'review', 'completed', 4]);
    expect(ended.map((s) => [s.name, s.status, s.iterations, s.cost_usd])).toEqual([
      ['plan', 'completed', 1, 0.5],
      ['implement', 'completed', 2, 1],
      ['review', 'completed', 1, 0.5],
    ]);
    expect(state.previous_output).toBe('text');
  });

  it('a loop with max_iterations 1 completes in one iteration with its signal, and fails without it (seed wording)', () => {
    const once = [step(1, 'ralph', { maxIterations: 1, until: 'COMPLETE' })];
    expect(play(once, 'loop', [facts({ successSignal: true })]).trace).toEqual(['0.1 step_completed next=end "Loop complete: ralph (1 iteration)"']);
    expect(play(once, 'loop', [facts()]).trace).toEqual(['0.1 failed max_iterations "Max iterations (1) reached without completion signal "COMPLETE""']);
  });

  it('max iterations in a steps workflow names the step', () => {
    expect(play(pir, 'steps', [facts(), facts(), facts(), facts()]).trace.at(-1)).toBe('1.3 failed max_iterations "Step 2/3 (implement), iteration 3: Max iterations (3) reached without completion signal "DONE""');
  });

  it('an agent error fails the workflow with the step (or the iteration) and the error', () => {
    const error = facts({ exitCode: 1, errorKind: 'exit_nonzero', errorMessage: 'boom' });
    expect(play(pir, 'steps', [facts(), facts(), error]).trace.at(-1)).toBe('1.2 failed fatal_error "Step 2/3 (implement), iteration 2: boom"');
    expect(play(pir, 'steps', [error]).trace).toEqual(['0.1 failed fatal_error "Step 1/3 (plan): boom"']);
    expect(play([step(1, 'ralph', {})], 'loop', [facts(), error]).trace.at(-1)).toBe('0.2 failed fatal_error "Iteration 2: boom"');
    expect(play([step(1, 'ralph', {})], 'loop', [facts({ failureSignal: true, errorKind: 'failure_signal', errorMessage: 'the agent signalled failure' })]).trace).toEqual([
      '0.1 failed fatal_error "Iteration 1: the agent signalled failure"',
    ]);
  });

  it('a usage limit or an interruption does not count: the same iteration runs again', () => {
    const { trace, state } = play([step(1, 'ralph', { maxIterations: 2 })], 'loop', [facts({ errorKind: 'usage_limit', exitCode: 1 }), facts({ errorKind: 'interrupted', exitCode: null }), facts(), facts({ successSignal: true })]);
    expect(trace).toEqual(['0.1 again', '0.1 again', '0.1 again', '0.2 step_completed next=end "Loop complete: ralph (2 iterations)"']);
    expect([state.step.iterations, state.iterations]).toEqual([2, 2]);
  });

  it('until_command exit 0 completes a loop like the signal', () => {
    expect(play([step(1, 'tests', { untilCommand: ['npm', 'test'] })], 'loop', [facts({}, 't', false), facts({}, 't', true)]).trace).toEqual(['0.1 again', '0.2 step_completed next=end "Loop complete: tests (2 iterations)"']);
  });

  it("a loop step's own max_cost and max_runtime end a steps workflow; in a loop workflow they are the run's", () => {
    const costly = [step(1, 'impl', { maxIterations: 10, maxCostUsd: 1 })];
    expect(play(costly, 'steps', [facts(), facts()]).trace).toEqual(['0.1 again', '0.2 failed max_cost "Step 1/1 (impl), iteration 2: max_cost $1 reached ($1.0000 spent)"']);
    expect(play(costly, 'loop', [facts(), facts(), facts()]).trace).toEqual(['0.1 again', '0.2 again', '0.3 again']);
    const slow = [step(1, 'impl', { maxIterations: 10, maxRuntimeMs: 1500 })];
    expect(play(slow, 'steps', [facts(), facts()]).trace.at(-1)).toBe('0.2 failed max_runtime "Step 1/1 (impl), iteration 2: max_runtime 1.5s reached"');
  });

  it('an unknown cost is remembered as unknown, never as zero', () => {
    const { state } = play([step(1, 'a', {})], 'loop', [facts({ costUsd: null }), facts({ costUsd: 0.25 })]);
    expect([state.step.cost_usd, state.step.cost_unknown]).toEqual([0.25, true]);
  });
});
