// Which events deserve a browser notification (opt-in): a run completed, failed, or waits on a usage limit.
import type { RunEvent, RunItem } from '../api/api-types.js';
import { countdown, title as shortTitle } from './format.js';

/** A notification to show. `tag` makes a repeated one replace the previous instead of stacking. */
export interface NotificationSpec {
  title: string;
  body: string;
  tag: string;
}

/** The notification for an event, or null. `now` is the time it is shown (for the countdown). */
export function notificationFor(event: RunEvent, run: RunItem | undefined, now: number): NotificationSpec | null {
  const name = run === undefined || !run.title ? event.run_id : `${shortTitle(run.title, 60)} (${event.run_id})`;
  switch (event.type) {
    case 'completed':
      return { title: `Completed: ${name}`, body: `stop reason: ${event.stop_reason}`, tag: `run-${event.run_id}` };
    case 'failed':
      return { title: `Failed: ${name}`, body: event.message ?? `stop reason: ${event.stop_reason}`, tag: `run-${event.run_id}` };
    case 'waiting':
      if (event.reason !== 'usage_limit') return null;
      return { title: `Waiting on a usage limit: ${name}`, body: `resumes in ${countdown(event.until, now)}`, tag: `run-${event.run_id}` };
    default:
      return null;
  }
}
