// `ringmaster workflow run NAME ["message"]`: resolve the workflow against the run options, then run it
// through the same runner as `ringmaster run` (or, with --dry-run, print what would run).
import { relative, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { getAdapter } from '../../agents/registry.js';
import { resolveRun, SETTING_FLAGS, type RunFlags } from '../../config/resolve.js';
import { EXIT, UsageError } from '../../core/errors.js';
import { newRunId } from '../../core/ids.js';
import { findWorkflow, WorkflowError } from '../../workflow/discover.js';
import { renderDryRun } from '../../workflow/dry-run.js';
import { agentCanResume, WorkflowProgram } from '../../workflow/program.js';
import { promptTemplate } from '../../workflow/prompt.js';
import { baseSettings, resolveWorkflow, type ResolvedWorkflow } from '../../workflow/resolve.js';
import type { RunSpec } from '../../runner/spec.js';
import type { CliIO } from '../command.js';
import { runInTerminal } from '../run-session.js';
import { displayArgv, RUN_OPTIONS, startWorktree, workspaceFrom } from './run.js';

// `run`'s options without the prompt ones: the workflow is the prompt.
const { prompt: _prompt, 'prompt-file': _promptFile, procedure: _procedure, context: _context, ...OPTIONS } = RUN_OPTIONS;

function parse(args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.replace(/\. To specify a positional argument.*$/, '')} (see 'ringmaster workflow --help')`);
  }
}

/** A path as the user sees it: relative to the current directory when inside it. */
export function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) ? rel : path;
}

type Values = ReturnType<typeof parse>['values'];

function runFlags(values: Values): RunFlags {
  const settings: RunFlags['settings'] = [];
  for (const { key, flag } of SETTING_FLAGS) {
    const raw = (values as Record<string, unknown>)[flag.slice(2)];
    if (typeof raw === 'string') settings.push({ key, flag, raw });
  }
  return { maxIterations: values['max-iterations'], unlimited: values.unlimited, settings };
}

/** The workflow and the run spec it starts from (config + flags), resolved for the workspace. */
export function resolveWorkflowRun(values: Values, positionals: string[], io: CliIO): { resolved: ResolvedWorkflow; spec: RunSpec } {
  const [name, message, ...extra] = positionals;
  if (name === undefined) throw new UsageError('missing the workflow: ringmaster workflow run NAME ["message"] (see ringmaster workflow list)');
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}' (quote the message)`);
  const workspace = workspaceFrom(values, io);
  let workflow;
  try {
    workflow = findWorkflow(workspace, name, io.cwd);
  } catch (error) {
    if (error instanceof WorkflowError) throw new WorkflowError(error.problems.map((p) => ({ ...p, file: shownPath(p.file, io.cwd) })));
    throw error;
  }
  const resolution = resolveRun(workspace, io.env, runFlags(values));
  const resolved = resolveWorkflow(workflow, baseSettings(resolution, values.unlimited === true), message ?? '');
  for (const step of resolved.steps) getAdapter({ name: step.agent.name, command: step.agent.command });
  return { resolved, spec: resolution.spec };
}

function dryRun(resolved: ResolvedWorkflow, spec: RunSpec, io: CliIO): number {
  const text = renderDryRun(
    resolved,
    {
      canResume: (agent) => getAdapter({ name: agent, command: spec.agent.command }).supportsResume,
      commandLine: (step, prompt) => {
        const invocation = getAdapter({ name: step.agent.name, command: step.agent.command }).buildInvocation({
          prompt,
          cwd: spec.workspace,
          model: step.agent.model,
          extraArgs: spec.agent.args,
          permissionMode: spec.agent.permissionMode,
          resumeSessionId: null,
          env: io.env,
        });
        return displayArgv([invocation.command, ...invocation.args]);
      },
    },
    resolved.workflow.source === 'built-in' ? `(built-in) ${resolved.workflow.file}` : shownPath(resolved.workflow.file, io.cwd),
  );
  io.stdout.write(text);
  return EXIT.success;
}

/** The run spec of a workflow run: the workflow's limits, its first step's agent, its name as the label. */
export function workflowSpec(resolved: ResolvedWorkflow, base: RunSpec): RunSpec {
  const first = resolved.steps[0]?.agent ?? { name: base.agent.name, model: base.agent.model, command: base.agent.command };
  return {
    ...base,
    // The prompts come from the steps (stored in the run's metadata); this is what `show` prints for the spec.
    prompt: { kind: 'text', text: `(workflow ${resolved.workflow.name})` },
    context: null,
    label: resolved.workflow.name,
    limits: resolved.limits,
    idleTimeoutMs: resolved.idleTimeoutMs,
    agent: { ...base.agent, name: first.name, model: first.model, command: first.command },
  };
}

/** Runs `ringmaster workflow run`. */
export async function workflowRun(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args);
  const { resolved, spec: base } = resolveWorkflowRun(values, positionals, io);
  if (values['dry-run']) return dryRun(resolved, base, io);
  const spec = workflowSpec(resolved, base);
  // Command files are read now too: a missing one is a usage error before anything starts.
  for (const step of resolved.steps) promptTemplate(step.step.prompt);
  const workspace = workspaceFrom(values, io);
  const runId = newRunId(Date.now(), Math.random);
  const worktree = values.worktree ? await startWorktree(workspace, runId, spec, values.json === true, io) : null;
  const { workflow } = resolved;
  const program = new WorkflowProgram({
    def: { workflow: { name: workflow.name, kind: workflow.kind, description: workflow.description, file: workflow.file, source: workflow.source }, steps: resolved.steps, userMessage: resolved.userMessage },
    canResume: agentCanResume(spec.agent.command),
    env: io.env,
    runAgent: spec.agent,
  });
  const { exitCode } = await runInTerminal(io, { workspace, runId, spec, json: values.json, verbose: values.verbose, worktree, mode: 'create', program });
  return exitCode;
}
