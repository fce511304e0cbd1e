// The events a notification can be about (`notify.on`), and which end of a run is which. Pure.
import type { RunStatus, StopReason } from './types.js';

/** Everything `notify.on` may name. `budget`: the shared budget's 80% and 100% of a window (runner/budget-gate.ts). */
export const NOTIFY_EVENTS = ['completed', 'failed', 'stopped', 'limit', 'waiting', 'no_progress', 'budget'] as const;

/** One event a notification is about. */
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** `notify.on` when unset: everything but `stopped` (a person who stops a run knows it stopped). */
export const DEFAULT_NOTIFY_ON: readonly NotifyEvent[] = NOTIFY_EVENTS.filter((e) => e !== 'stopped');

const LIMITS: ReadonlySet<StopReason> = new Set(['max_iterations', 'max_runtime', 'max_cost']);

/** The notification event of a run's end: a limit reached, no progress (stalled), completed, failed or stopped. */
export function notifyEventOfEnd(status: RunStatus, reason: StopReason): NotifyEvent | null {
  if (reason === 'stalled' || reason === 'no_progress') return 'no_progress';
  if (status === 'completed') return LIMITS.has(reason) ? 'limit' : 'completed';
  if (status === 'failed') return 'failed';
  if (status === 'stopped') return 'stopped';
  return null;
}
