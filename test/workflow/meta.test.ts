// The stored metadata of a workflow run and its views: the current step only in what is rewritten after every step,
// every step put back for views from the definition and the iterations' rows; runs stored before (every step and
// the definition in their metadata) still read and resume.
import { describe, expect, it } from 'vitest';
import type { IterationRow } from '../../src/store/index.js';
import { readWorkflowMeta } from '../../src/workflow/meta.js';
import { workflowMetaView } from '../../src/workflow/meta-view.js';

const step = (name: string, loop: { until: string; max_iterations: number } | null = null) => ({
  name,
  prompt: { text: `do ${name}` },
  agent: { name: 'claude', model: null, command: null },
  clear_context: false,
  loop: loop === null ? null : { ...loop, fresh_context: false, until_command: null, max_cost: null, max_runtime_ms: null, idle_timeout_ms: null },
  idle_timeout_ms: null,
});
const definition = { file: '/w/.ringmaster/workflows/pir.yaml', source: 'project', steps: [step('plan'), step('implement', { until: 'DONE', max_iterations: 3 }), step('review')] };
const base = { workflow: 'pir', workflow_kind: 'steps', description: '', user_message: 'go', previous_output: 'out' };
const state = (name: string, status: string, iterations: number, message: string | null = null) => ({ name, status, iterations, cost_usd: iterations * 0.5, cost_unknown: false, runtime_ms: iterations * 1000, message });

function row(number: number, unit: string, status: IterationRow['status'], cost: number | null = 0.5): IterationRow {
  return { number, unit_id: unit, status, cost_usd: cost, duration_ms: 1000 } as IterationRow;
}

describe('workflow metadata', () => {
  const meta = { ...base, current_step: { number: 3, name: 'review' }, iteration_count: 0, max_iterations: 1, steps_total: 3, step: state('review', 'running', 0), iterations_total: 3 };

  it('puts every step back for views: completed ones from their rows (waits not counted), the current one from the metadata', () => {
    const rows = [row(1, 'plan', 'success'), row(2, 'implement', 'waiting', null), row(3, 'implement', 'success'), row(4, 'implement', 'complete', null), row(5, 'review', 'running', null)];
    const view = workflowMetaView(meta, definition, rows) as { steps: unknown[]; definition: unknown; units: unknown[] };
    expect(view.steps).toEqual([
      { ...state('plan', 'completed', 1), max_iterations: 1 },
      { ...state('implement', 'completed', 2, 'Loop complete: implement (2 iterations)'), cost_usd: 0.5, cost_unknown: true, max_iterations: 3 },
      { ...state('review', 'running', 0), max_iterations: 1 },
    ]);
    expect(view.definition).toEqual(definition);
    expect(view.units).toEqual([
      { id: 'plan', title: 'plan', status: 'completed' },
      { id: 'implement', title: 'implement', status: 'completed' },
      { id: 'review', title: 'review', status: 'running' },
    ]);
    expect(readWorkflowMeta('r', meta, definition).state).toEqual({ current: 2, step: state('review', 'running', 0), iterations: 3, previous_output: 'out' });
  });

  it('refuses to continue without the definition, naming what is missing', () => {
    expect(() => readWorkflowMeta('r', meta, null)).toThrow('run r: its workflow metadata is missing or damaged, so it cannot be continued (its definition is missing)');
  });

  it('reads a run stored before: its steps and definition in its metadata', () => {
    const legacy = {
      ...base,
      current_step: { number: 2, name: 'implement' },
      iteration_count: 1,
      max_iterations: 3,
      steps: [{ ...state('plan', 'completed', 1), max_iterations: 1 }, { ...state('implement', 'running', 1), max_iterations: 3 }, { ...state('review', 'pending', 0), max_iterations: 1 }],
      definition,
      units: [],
    };
    const { def, state: read } = readWorkflowMeta('r', legacy, null);
    expect(def.steps.map((s) => [s.step.name, s.maxIterations])).toEqual([['plan', 1], ['implement', 3], ['review', 1]]);
    expect(read).toEqual({ current: 1, step: state('implement', 'running', 1), iterations: 2, previous_output: 'out' });
    expect((workflowMetaView(legacy, null, []) as { steps: unknown[] }).steps).toEqual(legacy.steps);
  });
});
