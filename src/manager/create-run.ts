// A new run through the loop manager (manager.ts): a request validated as `ringmaster run` would, stored as pending
// and queued here (it starts at once when a slot is free), or, on a repository and branch, queued for the workers.
import { newRunId } from '../core/ids.js';
import { redactor } from '../core/redact.js';
import type { RunStatus } from '../core/types.js';
import { metaForStorage, specForStorage } from '../spec/run-spec.js';
import { ACTIVE_STATUSES, isOrphaned } from '../store/liveness.js';
import { workspaceKey } from '../store/paths.js';
import { ManagerError } from './errors.js';
import { announce, assertAccepting, broadcast, owns, probe, type ManagerContext } from './manager-context.js';
import { asRequestError, resolveNewRun } from './new-run.js';
import { enqueue } from './queued-control.js';
import { recordQueuedRun, resolveRepositoryRun } from './repository-run.js';
import type { RunRequest } from './run-request.js';
import { pump } from './run-starter.js';
import { placeInWorktree } from './worktree-run.js';

/** Validates a request like `ringmaster run` and queues the run; it starts at once when a slot is free. */
export async function createRun(ctx: ManagerContext, request: RunRequest): Promise<{ id: string; status: RunStatus }> {
  assertAccepting(ctx);
  if (request.repository !== undefined) return createRepositoryRun(ctx, request);
  const { options } = ctx;
  const { dir, spec, program } = resolveNewRun(request, options.env);
  const key = workspaceKey(dir);
  if (!request.worktree) await assertWorkspaceFree(ctx, key);
  const id = newRunId(ctx.now(), Math.random);
  const worktree = request.worktree ? await placeInWorktree(dir, id, spec) : null;
  // For the workers: queued with no owner (a worker on this machine takes the workspace path as it is).
  const queued = options.dispatch !== undefined;
  await options.store.createRun({
    id,
    agent: spec.agent.name,
    kind: program?.kind ?? 'prompt',
    meta: metaForStorage(program?.metadata() ?? {}, redactor(options.env)),
    definition: program?.definition ? metaForStorage(program.definition(), redactor(options.env)) : null,
    spec: specForStorage(spec, redactor(options.env)),
    workspace: key,
    worktree: worktree?.path ?? null,
    branch: worktree?.branch ?? null,
    status: 'pending',
    origin: queued ? 'queue' : ctx.origin,
    owner: queued ? null : ctx.owner,
    now: ctx.now(),
  });
  enqueue(ctx, id, { spec, workspace: key, worktree: worktree ? { path: worktree.path, branch: worktree.branch } : null, ...(program ? { program } : {}), held: false, startPaused: false });
  await announce(ctx, id, [{ type: 'run_queued', time: ctx.now(), position: ctx.queue.waiting(), workspace: key, agent: spec.agent.name, label: spec.label }]);
  pump(ctx);
  return { id, status: ctx.active.has(id) ? 'running' : 'pending' };
}

/** A run on a repository and branch (`repository` instead of `workspace`): queued for the workers, which clone it. */
async function createRepositoryRun(ctx: ManagerContext, request: RunRequest): Promise<{ id: string; status: RunStatus }> {
  const { dispatch, env, store } = ctx.options;
  if (!dispatch) throw new ManagerError('invalid_request', "repository: runs on a repository are driven by workers: start the server with '--workers external'");
  const { spec, repository, branch } = asRequestError(() => resolveRepositoryRun(env, request));
  const id = newRunId(ctx.now(), Math.random);
  broadcast(ctx, await recordQueuedRun(store, env, { id, spec, repository, branch, now: ctx.now() }));
  await dispatch(id);
  return { id, status: 'pending' };
}

/** Refuses a second run in a workspace that has an active run outside a worktree (one live or queued here). */
async function assertWorkspaceFree(ctx: ManagerContext, key: string): Promise<void> {
  const here = probe(ctx);
  const busy = (await ctx.options.store.listRuns({ workspace: key, status: ACTIVE_STATUSES })).find((r) => !r.worktree && (!isOrphaned(r, here) || owns(ctx, r.id)));
  if (busy) throw new ManagerError('conflict', `workspace ${key} already has an active run (${busy.id}, ${busy.status}); use a worktree or stop it first`);
}
