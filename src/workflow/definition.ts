// The resolved definition of a workflow run as stored (the run's definition, apart from its metadata: Store
// updateRunDefinition): its steps with the run options applied, so a resumed run does not depend on the YAML file
// being unchanged. Written when the run is created (and when a resume changes its loops), never per iteration.
import { z } from 'zod';
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
export const workflowDefinitionSchema = z.object({
  file: z.string(),
  source: z.enum(['project', 'built-in']),
  steps: z.array(storedStepSchema).min(1),
});

/** A stored workflow definition. */
export type StoredWorkflowDefinition = z.infer<typeof workflowDefinitionSchema>;

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

/** A stored step made runnable again (`index`: 0-based). */
export function loadStep(s: z.infer<typeof storedStepSchema>, index: number): ResolvedStep {
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

/** The definition of a workflow run as stored. */
export function storedDefinition(def: WorkflowRunDefinition): StoredWorkflowDefinition {
  return { file: def.workflow.file, source: def.workflow.source, steps: def.steps.map(storeStep) };
}
