// Starting a workflow run, for the CLI and the library alike: find the workflow, resolve it against the
// configuration and the run options, and build its run spec and program.
import { getAdapter } from '../agents/registry.js';
import { resolveRun, type RunFlags } from '../spec/resolve.js';
import type { RunSpec } from '../spec/run-spec.js';
import { findWorkflow } from './discover.js';
import { agentCanResume, WorkflowProgram } from './program.js';
import { promptTemplate } from './prompt.js';
import { baseSettings, resolveWorkflow, type ResolvedWorkflow } from './resolve.js';

/** The run spec of a workflow run: the workflow's limits and idle timeout, its first step's agent, its name as the label. */
export function workflowSpec(resolved: ResolvedWorkflow, base: RunSpec): RunSpec {
  const first = resolved.steps[0]?.agent ?? { name: base.agent.name, model: base.agent.model, command: base.agent.command };
  return {
    ...base,
    // The prompts come from the steps (stored in the run's metadata); this is what the stored spec shows.
    prompt: { kind: 'text', text: `(workflow ${resolved.workflow.name})` },
    context: null,
    label: resolved.workflow.name,
    limits: resolved.limits,
    idleTimeoutMs: resolved.idleTimeoutMs,
    agent: { ...base.agent, name: first.name, model: first.model, command: first.command },
  };
}

/** A new program for a resolved workflow and its spec. */
export function newWorkflowProgram(resolved: ResolvedWorkflow, spec: RunSpec, env: Readonly<Record<string, string | undefined>>): WorkflowProgram {
  const { workflow } = resolved;
  return new WorkflowProgram({
    def: { workflow: { name: workflow.name, kind: workflow.kind, description: workflow.description, file: workflow.file, source: workflow.source }, steps: resolved.steps, userMessage: resolved.userMessage },
    canResume: agentCanResume(spec.agent.command),
    env,
    runAgent: spec.agent,
  });
}

/** What `prepareWorkflowRun` needs. */
export interface WorkflowRunRequest {
  workspace: string;
  env: Readonly<Record<string, string | undefined>>;
  /** A workflow name, or the path of a workflow file (relative to `cwd`). */
  workflow: string;
  /** $USER_MESSAGE. */
  message?: string;
  /** Run options (as `ringmaster run` takes them); they override the workflow's settings. */
  flags?: RunFlags;
  cwd?: string;
}

/** The resolved workflow, the base spec (config + flags, for a dry run) and the spec to run it with. Throws UserError for a bad workflow or option. */
export function resolveWorkflowRequest(request: WorkflowRunRequest): { resolved: ResolvedWorkflow; base: RunSpec } {
  const workflow = findWorkflow(request.workspace, request.workflow, request.cwd ?? request.workspace);
  const flags = request.flags ?? { settings: [] };
  const resolution = resolveRun(request.workspace, request.env, flags);
  const resolved = resolveWorkflow(workflow, baseSettings(resolution, flags.unlimited === true), request.message ?? '');
  for (const step of resolved.steps) getAdapter({ name: step.agent.name, command: step.agent.command });
  return { resolved, base: resolution.spec };
}

/** Everything to run a workflow with runLoop or a RunController: its spec and a fresh program. */
export function prepareWorkflowRun(request: WorkflowRunRequest): { resolved: ResolvedWorkflow; spec: RunSpec; program: WorkflowProgram } {
  const { resolved, base } = resolveWorkflowRequest(request);
  // Command files are read now too: a missing one is an error before anything starts.
  for (const step of resolved.steps) promptTemplate(step.step.prompt);
  const spec = workflowSpec(resolved, base);
  return { resolved, spec, program: newWorkflowProgram(resolved, spec, request.env) };
}
