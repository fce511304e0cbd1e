// Closing a run that no live process drives (its owner died, or it never started): whatever its agent left
// behind is killed, a running iteration is recorded as interrupted, and the run ends with a reason and events.
import { redactDeep, redactor } from '../core/redact.js';
import type { StopReason } from '../core/types.js';
import type { RunEvent } from '../runner/events.js';
import { killLeftoverAgent } from '../runner/leftover.js';
import { appendEventBodies } from '../runner/standalone-events.js';
import type { Owner, RunRow, Store } from '../store/index.js';
import { dataDir } from '../store/paths.js';

/** What closing found and did. */
export interface ClosedRun {
  interrupted: number[];
  leftoverKilled: number | null;
  events: RunEvent[];
}

/** Ends an ownerless run: `user_stop`/`interrupted` end it stopped, `fatal_error` failed. */
export async function closeOrphanedRun(
  store: Store,
  env: Readonly<Record<string, string | undefined>>,
  run: RunRow,
  owner: Owner,
  now: number,
  reason: Extract<StopReason, 'user_stop' | 'interrupted' | 'fatal_error'> = 'user_stop',
  onEvents?: (events: RunEvent[]) => void,
  message: string | null = null,
): Promise<ClosedRun> {
  const leftoverKilled = killLeftoverAgent(dataDir(env), run.id);
  const claim = await store.claimRun(run.id, owner, now, leftoverKilled !== null ? { agentRanUntil: now } : {});
  for (const request of await store.pendingControls(run.id)) await store.markControlHandled(request.id, now, 'expired: run closed');
  const status = reason === 'fatal_error' ? 'failed' : 'stopped';
  await store.finishRun(run.id, { status, stop_reason: reason, now });
  const totals = await store.runTotals(run.id);
  const why = message ?? (reason === 'interrupted' ? 'its process had ended: resume it to continue' : reason === 'user_stop' ? 'stopped while no process was driving it' : null);
  // The message may quote an error (why the run could not start): no secret of the environment goes into the store.
  const events = await appendEventBodies(store, run.id, redactDeep([
    status === 'failed' ? { type: 'failed', time: now, stop_reason: reason, message: why } : { type: 'stopped', time: now, stop_reason: reason },
    {
      type: 'run_finished',
      time: now,
      status,
      stop_reason: reason,
      iterations: totals.iterations,
      total_ms: totals.runtime_ms,
      cost_usd: totals.cost_usd,
      cost_unknown: totals.cost_unknown,
      tokens_in: totals.tokens_in,
      tokens_out: totals.tokens_out,
      consecutive_failures: totals.consecutive_failures,
      failure_threshold: 0,
      max_iterations: null,
      message: why,
    },
  ], redactor(env)));
  onEvents?.(events);
  return { interrupted: claim.interrupted, leftoverKilled, events };
}
