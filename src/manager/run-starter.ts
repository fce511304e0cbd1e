// Starting the runs of the loop manager's queue (manager.ts): while slots are free, the oldest run that is not held
// by a pause gets its RunController here (or, with workers, is handed to them); a run that cannot start ends failed.
import { ACTIVE_STATUSES } from '../store/liveness.js';
import { broadcast, type ManagerContext } from './manager-context.js';
import { closeOrphanedRun } from './orphans.js';
import { RunController } from './run-controller.js';
import type { Queued } from './run-queue.js';

/** Starts queued runs while slots are free, oldest first (with workers: hands each to them). */
export function pump(ctx: ManagerContext): void {
  if (!ctx.accepting) return;
  const dispatch = ctx.options.dispatch;
  if (dispatch) {
    for (const [id, queued] of ctx.queue.entries()) {
      if (queued.held) continue;
      ctx.queue.leave(id);
      dispatch(id).catch((error: unknown) => ctx.options.log?.(`run ${id}: could not queue it for the workers: ${(error as Error).message}`));
    }
    return;
  }
  for (const [id, queued] of ctx.queue.entries()) {
    if (ctx.active.size >= ctx.options.maxConcurrent) return;
    if (queued.held) continue;
    ctx.queue.leave(id);
    start(ctx, id, queued);
  }
}

/** Drives a run that left the queue; when it ends, its slot goes to the next. */
function start(ctx: ManagerContext, id: string, queued: Queued): void {
  const { options } = ctx;
  const controller = new RunController({
    store: options.store,
    env: options.env,
    runId: id,
    spec: queued.spec,
    workspace: queued.workspace,
    worktree: queued.worktree,
    mode: 'claim',
    ...(queued.program ? { program: queued.program } : {}),
    owner: ctx.owner,
    now: ctx.now,
    onEvent: (event) => options.onEvent?.(event),
    onActivity: options.onActivity ? (activity) => options.onActivity?.(id, activity) : null,
    onStoreError: (message) => options.log?.(`run ${id}: ${message}`),
    ...(ctx.pool ? { runIteration: ctx.pool.run } : {}),
  });
  if (queued.startPaused) controller.control({ kind: 'pause', by: 'restart' });
  const unregister = ctx.poller.register(controller);
  const done = controller
    .run()
    .then(
      () => undefined,
      (error: unknown) => failStart(ctx, id, error),
    )
    .catch((error: unknown) => options.log?.(`run ${id}: ${(error as Error).message}`))
    .finally(() => {
      unregister();
      ctx.active.delete(id);
      pump(ctx);
    });
  ctx.active.set(id, { controller, done });
}

/** It never started (e.g. the workspace got locked by a terminal run meanwhile): it ends failed, with why. */
async function failStart(ctx: ManagerContext, id: string, error: unknown): Promise<void> {
  const { store, env } = ctx.options;
  const message = error instanceof Error ? error.message : String(error);
  ctx.options.log?.(`run ${id} could not start: ${message}`);
  const run = await store.getRun(id);
  // Never a run that another process has taken meanwhile: only one nobody holds, or we hold.
  const ours = run !== null && (run.owner_pid === null || (run.owner_pid === ctx.owner.pid && run.owner_host === ctx.owner.host));
  if (run && ours && ACTIVE_STATUSES.includes(run.status)) {
    await closeOrphanedRun(store, env, run, ctx.owner, ctx.now(), 'fatal_error', (events) => broadcast(ctx, events), message);
  }
}
