// The metadata a workflow run stores with the run (runs.meta): what `ringmaster show` and the API report
// (workflow, kind, iteration_count, max_iterations, current step, each step's outcome), the machine's state,
// and the resolved definition, so a resumed run does not depend on the YAML file being unchanged.
import { z } from 'zod';
import { UserError } from '../core/errors.js';
import type { WorkflowState } from './machine.js';
import type { ResolvedStep } from './resolve.js';
import type { Workflow } from './types.js';

const count = z.number().int().min(0);
const positive = z.number().int().positive();

const storedLoopSchema = z.object({
  until: z.string().min(1),
  max_iterations: positive,
  fresh_context: z.boolean(),
  until_command: z.array(z.string()).nullable(),
  max_cost: z.number().min(0).nullable(),
  max_runtime_ms: count.nullable(),
  idle_timeout_ms: count.nullable(),
});

const storedStepSchema = z.object({
  name: z.string().min(1),
  /** Inline text, or a command file (re-read at every iteration). */
  prompt: z.union([z.object({ text: z.string() }), z.object({ command: z.string(), path: z.string() })]),
  agent: z.object({ name: z.string().min(1), model: z.string().nullable(), command: z.array(z.string()).nullable() }),
  clear_context: z.boolean(),
  loop: storedLoopSchema.nullable(),
  idle_timeout_ms: count.nullable(),
});

/** The resolved workflow as stored: run options already applied. */
const definitionSchema = z.object({
  file: z.string(),
  source: z.enum(['project', 'built-in']),
  steps: z.array(storedStepSchema).min(1),
});

const stepOutcomeSchema = z.object({
  name: z.string(),
  status: z.enum(['pending', 'running', 'completed', 'failed']),
  iterations: count,
  max_iterations: positive,
  cost_usd: z.number().min(0),
  cost_unknown: z.boolean(),
  runtime_ms: z.number().min(0),
  message: z.string().nullable(),
});

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
  steps: z.array(stepOutcomeSchema).min(1),
  /** $PREVIOUS_OUTPUT of the next iteration (bounded). */
  previous_output: z.string(),
  definition: definitionSchema,
});

/** Metadata of a workflow run. */
export type WorkflowMeta = z.infer<typeof workflowMetaSchema>;

/** What a workflow run is: the workflow (name, kind, file) and its resolved steps. */
export interface WorkflowRunDefinition {
  workflow: Pick<Workflow, 'name' | 'kind' | 'description' | 'file' | 'source'>;
  steps: ResolvedStep[];
  userMessage: string;
}

function storeStep(s: ResolvedStep): z.infer<typeof storedStepSchema> {
  const loop = s.loop;
  return {
    name: s.step.name,
    prompt: s.step.prompt.kind === 'text' ? { text: s.step.prompt.text } : { command: s.step.prompt.name, path: s.step.prompt.path },
    agent: { name: s.agent.name, model: s.agent.model, command: s.agent.command },
    clear_context: s.step.clearContext,
    loop:
      loop === null
        ? null
        : {
            until: loop.until,
            max_iterations: loop.maxIterations,
            fresh_context: loop.freshContext,
            until_command: loop.untilCommand,
            max_cost: loop.maxCostUsd,
            max_runtime_ms: loop.maxRuntimeMs,
            idle_timeout_ms: loop.idleTimeoutMs,
          },
    idle_timeout_ms: s.idleTimeoutMs,
  };
}

function loadStep(s: z.infer<typeof storedStepSchema>, index: number): ResolvedStep {
  const loop =
    s.loop === null
      ? null
      : {
          until: s.loop.until,
          maxIterations: s.loop.max_iterations,
          freshContext: s.loop.fresh_context,
          untilCommand: s.loop.until_command,
          maxCostUsd: s.loop.max_cost,
          maxRuntimeMs: s.loop.max_runtime_ms,
          idleTimeoutMs: s.loop.idle_timeout_ms,
        };
  const prompt = 'text' in s.prompt ? { kind: 'text' as const, text: s.prompt.text } : { kind: 'command' as const, name: s.prompt.command, path: s.prompt.path };
  return {
    step: { index: index + 1, name: s.name, prompt, agent: s.agent.name, model: s.agent.model, clearContext: s.clear_context, loop },
    agent: s.agent,
    maxIterations: loop?.maxIterations ?? 1,
    loop,
    idleTimeoutMs: s.idle_timeout_ms,
  };
}

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
    iteration_count: state.steps[shown]?.iterations ?? 0,
    max_iterations: def.steps[shown]?.maxIterations ?? 1,
    steps: state.steps.map((s, i) => ({ ...s, max_iterations: def.steps[i]?.maxIterations ?? 1 })),
    previous_output: state.previous_output,
    definition: { file: def.workflow.file, source: def.workflow.source, steps: def.steps.map(storeStep) },
  };
}

/** Reads a stored workflow run back: its definition and the machine's state. A UserError if the metadata is not a workflow's. */
export function readWorkflowMeta(runId: string, meta: unknown): { def: WorkflowRunDefinition; state: WorkflowState } {
  const parsed = workflowMetaSchema.safeParse(meta);
  if (!parsed.success || parsed.data.steps.length !== parsed.data.definition.steps.length) {
    throw new UserError(`run ${runId}: its workflow metadata is missing or damaged, so it cannot be continued${parsed.success ? '' : ` (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? ''})`}`);
  }
  const m = parsed.data;
  const steps = m.definition.steps.map(loadStep);
  const def: WorkflowRunDefinition = {
    workflow: { name: m.workflow, kind: m.workflow_kind, description: m.description, file: m.definition.file, source: m.definition.source },
    steps,
    userMessage: m.user_message,
  };
  const state: WorkflowState = {
    current: m.current_step === null ? steps.length : m.current_step.number - 1,
    steps: m.steps.map(({ max_iterations: _max, ...s }) => s),
    previous_output: m.previous_output,
  };
  return { def, state };
}
