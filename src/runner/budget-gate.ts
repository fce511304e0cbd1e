// The shared budget before each iteration (README "Budget"): when the store's budget is reached (the spend of
// every run in the UTC day or month), the run waits (a `waiting` event, reason `budget`, until the window
// resets) and looks at the store again every poll interval, so a raised budget or a new window lets it go on
// in every process that uses the store. The loop's one call site: before it asks its program for the next step.
import { readBudgetReport } from '../store/budget.js';
import type { Store } from '../store/store.js';
import type { RunEventBodySink } from './events.js';

/** Default time between two looks at the store while a run waits for the budget. */
export const BUDGET_POLL_MS = 10_000;

/** What the loop hands the gate at a boundary. */
export interface GateContext {
  /** The number of the iteration about to start (the `waiting` event's). */
  iteration: number;
  emit: RunEventBodySink;
  now: () => number;
  /** Sleeps; false when cut short (a pause, stop or interruption: the loop then looks at the boundary again). */
  sleep: (ms: number) => Promise<boolean>;
}

/** Holds runs back while the shared budget is reached. */
export interface BudgetGate {
  /** True when an iteration may start (at once, or after waiting); false when the wait was cut short. */
  admit(context: GateContext): Promise<boolean>;
}

/** The gate of runs recorded in `store`, looking again every `pollMs` while it holds them. */
export function storeBudgetGate(store: Store, pollMs = BUDGET_POLL_MS): BudgetGate {
  return {
    async admit({ iteration, emit, now, sleep }) {
      let announced = false;
      let failing = false;
      for (;;) {
        let resetsAt: number | null;
        try {
          resetsAt = (await readBudgetReport(store, now(), false)).reached?.resets_at ?? null;
          failing = false;
        } catch (error) {
          // The store cannot be read: the run neither starts an iteration unchecked nor ends; it looks again.
          if (!failing) emit({ type: 'warning', time: now(), message: `the shared budget cannot be read (${(error as Error).message}): looking again` });
          failing = true;
          if (!(await sleep(pollMs))) return false;
          continue;
        }
        if (resetsAt === null) return true;
        if (!announced) emit({ type: 'waiting', time: now(), iteration, until: resetsAt, reason: 'budget' });
        announced = true;
        if (!(await sleep(Math.max(1, Math.min(pollMs, resetsAt - now()))))) return false;
      }
    },
  };
}
