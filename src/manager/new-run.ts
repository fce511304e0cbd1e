// A new run asked of the manager (POST /api/runs, the dashboard's form): validated and resolved as `ringmaster run`
// would do it, its problems reported as invalid requests with the same messages.
import { getAdapter } from '../agents/registry.js';
import { resolveRun } from '../spec/resolve.js';
import { UserError } from '../core/errors.js';
import { composePrompt } from '../prompt/compose.js';
import type { LoopProgram } from '../runner/program.js';
import type { RunSpec } from '../spec/run-spec.js';
import { prepareWorkflowRun } from '../workflow/start.js';
import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { ManagerError } from './errors.js';
import { runFlagsFromRequest } from './run-flags.js';
import type { RunRequest } from './run-request.js';

/** Runs `work`; a UserError it throws (bad input) becomes an invalid request with the same message. */
export function asRequestError<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof UserError) throw new ManagerError('invalid_request', error.message);
    throw error;
  }
}

/** The workspace, spec and (for a workflow) program of a request on a local workspace, or why not. */
export function resolveNewRun(request: RunRequest, env: Readonly<Record<string, string | undefined>>): { dir: string; spec: RunSpec; program: LoopProgram | undefined } {
  const dir = request.workspace ?? '';
  if (!isAbsolute(dir)) throw new ManagerError('invalid_request', `workspace: expected an absolute path, got '${dir}'`);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ManagerError('invalid_request', `workspace: not a directory: ${dir}`);
  const flags = runFlagsFromRequest(request);
  if (request.workflow !== undefined && (flags.prompt !== undefined || flags.promptFile !== undefined || flags.procedure !== undefined)) {
    throw new ManagerError('invalid_request', 'workflow: a workflow brings its own prompts (no prompt, prompt_file or procedure with it)');
  }
  if (request.workflow !== undefined && (request.verify !== undefined || request.verify_each !== undefined)) {
    throw new ManagerError('invalid_request', 'verify: the verify gate is for plain runs (a workflow loop ends on its own until)');
  }
  if (request.workflow === undefined && request.message !== undefined) throw new ManagerError('invalid_request', 'message: only a workflow takes a message');
  const prepared =
    request.workflow === undefined ? null : asRequestError(() => prepareWorkflowRun({ workspace: dir, env, workflow: request.workflow ?? '', message: request.message ?? '', flags }));
  const spec = prepared?.spec ?? asRequestError(() => resolveRun(dir, env, flags, { defaults: 'manager' })).spec;
  const program = prepared?.program;
  asRequestError(() => getAdapter({ name: spec.agent.name, command: spec.agent.command }));
  if (!program) asRequestError(() => composePrompt(spec.prompt, spec.context));
  return { dir, spec, program };
}
