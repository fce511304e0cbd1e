// Control of a run waiting in the loop manager's queue (manager.ts): a pause holds it back, a resume puts it back at
// the end, extend raises its limit, stop ends it, a note is announced. The requests other processes write for it
// (`ringmaster stop|pause|resume RUN`) are answered here as the API's are; its controller takes over once it starts.
import { redactor } from '../core/redact.js';
import { specForStorage } from '../spec/run-spec.js';
import type { ControlAction } from '../store/index.js';
import type { AddedNote, ControlAnswer, ControlTarget } from './control-poller.js';
import { announce, broadcast, outcome, type ManagerContext } from './manager-context.js';
import type { ControlOutcome } from './manager-options.js';
import { closeOrphanedRun } from './orphans.js';
import type { Queued } from './run-queue.js';
import { pump } from './run-starter.js';

/** Queues a run at the end of this manager's queue, answering the control requests written for it while it waits. */
export function enqueue(ctx: ManagerContext, runId: string, queued: Queued): void {
  ctx.queue.add(runId, queued, waitingTarget(ctx, runId));
}

/** The control target of a queued run: the poller hands it the requests other processes write for the run. */
function waitingTarget(ctx: ManagerContext, runId: string): ControlTarget {
  const act = (action: ControlAction, iterations = 0): ControlAnswer => {
    const q = ctx.queue.get(runId);
    if (!q) return 'not_running';
    if ((action === 'pause' && q.held) || (action === 'resume' && !q.held) || (action === 'extend' && q.spec.limits.maxIterations === null)) return 'already';
    controlQueued(ctx, runId, q, action, iterations).catch((error: unknown) => ctx.options.log?.(`run ${runId}: ${action}: ${(error as Error).message}`));
    return 'accepted';
  };
  return { runId, control: (request) => (request.kind === 'note' ? noteWhileQueued(ctx, runId, request.note) : act(request.kind, request.kind === 'extend' ? request.iterations : 0)) };
}

/** A note to a run waiting in this manager's queue: announced here (note_added); its first iteration claims it. */
function noteWhileQueued(ctx: ManagerContext, runId: string, note: AddedNote): ControlAnswer {
  if (!ctx.queue.has(runId)) return 'not_running';
  announce(ctx, runId, [{ type: 'note_added', time: ctx.now(), note_id: note.id, text: note.text, by: note.by }]).catch((error: unknown) => ctx.options.log?.(`run ${runId}: note: ${(error as Error).message}`));
  return 'accepted';
}

/** Pause, resume, extend or stop a run waiting in this manager's queue. */
export async function controlQueued(ctx: ManagerContext, runId: string, queued: Queued, action: ControlAction, iterations: number): Promise<ControlOutcome> {
  const { store } = ctx.options;
  switch (action) {
    case 'extend':
      if (queued.spec.limits.maxIterations === null) return outcome(ctx, runId, action, 'already');
      queued.spec.limits.maxIterations += iterations;
      await store.updateRunSpec(runId, specForStorage(queued.spec, redactor(ctx.options.env)), ctx.now());
      return outcome(ctx, runId, action, 'accepted');
    case 'pause':
      if (queued.held) return outcome(ctx, runId, action, 'already');
      queued.held = true;
      await store.updateRunStatus(runId, 'paused', ctx.now());
      await announce(ctx, runId, [{ type: 'paused', time: ctx.now(), after_iteration: (await store.runTotals(runId)).last_iteration, by: null, suspended: false }]);
      return outcome(ctx, runId, action, 'accepted');
    case 'resume':
      if (!queued.held) return outcome(ctx, runId, action, 'already');
      queued.held = false;
      // Back at the end of the queue, first in first out among the runs waiting now.
      ctx.queue.moveToEnd(runId);
      await store.updateRunStatus(runId, 'pending', ctx.now());
      await announce(ctx, runId, [{ type: 'resumed', time: ctx.now(), paused_ms: 0 }]);
      pump(ctx);
      return outcome(ctx, runId, action, 'accepted');
    case 'stop': {
      ctx.queue.leave(runId);
      const run = await store.getRun(runId);
      if (run) await closeOrphanedRun(store, ctx.options.env, run, ctx.owner, ctx.now(), 'user_stop', (events) => broadcast(ctx, events));
      return outcome(ctx, runId, action, 'accepted');
    }
  }
}
