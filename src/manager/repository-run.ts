// A run request on a repository and branch (POST /api/runs with `repository` instead of `workspace`, for
// `serve --workers external`): validated and resolved like any run, with no workspace on this machine.
import { getAdapter } from '../agents/registry.js';
import { UserError } from '../core/errors.js';
import { resolveRun } from '../spec/resolve.js';
import { composePrompt } from '../prompt/compose.js';
import type { RunEvent } from '../runner/events.js';
import { specForStorage, type RunSpec } from '../spec/run-spec.js';
import { redactDeep, redactor } from '../core/redact.js';
import { appendEventBodies } from '../runner/standalone-events.js';
import type { Store } from '../store/index.js';
import { dataDir } from '../store/paths.js';
import { runFlagsFromRequest } from './run-flags.js';
import type { RunRequest } from './run-request.js';

/** The spec of a repository run; throws UserError naming the request field that is wrong. */
export function resolveRepositoryRun(env: Readonly<Record<string, string | undefined>>, request: RunRequest): { spec: RunSpec; repository: string; branch: string } {
  if (request.workspace !== undefined || request.worktree) throw new UserError('repository: give either workspace or repository (with branch), and no worktree');
  if (request.repository === undefined) throw new UserError('repository: required');
  if (request.branch === undefined) throw new UserError('branch: required with repository');
  // Config comes from the server's data directory; a prompt file is read from the same path in the run's clone
  // (the worker re-roots it), so it is not looked for here.
  const { spec } = resolveRun(dataDir(env), env, runFlagsFromRequest(request), { defaults: 'manager' });
  getAdapter({ name: spec.agent.name, command: spec.agent.command });
  if (spec.prompt.kind !== 'file') composePrompt(spec.prompt, spec.context);
  return { spec, repository: request.repository, branch: request.branch };
}

/**
 * Records a run for the workers (before its job is sent): `pending`, no owner until a worker claims it, origin
 * `queue`, the repository in its spec, and its `run_queued` event; the secrets of `env` redacted. Returns the
 * stamped events.
 */
export async function recordQueuedRun(
  store: Store,
  env: Readonly<Record<string, string | undefined>>,
  run: { id: string; spec: RunSpec; repository: string; branch: string; now: number },
): Promise<RunEvent[]> {
  // Stored without the secrets of this environment; the worker puts them back from its own (specFromStorage).
  const redact = redactor(env);
  await store.createRun({
    id: run.id,
    agent: run.spec.agent.name,
    kind: 'prompt',
    spec: { ...specForStorage(run.spec, redact), repository: { url: run.repository, branch: run.branch } },
    workspace: run.repository,
    branch: `ringmaster/${run.id}`,
    status: 'pending',
    origin: 'queue',
    owner: null,
    now: run.now,
  });
  return appendEventBodies(store, run.id, redactDeep([{ type: 'run_queued', time: run.now, position: 0, workspace: run.repository, agent: run.spec.agent.name, label: run.spec.label }], redact));
}
