// Runs nobody drives continuing in the loop manager (manager.ts): one resumed or extended through the API, and after
// a restart the runs this manager's origin was driving (or, without resume_on_start, marked to resume by hand).
import { metaFromStorage, specFromStorage } from '../spec/run-spec.js';
import { parseStoredSpec } from '../spec/stored-spec.js';
import { ACTIVE_STATUSES, isOrphaned } from '../store/liveness.js';
import type { RunRow } from '../store/index.js';
import { pauseLeftPending } from './claim.js';
import { ManagerError } from './errors.js';
import { assertAccepting, owns, probe, type ManagerContext } from './manager-context.js';
import { asRequestError } from './new-run.js';
import { closeOrphanedRun } from './orphans.js';
import { programForRun } from './programs.js';
import { enqueue } from './queued-control.js';
import { pump } from './run-starter.js';

/** Takes over a run nobody drives (resume from the API, recovery): it is queued and continues here. */
export async function adoptRun(ctx: ManagerContext, run: RunRow, startPaused: boolean): Promise<void> {
  assertAccepting(ctx);
  if (run.stop_reason === 'success_signal') throw new ManagerError('conflict', `run ${run.id} already completed: the agent signalled success`);
  const { store, env, dispatch } = ctx.options;
  if (dispatch) {
    // For the workers: an ended run is queued again (pending, no owner), a live or orphaned one as it is. The
    // worker that takes it puts its secrets back from its own environment.
    if (!ACTIVE_STATUSES.includes(run.status)) await store.updateRunStatus(run.id, 'pending', ctx.now());
    await dispatch(run.id);
    return;
  }
  // The stored spec has the secrets of its agent command redacted: they come back from this environment.
  const spec = asRequestError(() => specFromStorage(parseStoredSpec(run.id, run.spec), env));
  const meta = asRequestError(() => metaFromStorage(run.meta, env));
  const stored = await store.getRunDefinition(run.id);
  const definition = stored === null ? null : asRequestError(() => metaFromStorage(stored, env));
  const program = await programForRun({ ...run, meta }, spec, definition);
  // Queued from now on: whoever looks sees it pending (not still stopped or failed) until it is claimed, or paused
  // when it comes back paused (a restart stopped it paused or pausing).
  if (!startPaused) await store.updateRunStatus(run.id, 'pending', ctx.now());
  else if (run.status !== 'paused') await store.updateRunStatus(run.id, 'paused', ctx.now());
  enqueue(ctx, run.id, {
    spec,
    workspace: run.workspace,
    worktree: run.worktree !== null ? { path: run.worktree, branch: run.branch ?? '' } : null,
    ...(program ? { program } : {}),
    held: false,
    startPaused,
  });
  pump(ctx);
}

/** After a restart: the runs this manager's origin was driving come back (or are marked to resume by hand). */
export async function recoverRuns(ctx: ManagerContext): Promise<{ resumed: string[]; marked: string[] }> {
  const { store, env } = ctx.options;
  const here = probe(ctx);
  const resumed: string[] = [];
  const marked: string[] = [];
  const candidates = await store.listRuns({ status: [...ACTIVE_STATUSES, 'stopped'] });
  for (const run of candidates.reverse()) {
    if (run.origin !== ctx.origin || owns(ctx, run.id)) continue;
    const orphaned = ACTIVE_STATUSES.includes(run.status) && isOrphaned(run, here);
    const interrupted = run.status === 'stopped' && run.stop_reason === 'interrupted';
    if (!orphaned && !interrupted) continue;
    if (ctx.options.resumeOnStart) {
      try {
        await adoptRun(ctx, run, run.status === 'paused' || (await pauseLeftPending(store, run.id)));
        resumed.push(run.id);
      } catch (error) {
        // It cannot continue here (a secret of its agent command is not in this environment): resumable by hand.
        ctx.options.log?.(`run ${run.id} not resumed: ${(error as Error).message}`);
        if (orphaned) await closeOrphanedRun(store, env, run, ctx.owner, ctx.now(), 'interrupted');
        marked.push(run.id);
      }
    } else if (orphaned) {
      await closeOrphanedRun(store, env, run, ctx.owner, ctx.now(), 'interrupted');
      marked.push(run.id);
    }
  }
  return { resumed, marked };
}
