// Control of a run that this process does not drive: one waiting in the workers' queue (no owner yet), and one
// that another process (a terminal, another server, a worker) drives, reached through a control request in the
// store that its owner picks up (control-poller.ts) and answers.
import type { RunEvent } from '../runner/events.js';
import { parseStoredSpec } from '../spec/stored-spec.js';
import type { ControlAction, Owner, RunRow, Store } from '../store/index.js';
import { closeOrphanedRun } from './orphans.js';

/** How long a control request to another process is awaited before answering `requested`. */
const REMOTE_ANSWER_MS = 3000;

/** What the control of a run driven elsewhere needs from the manager. */
export interface ElsewhereContext {
  store: Store;
  env: Readonly<Record<string, string | undefined>>;
  owner: Owner;
  now: number;
  /** Hands events appended here to the manager's fan-out. */
  broadcast: (events: readonly RunEvent[]) => void;
}

/**
 * A run waiting in the workers' queue (no owner yet): a stop closes it now; a raised limit is stored; pause and
 * resume are requests that the worker taking it applies before its first iteration. The answer.
 */
export async function controlWorkerQueue(ctx: ElsewhereContext, run: RunRow, action: ControlAction, by: string | null, iterations: number): Promise<string> {
  const { store } = ctx;
  if (action === 'stop') {
    await closeOrphanedRun(store, ctx.env, run, ctx.owner, ctx.now, 'user_stop', ctx.broadcast);
    return 'accepted';
  }
  if (action === 'extend') {
    const spec = parseStoredSpec(run.id, run.spec);
    if (spec.limits.maxIterations === null) return 'already';
    spec.limits.maxIterations += iterations;
    await store.updateRunSpec(run.id, spec, ctx.now);
    return 'accepted';
  }
  await store.requestControl({ run_id: run.id, action, options: {}, requested_by: by, requested_at: ctx.now });
  return 'requested';
}

/**
 * A run another live process drives: the request is stored for it, and its answer awaited for a few seconds
 * (`requested` when it has not answered by then).
 */
export async function controlRemote(
  store: Store,
  run: RunRow,
  action: ControlAction,
  request: { by: string | null; iterations: number; now: boolean; requestedAt: number },
): Promise<string> {
  const options = action === 'extend' ? { iterations: request.iterations } : action === 'pause' && request.now ? { now: true } : {};
  const stored = await store.requestControl({ run_id: run.id, action, options, requested_by: request.by, requested_at: request.requestedAt });
  const until = Date.now() + REMOTE_ANSWER_MS;
  for (;;) {
    const row = await store.getControl(stored.id);
    if (row?.handled_at !== null && row?.result) return row.result;
    if (Date.now() >= until) return 'requested';
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
