// A control request made through the loop manager (manager.ts), wherever the run is: driven here (its controller),
// waiting in this manager's queue, in the workers' queue, driven by another process, or driven by nobody (a resume
// or an extension continues it here).
import { parseStoredSpec } from '../spec/stored-spec.js';
import { ACTIVE_STATUSES, isOrphaned, isQueued } from '../store/liveness.js';
import type { ControlAction, RunRow } from '../store/index.js';
import { adoptRun } from './adopt.js';
import { controlRemote, controlWorkerQueue, type ElsewhereContext } from './control-elsewhere.js';
import { ManagerError } from './errors.js';
import { broadcast, outcome, probe, type ManagerContext } from './manager-context.js';
import type { ControlOutcome } from './manager-options.js';
import { closeOrphanedRun } from './orphans.js';
import { controlQueued } from './queued-control.js';

/** What a control request carries besides its action. */
export interface ControlOptions {
  /** extend: how many iterations more (at least 1). */
  iterations?: number;
  /** pause: suspend the running agent at once (SIGSTOP) instead of waiting for its iteration to end. */
  now?: boolean;
}

/** Pause, resume, stop or extend a run wherever it is driven; the answer with the run's status now. */
export async function controlRun(ctx: ManagerContext, runId: string, action: ControlAction, by: string | null, options: ControlOptions = {}): Promise<ControlOutcome> {
  const iterations = options.iterations ?? 0;
  const now = options.now === true;
  if (action === 'extend' && (!Number.isInteger(iterations) || iterations < 1)) throw new ManagerError('invalid_request', 'iterations: expected a whole number of at least 1');
  const live = ctx.active.get(runId);
  if (live) {
    const request = action === 'extend' ? { kind: action, iterations, by } : action === 'pause' ? { kind: action, by, now } : { kind: action, by };
    return outcome(ctx, runId, action, live.controller.control(request));
  }
  const waiting = ctx.queue.get(runId);
  if (waiting) return controlQueued(ctx, runId, waiting, action, iterations);
  const run = await ctx.options.store.getRun(runId);
  if (!run) throw new ManagerError('not_found', `no run '${runId}'`);
  if (isQueued(run)) return outcome(ctx, runId, action, await controlWorkerQueue(elsewhere(ctx), run, action, by, iterations));
  if (ACTIVE_STATUSES.includes(run.status) && !isOrphaned(run, probe(ctx))) {
    return outcome(ctx, runId, action, await controlRemote(ctx.options.store, run, action, { by, iterations, now, requestedAt: ctx.now() }));
  }
  return controlUndriven(ctx, run, action, iterations);
}

/** A run nobody drives: extend raises its limit (and continues it), resume continues it here, stop closes it. */
async function controlUndriven(ctx: ManagerContext, run: RunRow, action: ControlAction, iterations: number): Promise<ControlOutcome> {
  const runId = run.id;
  switch (action) {
    case 'extend': {
      const spec = parseStoredSpec(run.id, run.spec);
      if (spec.limits.maxIterations === null) return outcome(ctx, runId, action, 'already');
      spec.limits.maxIterations += iterations;
      await ctx.options.store.updateRunSpec(runId, spec, ctx.now());
      if (run.stop_reason === 'max_iterations' || ACTIVE_STATUSES.includes(run.status)) await adoptRun(ctx, { ...run, spec }, false);
      return outcome(ctx, runId, action, 'accepted');
    }
    case 'pause':
      return outcome(ctx, runId, action, 'not_running');
    case 'stop':
      if (!ACTIVE_STATUSES.includes(run.status)) return outcome(ctx, runId, action, 'not_running');
      await closeOrphanedRun(ctx.options.store, ctx.options.env, run, ctx.owner, ctx.now());
      return outcome(ctx, runId, action, 'accepted');
    case 'resume':
      await adoptRun(ctx, run, false);
      return outcome(ctx, runId, action, 'accepted');
  }
}

/** What the control of a run driven elsewhere needs. */
function elsewhere(ctx: ManagerContext): ElsewhereContext {
  return { store: ctx.options.store, env: ctx.options.env, owner: ctx.owner, now: ctx.now(), broadcast: (events) => broadcast(ctx, events) };
}
