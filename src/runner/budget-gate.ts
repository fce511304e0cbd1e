// The shared budget at the run's iteration boundary (README "Budget"): the shell reads the store's budget
// (the spend of every run in the UTC day or month against it) before the step decides; when it is reached the
// step answers `budget_wait` (core/run-step.ts) and the run waits (a `waiting` event, reason `budget`, until the
// window resets), looking at the store again every poll interval, so a raised budget or a new window lets it go
// on in every process that uses the store.
import { readBudgetReport } from '../store/budget.js';
import type { Store } from '../store/store.js';

/** Default time between two looks at the store while a run waits for the budget. */
export const BUDGET_POLL_MS = 10_000;

/** Holds runs back while the shared budget is reached. */
export interface BudgetGate {
  /** When the window whose limit is reached resets, or null when no limit is reached. Throws when the store cannot be read. */
  reached(now: number): Promise<number | null>;
  /** How long a run held back sleeps before it looks at the store again. */
  pollMs: number;
}

/** The gate of runs recorded in `store`. */
export function storeBudgetGate(store: Store, pollMs = BUDGET_POLL_MS): BudgetGate {
  return { pollMs, reached: async (now) => (await readBudgetReport(store, now, false)).reached?.resets_at ?? null };
}

/** What reading the gate at a boundary needs from the shell. */
export interface GateReader {
  now: () => number;
  /** Sleeps; false when cut short (a control request: the step then sees it first). */
  sleep: (ms: number) => Promise<boolean>;
  warn: (message: string) => void;
}

/**
 * The budget's verdict at a boundary: its reset time when reached, else null. While the store cannot be read the
 * run neither starts an iteration unchecked nor ends: it looks again every poll interval (warned once); a control
 * request cuts that short, and the run is held back for one more poll interval (the control comes first).
 */
export async function budgetWaitAt(gate: BudgetGate, shell: GateReader): Promise<number | null> {
  let warned = false;
  for (;;) {
    try {
      return await gate.reached(shell.now());
    } catch (error) {
      if (!warned) shell.warn(`the shared budget cannot be read (${(error as Error).message}): looking again`);
      warned = true;
      if (!(await shell.sleep(gate.pollMs))) return shell.now() + gate.pollMs;
    }
  }
}
