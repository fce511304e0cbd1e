// `ringmaster workflow list|validate|schema|run`: YAML workflows of .ringmaster/workflows/ (docs/workflows.md).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, UsageError } from '../../core/errors.js';
import { formatProblem } from '../../workflow/lines.js';
import { listWorkflows, loadWorkflowFile, workflowDir, workflowFiles, type ListedWorkflow } from '../../workflow/discover.js';
import { workflowJsonSchema } from '../../workflow/schema.js';
import type { Workflow, WorkflowProblem } from '../../workflow/types.js';
import type { CliIO, Command } from '../command.js';
import { table } from './history-format.js';
import { shownPath, workflowRun } from './workflow-run.js';
import { flagProblem } from '../flag-problem.js';

const USAGE = `Usage: ringmaster workflow <list|validate|schema|run> [options]

Workflows are YAML files in .ringmaster/workflows/ (commit them with the project); Ringmaster also ships
'ralph' and 'plan-implement-review'. A workflow has either 'steps' (prompts run once, in order) or a
'loop' with a 'prompt' (iterated until the completion signal or max_iterations). See README.md#workflows.

  list [--cwd DIR] [--json]          the workflows: name, kind, description, file
  validate [FILE...] [--cwd DIR]     check workflow files (default: every file in .ringmaster/workflows/);
                                     every problem with file, line and reason; exit 64 if any
  schema                             print the JSON Schema of workflow files (for editors)
  run NAME|FILE ["message"] [options]
                                     run a workflow in the workspace; "message" is $USER_MESSAGE

Options of run (they override the workflow's own settings):
  --agent NAME, --agent-command "CMD", --model MODEL
                            the agent of every step (instead of the workflow's agent/model)
  --max-iterations N        max_iterations of the workflow's loops
  --max-cost USD, --max-runtime DUR, --idle-timeout DUR
                            the run's budgets (a loop workflow's own max_cost, max_runtime, idle_timeout)
  --failure-threshold N, --cooldown DUR, --iteration-timeout DUR, --checkpoint-interval N
  --cwd DIR                 workspace directory (default: the current directory)
  --worktree                run in a fresh git worktree on branch ringmaster/<run-id>
  --dry-run                 print every step resolved (agent, loop, sessions, command line) and its prompt
  --verbose, -v             stream the agent's output live
  --json                    one JSON event per line on stdout

Exit codes: 0 the workflow completed, 1 an agent error failed a step, 2 a loop reached max_iterations
without its signal (or another limit ended the run), 3 workspace locked, 64 invalid workflow or usage,
130 interrupted.
`;

function parseCommon(args: string[], extra: { json?: boolean } = {}) {
  try {
    return parseArgs({ args, options: { cwd: { type: 'string' }, json: { type: 'boolean' } }, allowPositionals: true, strict: true, ...extra });
  } catch (error) {
    throw new UsageError(`${flagProblem(error)} (see 'ringmaster workflow --help')`);
  }
}

/** One line describing what a workflow does. */
export function summary(workflow: Workflow): string {
  if (workflow.kind === 'loop') {
    const loop = workflow.steps[0]?.loop;
    return loop ? `loop until "${loop.until}", max ${loop.maxIterations} iterations` : 'loop';
  }
  return `${workflow.steps.length} steps: ${workflow.steps.map((s) => (s.loop ? `${s.name} (loop)` : s.name)).join(' → ')}`;
}

function shownProblem(problem: WorkflowProblem, cwd: string): string {
  return formatProblem({ ...problem, file: shownPath(problem.file, cwd) });
}

function listJson(item: ListedWorkflow, cwd: string): Record<string, unknown> {
  const w = item.result.workflow;
  return {
    name: w?.name ?? null,
    description: w?.description ?? null,
    kind: w?.kind ?? null,
    steps: w?.steps.map((s) => ({ name: s.name, loop: s.loop !== null })) ?? null,
    file: item.ref.file,
    source: item.ref.source,
    shadowed: item.shadowed,
    problems: item.result.problems.map((p) => shownProblem(p, cwd)),
  };
}

function list(args: string[], io: CliIO): number {
  const { values, positionals } = parseCommon(args);
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const workspace = resolve(io.cwd, values.cwd ?? '.');
  const listed = listWorkflows(workspace);
  if (values.json) {
    io.stdout.write(`${JSON.stringify(listed.map((l) => listJson(l, io.cwd)), null, 2)}\n`);
    return EXIT.success;
  }
  const rows = listed.map((l) => {
    const w = l.result.workflow;
    const file = l.ref.source === 'built-in' ? `(built-in${l.shadowed ? ', hidden by the project\'s' : ''})` : shownPath(l.ref.file, io.cwd);
    if (!w) return ['-', 'invalid', `${l.result.problems.length} problem(s): ringmaster workflow validate`, file];
    return [w.name, w.kind, w.description.split('\n')[0] ?? '', file];
  });
  io.stdout.write(table(['NAME', 'KIND', 'DESCRIPTION', 'FILE'], rows));
  if (!listed.some((l) => l.ref.source === 'project')) io.stdout.write(`(no workflow files in ${shownPath(workflowDir(workspace), io.cwd)} yet)\n`);
  return EXIT.success;
}

function validate(args: string[], io: CliIO): number {
  const { values, positionals } = parseCommon(args);
  const workspace = resolve(io.cwd, values.cwd ?? '.');
  const refs =
    positionals.length > 0
      ? positionals.map((f) => ({ file: resolve(io.cwd, f), source: 'project' as const }))
      : workflowFiles(workspace).filter((r) => r.source === 'project');
  if (refs.length === 0) {
    io.stdout.write(`no workflow files in ${shownPath(workflowDir(workspace), io.cwd)}\n`);
    return EXIT.success;
  }
  let problems = 0;
  let bad = 0;
  for (const ref of refs) {
    const result = loadWorkflowFile(ref, workspace);
    if (result.workflow) {
      io.stdout.write(`ok  ${shownPath(ref.file, io.cwd)}: ${result.workflow.name} (${summary(result.workflow)})\n`);
      continue;
    }
    bad += 1;
    problems += result.problems.length;
    for (const p of result.problems) io.stdout.write(`${shownProblem(p, io.cwd)}\n`);
  }
  if (bad === 0) return EXIT.success;
  io.stdout.write(`${problems} problem${problems === 1 ? '' : 's'} in ${bad} file${bad === 1 ? '' : 's'}\n`);
  return EXIT.usage;
}

/** `ringmaster workflow`. */
export const workflowCommand: Command = {
  name: 'workflow',
  usage: USAGE,
  async run(args, io) {
    const [sub, ...rest] = args;
    switch (sub) {
      case 'list':
        return list(rest, io);
      case 'validate':
        return validate(rest, io);
      case 'schema':
        if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
        io.stdout.write(`${JSON.stringify(workflowJsonSchema(), null, 2)}\n`);
        return EXIT.success;
      case 'run':
        return workflowRun(rest, io);
      default:
        throw new UsageError(sub === undefined ? 'missing subcommand (list, validate, schema or run)' : `unknown subcommand '${sub}' (list, validate, schema or run)`);
    }
  },
};
