// The metadata a workflow run stores with the run (runs.meta), after every iteration: the workflow (name, kind,
// message), iteration_count and max_iterations, the current step and its state, $PREVIOUS_OUTPUT. Its size does not
// depend on the number of steps: the definition is stored once apart (definition.ts), and the outcome of the steps
// before the current one comes from their iterations' rows (meta-view.ts puts the whole picture back for views).
import { z } from 'zod';
import { UserError } from '../core/errors.js';
import { loadStep, workflowDefinitionSchema, type WorkflowRunDefinition } from './definition.js';
import { stepStateSchema, type WorkflowState } from './machine.js';

const count = z.number().int().min(0);
const positive = z.number().int().positive();

/** runs.meta of a workflow run. */
export const workflowMetaSchema = z.object({
  workflow: z.string(),
  workflow_kind: z.enum(['steps', 'loop']),
  description: z.string(),
  user_message: z.string(),
  /** The step running (or that failed); null once the workflow completed. */
  current_step: z.object({ number: positive, name: z.string() }).nullable(),
  /** Counted iterations of the current (or last) step: a loop workflow's iteration count. */
  iteration_count: count,
  /** The current (or last) step's max_iterations (1 for a step without a loop). */
  max_iterations: positive,
  /** How many steps the workflow has. */
  steps_total: positive,
  /** The state of the current step (of the last one once the workflow completed). */
  step: stepStateSchema,
  /** Counted iterations of every step so far. */
  iterations_total: count,
  /** $PREVIOUS_OUTPUT of the next iteration (bounded). */
  previous_output: z.string(),
});

/** Metadata of a workflow run. */
export type WorkflowMeta = z.infer<typeof workflowMetaSchema>;

/** The metadata of runs stored before the definition had its own place: every step's outcome and the definition in it. */
export const legacyWorkflowMetaSchema = workflowMetaSchema.omit({ steps_total: true, step: true, iterations_total: true }).extend({
  steps: z.array(stepStateSchema.extend({ max_iterations: positive })).min(1),
  definition: workflowDefinitionSchema,
});

/** The metadata of a workflow run in the given state. */
export function workflowMeta(def: WorkflowRunDefinition, state: WorkflowState): WorkflowMeta {
  const shown = Math.min(state.current, def.steps.length - 1);
  const current = def.steps[state.current];
  return {
    workflow: def.workflow.name,
    workflow_kind: def.workflow.kind,
    description: def.workflow.description,
    user_message: def.userMessage,
    current_step: current ? { number: state.current + 1, name: current.step.name } : null,
    iteration_count: state.step.iterations,
    max_iterations: def.steps[shown]?.maxIterations ?? 1,
    steps_total: def.steps.length,
    step: state.step,
    iterations_total: state.iterations,
    previous_output: state.previous_output,
  };
}

function damaged(runId: string, problem: string): UserError {
  return new UserError(`run ${runId}: its workflow metadata is missing or damaged, so it cannot be continued${problem === '' ? '' : ` (${problem})`}`);
}

function issue(error: z.ZodError): string {
  const first = error.issues[0];
  return first ? `${first.path.join('.')}: ${first.message}` : '';
}

/**
 * Reads a stored workflow run back: its definition and the machine's state, from its metadata and its stored
 * definition (or, for a run stored before the definition had its own place, from its metadata alone). A UserError if
 * they are not a workflow's.
 */
export function readWorkflowMeta(runId: string, meta: unknown, definition: unknown): { def: WorkflowRunDefinition; state: WorkflowState } {
  const legacy = legacyWorkflowMetaSchema.safeParse(meta);
  if (legacy.success) return readLegacy(runId, legacy.data);
  const parsed = workflowMetaSchema.safeParse(meta);
  if (!parsed.success) throw damaged(runId, issue(parsed.error));
  const stored = workflowDefinitionSchema.safeParse(definition);
  if (!stored.success) throw damaged(runId, definition === null || definition === undefined ? 'its definition is missing' : `definition.${issue(stored.error)}`);
  const m = parsed.data;
  if (stored.data.steps.length !== m.steps_total) throw damaged(runId, `${m.steps_total} steps in its metadata, ${stored.data.steps.length} in its definition`);
  const steps = stored.data.steps.map(loadStep);
  const def: WorkflowRunDefinition = {
    workflow: { name: m.workflow, kind: m.workflow_kind, description: m.description, file: stored.data.file, source: stored.data.source },
    steps,
    userMessage: m.user_message,
  };
  const state: WorkflowState = { current: m.current_step === null ? steps.length : m.current_step.number - 1, step: m.step, iterations: m.iterations_total, previous_output: m.previous_output };
  return { def, state };
}

function readLegacy(runId: string, m: z.infer<typeof legacyWorkflowMetaSchema>): { def: WorkflowRunDefinition; state: WorkflowState } {
  if (m.steps.length !== m.definition.steps.length) throw damaged(runId, '');
  const steps = m.definition.steps.map(loadStep);
  const def: WorkflowRunDefinition = {
    workflow: { name: m.workflow, kind: m.workflow_kind, description: m.description, file: m.definition.file, source: m.definition.source },
    steps,
    userMessage: m.user_message,
  };
  const current = m.current_step === null ? steps.length : m.current_step.number - 1;
  const shown = m.steps[Math.min(current, steps.length - 1)];
  if (!shown) throw damaged(runId, '');
  const { max_iterations: _max, ...step } = shown;
  const iterations = m.steps.reduce((sum, s) => sum + s.iterations, 0);
  return { def, state: { current, step, iterations, previous_output: m.previous_output } };
}

/** The metadata of a workflow run as its views show it (meta-view.ts): with every step's outcome. */
export const workflowMetaViewSchema = legacyWorkflowMetaSchema.omit({ definition: true });
