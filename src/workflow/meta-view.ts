// The whole picture of a workflow run for its views (`show`, `show --json`, GET /api/runs/:id, the dashboard's
// steps): the stored metadata with every step's outcome and the definition put back. The steps before the current
// one completed (a workflow only moves on from a completed step): their figures are summed from their iterations'
// rows; the current step's state is the metadata's; the steps after it are pending.
import type { IterationRow, RunRow, Store } from '../store/index.js';
import { workflowDefinitionSchema } from './definition.js';
import { pendingStep, type StepState } from './machine.js';
import { legacyWorkflowMetaSchema, workflowMetaSchema } from './meta.js';
import { loopCompleteLine } from './progress.js';

/** One step's outcome as views show it. */
export type StepOutcome = StepState & { max_iterations: number };

/** Statuses of the iterations a step counts (waits and interruptions are not counted). */
const COUNTED = new Set(['success', 'failure', 'complete']);

/** A completed step's outcome, from its iterations' rows. */
function completedStep(name: string, maxIterations: number, loop: boolean, rows: readonly IterationRow[]): StepOutcome {
  const outcome: StepOutcome = { ...pendingStep(name), status: 'completed', max_iterations: maxIterations };
  for (const row of rows) {
    if (!COUNTED.has(row.status)) continue;
    outcome.iterations += 1;
    outcome.cost_usd += row.cost_usd ?? 0;
    outcome.cost_unknown ||= row.cost_usd === null;
    outcome.runtime_ms += row.duration_ms ?? 0;
  }
  outcome.message = loop ? loopCompleteLine(name, outcome.iterations) : null;
  return outcome;
}

/**
 * A workflow run's metadata with `steps` (every step's outcome), `definition` and `units` (each step with its status,
 * for the API's units) added; metadata stored with them already (runs stored before) gets `units` only. Anything
 * else is given back as it is.
 */
export function workflowMetaView(meta: Record<string, unknown>, definition: Record<string, unknown> | null, iterations: readonly IterationRow[]): Record<string, unknown> {
  const legacy = legacyWorkflowMetaSchema.safeParse(meta);
  if (legacy.success) return { ...meta, units: legacy.data.steps.map((s) => ({ id: s.name, title: s.name, status: s.status })) };
  const parsed = workflowMetaSchema.safeParse(meta);
  const def = workflowDefinitionSchema.safeParse(definition);
  if (!parsed.success || !def.success) return meta;
  const m = parsed.data;
  const total = def.data.steps.length;
  const shown = Math.min(m.current_step === null ? total : m.current_step.number - 1, total - 1);
  const byStep = new Map<string, IterationRow[]>();
  for (const row of iterations) {
    if (row.unit_id === null) continue;
    const list = byStep.get(row.unit_id);
    if (list) list.push(row);
    else byStep.set(row.unit_id, [row]);
  }
  const steps = def.data.steps.map((s, i): StepOutcome => {
    const max = s.loop?.max_iterations ?? 1;
    if (i < shown) return completedStep(s.name, max, s.loop !== null, byStep.get(s.name) ?? []);
    if (i === shown) return { ...m.step, max_iterations: max };
    return { ...pendingStep(s.name), max_iterations: max };
  });
  return { ...meta, steps, definition: def.data, units: steps.map((s) => ({ id: s.name, title: s.name, status: s.status })) };
}

/** A run's metadata as its own views show it: a workflow run's with every step (workflowMetaView); any other run's as stored. */
export async function detailedRunMeta(store: Pick<Store, 'getRunDefinition'>, run: RunRow, iterations: readonly IterationRow[]): Promise<Record<string, unknown>> {
  if (run.kind !== 'workflow') return run.meta;
  return workflowMetaView(run.meta, await store.getRunDefinition(run.id), iterations);
}
