// Resolves a workflow against the run's settings: command-line flags override the workflow, which overrides
// the configuration (env, ringmaster.yml, global file, defaults). Pure: the sources come with the values.
import type { Resolution } from '../spec/resolve.js';
import type { SettingKey } from '../config/settings.js';
import { UsageError } from '../core/errors.js';
import type { Limits } from '../core/types.js';
import type { LoopSpec, Workflow, WorkflowStep } from './types.js';

/** A run setting as resolved from the configuration, with whether a command-line flag set it. */
export interface SettingValue<T> {
  value: T;
  fromFlag: boolean;
}

/** The run settings a workflow can override (from `resolveRun`, flags included). */
export interface BaseSettings {
  agentName: SettingValue<string>;
  agentCommand: string[] | null;
  model: SettingValue<string | null>;
  maxIterations: SettingValue<number | null>;
  unlimited: boolean;
  limits: Limits;
  maxCostFromFlag: boolean;
  maxRuntimeFromFlag: boolean;
  idleTimeoutMs: SettingValue<number | null>;
}

/** The agent one step runs. */
export interface StepAgent {
  name: string;
  model: string | null;
  command: string[] | null;
}

/** A step with everything resolved: agent, iteration budget, its own loop limits. */
export interface ResolvedStep {
  step: WorkflowStep;
  agent: StepAgent;
  /** 1 for a step without a loop. */
  maxIterations: number;
  /** The loop with --max-iterations applied, or null. */
  loop: LoopSpec | null;
  /** This step's idle timeout in ms (its loop's idle_timeout, unless --idle-timeout was given); null = the run's. */
  idleTimeoutMs: number | null;
}

/** A workflow ready to run: its steps and the run-wide limits and idle timeout. */
export interface ResolvedWorkflow {
  workflow: Workflow;
  steps: ResolvedStep[];
  /**
   * Run-wide limits: no iteration cap (each step has its own); a loop workflow's max_cost and max_runtime
   * become the run's; a steps workflow keeps the configuration's (its loops' own are the program's).
   */
  limits: Limits;
  idleTimeoutMs: number | null;
  userMessage: string;
}

function stepAgent(step: WorkflowStep, workflow: Workflow, base: BaseSettings): StepAgent {
  const name = base.agentName.fromFlag ? base.agentName.value : (step.agent ?? workflow.agent ?? base.agentName.value);
  let model: string | null;
  if (base.model.fromFlag) model = base.model.value;
  else if (step.model !== null) model = step.model;
  // A model belongs to an agent: the workflow's model applies where the workflow's agent runs, the config's likewise.
  else if (workflow.model !== null && name === (workflow.agent ?? base.agentName.value)) model = workflow.model;
  else model = name === base.agentName.value ? base.model.value : null;
  return { name, model, command: base.agentCommand };
}

/** Applies the run's settings to a workflow. */
export function resolveWorkflow(workflow: Workflow, base: BaseSettings, userMessage: string): ResolvedWorkflow {
  if (base.unlimited) throw new UsageError('--unlimited: a workflow loop always has max_iterations (override it with --max-iterations N)');
  const overrideMax = base.maxIterations.fromFlag ? base.maxIterations.value : null;
  const steps = workflow.steps.map((step): ResolvedStep => {
    const loop = step.loop === null ? null : { ...step.loop, maxIterations: overrideMax ?? step.loop.maxIterations };
    const idleTimeoutMs = base.idleTimeoutMs.fromFlag ? null : (loop?.idleTimeoutMs ?? null);
    return { step, agent: stepAgent(step, workflow, base), maxIterations: loop?.maxIterations ?? 1, loop, idleTimeoutMs };
  });
  const only = workflow.kind === 'loop' ? steps[0]?.loop : null;
  const limits: Limits = {
    ...base.limits,
    // Iteration budgets are per step (the program stops each loop at its max_iterations), not run-wide:
    // a run-wide cap would count an interrupted iteration that the step then runs again.
    maxIterations: null,
    maxCostUsd: base.maxCostFromFlag ? base.limits.maxCostUsd : (only?.maxCostUsd ?? base.limits.maxCostUsd),
    maxRuntimeMs: base.maxRuntimeFromFlag ? base.limits.maxRuntimeMs : (only?.maxRuntimeMs ?? base.limits.maxRuntimeMs),
  };
  const idleTimeoutMs = base.idleTimeoutMs.fromFlag ? base.idleTimeoutMs.value : (only?.idleTimeoutMs ?? base.idleTimeoutMs.value);
  return { workflow, steps, limits, idleTimeoutMs, userMessage };
}

/** The run settings of a resolved `ringmaster run` configuration, with which of them a flag set. */
export function baseSettings(resolution: Resolution, unlimited: boolean): BaseSettings {
  const fromFlag = (key: SettingKey) => /^(flag |implied by flag )/.test(resolution.config.sources.get(key) ?? '');
  const { spec } = resolution;
  return {
    agentName: { value: spec.agent.name, fromFlag: fromFlag('agent.name') },
    agentCommand: spec.agent.command,
    model: { value: spec.agent.model, fromFlag: fromFlag('agent.model') },
    maxIterations: { value: resolution.maxIterations.value, fromFlag: resolution.maxIterations.source.startsWith('flag ') },
    unlimited,
    limits: spec.limits,
    maxCostFromFlag: fromFlag('loop.max_cost'),
    maxRuntimeFromFlag: fromFlag('loop.max_runtime'),
    idleTimeoutMs: { value: spec.idleTimeoutMs, fromFlag: fromFlag('loop.idle_timeout') },
  };
}
