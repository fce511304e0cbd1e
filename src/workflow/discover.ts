// Where workflows live: the project's .ringmaster/workflows/*.yaml (committed with it) and the ones shipped
// with Ringmaster (workflows/ in the package). A project workflow hides a built-in one of the same name.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentNames } from '../agents/registry.js';
import { UserError } from '../core/errors.js';
import { formatProblem } from './lines.js';
import { parseWorkflow, type ParseContext, type ParseResult } from './parse.js';
import type { Workflow, WorkflowProblem } from './types.js';

/** The project's workflow folder: `<workspace>/.ringmaster/workflows`. */
export function workflowDir(workspace: string): string {
  return join(workspace, '.ringmaster', 'workflows');
}

/** The project's folder of command prompt files (`command: NAME` = `<workspace>/.ringmaster/commands/NAME.md`). */
export function commandDir(workspace: string): string {
  return join(workspace, '.ringmaster', 'commands');
}

/** The workflows shipped with Ringmaster (ralph, plan-implement-review), and their command files. */
export function builtInWorkflowDir(): string {
  return fileURLToPath(new URL('../../workflows/', import.meta.url));
}

/** Invalid workflow files: every problem, each with file and line. */
export class WorkflowError extends UserError {
  readonly problems: readonly WorkflowProblem[];
  constructor(problems: readonly WorkflowProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'WorkflowError';
    this.problems = problems;
  }
}

/** The checks' view of a workspace: known agents; command files in the project, then the built-in folder. */
export function parseContext(workspace: string): ParseContext {
  const dirs = [commandDir(workspace), join(builtInWorkflowDir(), 'commands')];
  return {
    agentNames: agentNames(),
    resolveCommand: (name) => dirs.map((d) => join(d, `${name}.md`)).find((p) => existsSync(p)) ?? null,
    commandHint: join('.ringmaster', 'commands', 'NAME.md'),
  };
}

/** One workflow file on disk. */
export interface WorkflowFileRef {
  file: string;
  source: Workflow['source'];
}

function yamlFiles(dir: string, source: Workflow['source']): WorkflowFileRef[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/i.test(f))
    .sort()
    .map((f) => ({ file: join(dir, f), source }));
}

/** Every workflow file: the project's first, then the built-in ones. */
export function workflowFiles(workspace: string): WorkflowFileRef[] {
  return [...yamlFiles(workflowDir(workspace), 'project'), ...yamlFiles(builtInWorkflowDir(), 'built-in')];
}

/** Reads and checks one workflow file (a missing or unreadable file is one problem). */
export function loadWorkflowFile(ref: WorkflowFileRef, workspace: string): ParseResult {
  let text: string;
  try {
    text = readFileSync(ref.file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { workflow: null, problems: [{ file: ref.file, line: 1, key: '', message: code === 'ENOENT' ? 'no such file' : `cannot read: ${(error as Error).message}` }] };
  }
  return parseWorkflow(text, ref.file, ref.source, parseContext(workspace));
}

/** A workflow file as `workflow list` shows it. */
export interface ListedWorkflow {
  ref: WorkflowFileRef;
  result: ParseResult;
  /** Hidden by a project workflow of the same name. */
  shadowed: boolean;
}

/** Every workflow file with its parse result. */
export function listWorkflows(workspace: string): ListedWorkflow[] {
  const listed = workflowFiles(workspace).map((ref) => ({ ref, result: loadWorkflowFile(ref, workspace), shadowed: false }));
  const projectNames = new Set(listed.filter((l) => l.ref.source === 'project' && l.result.workflow).map((l) => l.result.workflow?.name));
  for (const l of listed) if (l.ref.source === 'built-in' && projectNames.has(l.result.workflow?.name)) l.shadowed = true;
  return listed;
}

/** Whether a `workflow run` argument is a file path rather than a workflow name. */
export function looksLikePath(arg: string): boolean {
  return /[\\/]/.test(arg) || /\.ya?ml$/i.test(arg);
}

/** Finds a workflow by name (or loads a path); throws a UserError that says what exists or what is wrong. */
export function findWorkflow(workspace: string, nameOrPath: string, cwd: string = workspace): Workflow {
  if (looksLikePath(nameOrPath)) {
    const file = resolve(cwd, nameOrPath);
    const result = loadWorkflowFile({ file, source: 'project' }, workspace);
    if (!result.workflow) throw new WorkflowError(result.problems);
    return result.workflow;
  }
  const listed = listWorkflows(workspace);
  const matches = listed.filter((l) => l.result.workflow?.name === nameOrPath && !l.shadowed);
  const project = matches.filter((m) => m.ref.source === 'project');
  if (project.length > 1) throw new UserError(`${project.length} workflow files are named '${nameOrPath}': ${project.map((m) => m.ref.file).join(', ')}; rename all but one`);
  const found = matches[0]?.result.workflow;
  if (found) return found;
  // A broken file whose file name is the name asked for: its problems say more than "not found".
  const broken = listed.find((l) => !l.result.workflow && basename(l.ref.file).replace(/\.ya?ml$/i, '') === nameOrPath);
  if (broken) throw new WorkflowError(broken.result.problems);
  const known = [...new Set(listed.flatMap((l) => (l.result.workflow ? [l.result.workflow.name] : [])))].sort();
  const invalid = listed.filter((l) => !l.result.workflow).length;
  throw new UserError(
    `no workflow named '${nameOrPath}' (known: ${known.join(', ') || 'none'})${invalid > 0 ? `; ${invalid} workflow file(s) have problems: run 'ringmaster workflow validate'` : ''}`,
  );
}
