// `ringmaster workflow run NAME ["message"]`: resolve the workflow against the run options, then run it
// through the same runner as `ringmaster run` (or, with --dry-run, print what would run).
import { relative, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { getAdapter } from '../../agents/registry.js';
import { SETTING_FLAGS, type RunFlags } from '../../spec/resolve.js';
import { EXIT, UsageError } from '../../core/errors.js';
import { newRunId } from '../../core/ids.js';
import { WorkflowError } from '../../workflow/discover.js';
import { renderDryRun } from '../../workflow/dry-run.js';
import type { ResolvedWorkflow } from '../../workflow/resolve.js';
import { prepareWorkflowRun, resolveWorkflowRequest, type WorkflowRunRequest } from '../../workflow/start.js';
import type { RunSpec } from '../../spec/run-spec.js';
import type { CliIO } from '../command.js';
import { runInTerminal } from '../run-session.js';
import { displayArgv, RUN_OPTIONS, startWorktree, workspaceFrom } from './run.js';
import { flagProblem } from '../flag-problem.js';

// `run`'s options without the prompt ones (the workflow is the prompt) and the verify gate (a workflow loop ends on its `until`).
const {
  prompt: _prompt,
  'prompt-file': _promptFile,
  procedure: _procedure,
  context: _context,
  verify: _verify,
  'verify-timeout': _verifyTimeout,
  'verify-each': _verifyEach,
  ...OPTIONS
} = RUN_OPTIONS;

function parse(args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${flagProblem(error)} (see 'ringmaster workflow --help')`);
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
    if (typeof raw === 'string' || raw === true) settings.push({ key, flag, raw: String(raw) });
  }
  return { maxIterations: values['max-iterations'], unlimited: values.unlimited, settings };
}

/** The workflow request of `workflow run NAME ["message"] [options]`. */
function request(values: Values, positionals: string[], io: CliIO): WorkflowRunRequest {
  const [name, message, ...extra] = positionals;
  if (name === undefined) throw new UsageError('missing the workflow: ringmaster workflow run NAME ["message"] (see ringmaster workflow list)');
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}' (quote the message)`);
  return { workspace: workspaceFrom(values, io), env: io.env, workflow: name, message: message ?? '', flags: runFlags(values), cwd: io.cwd };
}

/** Problems of a workflow file, with paths as the user sees them. */
function shownProblems<T>(cwd: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof WorkflowError) throw new WorkflowError(error.problems.map((p) => ({ ...p, file: shownPath(p.file, cwd) })));
    throw error;
  }
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

/** Runs `ringmaster workflow run`. */
export async function workflowRun(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args);
  const req = request(values, positionals, io);
  if (values['dry-run']) {
    const { resolved, base } = shownProblems(io.cwd, () => resolveWorkflowRequest(req));
    return dryRun(resolved, base, io);
  }
  const { spec, program } = shownProblems(io.cwd, () => prepareWorkflowRun(req));
  const runId = newRunId(Date.now(), Math.random);
  const worktree = values.worktree ? await startWorktree(req.workspace, runId, spec, values.json === true, io) : null;
  const { exitCode } = await runInTerminal(io, { workspace: req.workspace, runId, spec, json: values.json, verbose: values.verbose, worktree, mode: 'create', program });
  return exitCode;
}
