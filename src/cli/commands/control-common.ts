// Shared by pause / resume / stop: finding a run, telling whether a live process owns it, asking that owner
// through the store, and waiting until the request has taken effect.
import { EXIT, UserError } from '../../core/errors.js';
import { HOOK_AGENT } from '../../core/types.js';
import type { ControlAction, ControlRow, RunRow, Store } from '../../store/index.js';
import { ACTIVE_STATUSES, isOrphaned } from '../../store/liveness.js';
import { localProbe, requireRun } from './history-common.js';

/** The run, refusing Stop-hook loops (they have no owner process to ask). */
export async function findControllableRun(store: Store, id: string, workspace: string): Promise<RunRow> {
  const run = await requireRun(store, id, workspace);
  if (run.agent === HOOK_AGENT) {
    throw new UserError(`run ${run.id} is a Stop-hook loop inside a Claude Code session: use 'ringmaster loop status' / 'ringmaster loop cancel'`);
  }
  return run;
}

/** True when the run is active and a live process owns it (so it must be asked, not taken over). */
export function hasLiveOwner(run: RunRow): boolean {
  return ACTIVE_STATUSES.includes(run.status) && run.owner_pid !== null && !isOrphaned(run, localProbe());
}

/** For a run waiting in the workers' queue: a request the worker that takes it applies first. */
export async function requestOfQueued(store: Store, run: RunRow, action: ControlAction, io: { stdout: { write(text: string): unknown } }): Promise<number> {
  await requestControl(store, run, action);
  io.stdout.write(`run ${run.id} is queued for the workers: it ${action === 'pause' ? 'pauses' : 'goes on'} as soon as one takes it\n`);
  return EXIT.success;
}

/** Who a request from this terminal is from, as progress lines show it. */
export const CLI_REQUESTER = 'user';

/** Writes a control request for the run's owner. */
export function requestControl(store: Store, run: RunRow, action: ControlAction, options: Record<string, unknown> = {}): Promise<ControlRow> {
  return store.requestControl({ run_id: run.id, action, options, requested_by: CLI_REQUESTER, requested_at: Date.now() });
}

/** Polls until the owner answered the request and `done(run)` holds, or `timeoutMs` passes; returns the answer and the run. */
export async function awaitControl(
  store: Store,
  request: ControlRow,
  done: (run: RunRow) => boolean,
  timeoutMs: number,
): Promise<{ answer: string | null; run: RunRow | null }> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = await store.getRun(request.run_id);
    const row = (await store.pendingControls(request.run_id)).find((r) => r.id === request.id);
    const answered = row === undefined;
    if (answered && run !== null && (done(run) || !ACTIVE_STATUSES.includes(run.status))) {
      return { answer: await answerOf(store, request), run };
    }
    if (Date.now() >= until) return { answer: answered ? await answerOf(store, request) : null, run };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function answerOf(store: Store, request: ControlRow): Promise<string | null> {
  return (await store.getControl(request.id))?.result ?? null;
}

/** A run that is not active cannot be paused or resumed in place. */
export function notActive(run: RunRow): UserError {
  return new UserError(`run ${run.id} is not running (${run.status}${run.stop_reason ? `, ${run.stop_reason}` : ''})`, EXIT.usage);
}
