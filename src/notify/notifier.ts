// A run's notifications: it watches the run's events, turns those named in notify.on into notifications, delivers
// each to every target in the background (the loop never waits for one) and records each delivery as a
// `notification` event. At the run's end flush() gives deliveries still going a bounded time, then abandons them.
import { budgetNoticeText } from '../core/budget.js';
import { DEFAULT_NOTIFY_ON, notifyEventOfEnd, type NotifyEvent } from '../core/notify-events.js';
import type { RunEvent, RunEventBody } from '../runner/events.js';
import { abandoned, DEFAULT_POLICY, deliver, type DeliveryPolicy } from './deliver.js';
import type { Notification } from './payload.js';
import type { Target } from './targets.js';

/** How long the end of a run waits for deliveries still going before it abandons them. */
export const DEFAULT_FLUSH_MS = 5_000;

/**
 * How long an abandoned delivery gets to end and record itself. One that does not (a target slower to let go than
 * its own limits allow: deliver.ts ends a webhook's try by a timer, a command's pipes half a second after its exit)
 * is recorded as abandoned by the notifier, and left to end.
 */
const ABANDON_GRACE_MS = 1_000;

/** One delivery still going: what it delivers, where, and how many tries it started. */
interface Delivery {
  event: NotifyEvent;
  target: string;
  attempts: number;
}

/** What a notifier needs. */
export interface NotifierOptions {
  runId: string;
  title: string;
  workspace: string;
  /** Events that notify (default: notify.on's default). */
  on?: readonly NotifyEvent[];
  /** Base of the link to the run. */
  publicUrl: string;
  targets: readonly Target[];
  /** Records a delivery (the run's event stream). */
  emit(body: RunEventBody): void;
  now(): number;
  policy?: DeliveryPolicy;
  flushMs?: number;
}

/** Watches one run's events and delivers its notifications. */
export class Notifier {
  private readonly options: NotifierOptions;
  private readonly on: ReadonlySet<NotifyEvent>;
  private readonly pending = new Map<Promise<void>, Delivery>();
  private readonly abort = new AbortController();
  private iterations = 0;
  private costUsd = 0;
  private costUnknown = false;
  private closed = false;

  constructor(options: NotifierOptions) {
    this.options = options;
    this.on = new Set(options.on ?? DEFAULT_NOTIFY_ON);
  }

  /** Deliveries not finished yet. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Sees one run event (synchronous, never throws): a notifying one starts its deliveries. */
  observe(event: RunEvent): void {
    if (event.type === 'iteration_completed') this.iterations = Math.max(this.iterations, event.iteration);
    if (event.type === 'cost_incurred') this.costUsd = event.total_cost_usd;
    if (event.type === 'iteration_completed' && event.cost_usd === null) this.costUnknown = true;
    const n = this.notificationOf(event);
    if (n !== null) this.send(n);
  }

  /** Sends `n` to every target now (`ringmaster notify test` and observe()). */
  send(n: Notification): void {
    if (this.closed || !this.on.has(n.event)) return;
    for (const target of this.options.targets) {
      const state: Delivery = { event: n.event, target: target.name, attempts: 0 };
      const onAttempt = (attempt: number): void => {
        state.attempts = attempt;
      };
      const delivery = deliver(target, n, this.options.policy ?? DEFAULT_POLICY, this.abort.signal, onAttempt).then((result) => {
        if (this.closed) return;
        this.options.emit({ type: 'notification', time: this.options.now(), event: n.event, target: target.name, ...result });
      });
      const tracked = delivery.finally(() => this.pending.delete(tracked));
      this.pending.set(tracked, state);
    }
  }

  /**
   * Waits for the deliveries still going, at most flushMs; then abandons the rest (recorded as failed). Nothing is
   * delivered or recorded after it returns, and it returns within flushMs and a second whatever a target does.
   */
  async flush(): Promise<void> {
    if (this.pending.size > 0) {
      const limit = this.options.flushMs ?? DEFAULT_FLUSH_MS;
      await settledWithin([...this.pending.keys()], limit);
      this.abort.abort(new Error(`abandoned: the run ended ${limit / 1000}s before`));
      await settledWithin([...this.pending.keys()], ABANDON_GRACE_MS);
      for (const stuck of this.pending.values()) {
        const reason = `${abandoned(this.abort.signal)} (it did not end when abandoned)`;
        this.options.emit({ type: 'notification', time: this.options.now(), event: stuck.event, target: stuck.target, status: 'failed', attempts: stuck.attempts, answer: null, reason });
      }
    }
    this.closed = true;
  }

  private notificationOf(event: RunEvent): Notification | null {
    const base = { run_id: this.options.runId, title: this.options.title, workspace: this.options.workspace, url: runUrl(this.options.publicUrl, this.options.runId), time: new Date(event.time).toISOString() };
    if (event.type === 'run_finished') {
      const kind = notifyEventOfEnd(event.status, event.stop_reason);
      if (kind === null) return null;
      const reason = event.message === null ? event.stop_reason : `${event.stop_reason} (${event.message})`;
      return { ...base, event: kind, reason, iterations: event.iterations, cost_usd: event.cost_usd, cost_unknown: event.cost_unknown };
    }
    if (event.type === 'budget_threshold') {
      return { ...base, event: 'budget', reason: budgetNoticeText(event), iterations: this.iterations, cost_usd: this.costUsd, cost_unknown: this.costUnknown };
    }
    // A run held back by the shared budget is not notified one by one: the budget's 100% notice says it once.
    if (event.type === 'waiting' && event.reason !== 'budget') {
      return { ...base, event: 'waiting', reason: `${event.reason} until ${new Date(event.until).toISOString()}`, iterations: this.iterations, cost_usd: this.costUsd, cost_unknown: this.costUnknown };
    }
    return null;
  }
}

/** Waits until every promise has settled, or `ms` has passed. */
async function settledWithin(promises: readonly Promise<void>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([Promise.allSettled(promises), expired]);
  clearTimeout(timer);
}

/** The run's page in the dashboard. */
export function runUrl(publicUrl: string, runId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/runs/${encodeURIComponent(runId)}`;
}
