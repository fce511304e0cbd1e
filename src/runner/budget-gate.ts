// The shared budget at the run's iteration boundary (README "Budget"): the shell reads the store's budget
// (the spend of every run in the UTC day or month against it) before the step decides; when it is reached the
// step answers `budget_wait` (core/run-step.ts) and the run waits (a `waiting` event, reason `budget`, until the
// window resets), looking at the store again every poll interval, so a raised budget or a new window lets it go
// on in every process that uses the store. While iterations run, BudgetWatch reads it every poll interval too and
// hands what may still be spent to the run's SpendGuard, which stops the running agents when it is spent.
import { noticeLevel, type BudgetWindowName } from '../core/budget.js';
import { readBudgetReport } from '../store/budget.js';
import type { Store } from '../store/store.js';
import type { SpendGuard } from './spend-guard.js';

/** Default time between two looks at the store while a run waits for the budget. */
export const BUDGET_POLL_MS = 10_000;

/** The shared budget at one moment, as a run needs it. */
export interface BudgetLook {
  /** When the window whose limit is reached resets, or null when no limit is reached. */
  resetsAt: number | null;
  /** What may still be spent before a limit is reached (the least of both windows), or null: no limit. */
  headroomUsd: number | null;
  /** Thresholds (80%, 100%) reached that this look claimed: the run announces them (`budget_threshold`). */
  notices: BudgetNotice[];
}

/** A threshold of a window's limit reached, to announce. */
export interface BudgetNotice {
  window: BudgetWindowName;
  percent: number;
  spent_usd: number;
  limit_usd: number;
  resets_at: number;
}

/** Holds runs back while the shared budget is reached. */
export interface BudgetGate {
  /** The budget now. Throws when the store cannot be read. */
  look(now: number): Promise<BudgetLook>;
  /** How long a run held back sleeps before it looks at the store again (and how often it looks while agents work). */
  pollMs: number;
}

/** The gate of runs recorded in `store`. */
export function storeBudgetGate(store: Store, pollMs = BUDGET_POLL_MS): BudgetGate {
  // Thresholds this gate has asked the store for (won or not): each is claimed once per window and limit.
  const asked = new Set<string>();
  return {
    pollMs,
    async look(now) {
      const report = await readBudgetReport(store, now, false);
      const left = [report.daily, report.monthly].filter((w) => w.limit_usd !== null).map((w) => (w.limit_usd ?? 0) - w.spent_usd);
      const notices: BudgetNotice[] = [];
      for (const window of ['daily', 'monthly'] as const) {
        const state = report[window];
        const percent = noticeLevel(state);
        const key = `${window} ${state.start} ${state.limit_usd} ${percent}`;
        if (percent === 0 || state.limit_usd === null || asked.has(key)) continue;
        asked.add(key);
        // A notice that cannot be claimed is not told; it never holds a run back.
        const claimed = await store.claimBudgetNotice(window, state.start, percent).catch(() => false);
        if (claimed) notices.push({ window, percent, spent_usd: state.spent_usd, limit_usd: state.limit_usd, resets_at: state.resets_at });
      }
      return { resetsAt: report.reached?.resets_at ?? null, headroomUsd: left.length === 0 ? null : Math.min(...left), notices };
    },
  };
}

/** What reading the gate at a boundary needs from the shell. */
export interface GateReader {
  now: () => number;
  /** Sleeps; false when cut short (a control request: the step then sees it first). */
  sleep: (ms: number) => Promise<boolean>;
  warn: (message: string) => void;
  /** Announces a threshold reached (a `budget_threshold` event). */
  notice: (notice: BudgetNotice) => void;
}

/**
 * The budget's verdict at a boundary: its reset time when reached, else null. While the store cannot be read the
 * run neither starts an iteration unchecked nor ends: it looks again every poll interval (warned once); a control
 * request cuts that short, and the run is held back for one more poll interval (the control comes first).
 */
export async function budgetWaitAt(gate: BudgetGate, guard: SpendGuard, shell: GateReader): Promise<number | null> {
  let warned = false;
  for (;;) {
    try {
      const reported = guard.reportedNow();
      const look = await gate.look(shell.now());
      guard.setShared(look.headroomUsd, reported);
      for (const notice of look.notices) shell.notice(notice);
      return look.resetsAt;
    } catch (error) {
      if (!warned) shell.warn(`the shared budget cannot be read (${(error as Error).message}): looking again`);
      warned = true;
      if (!(await shell.sleep(gate.pollMs))) return shell.now() + gate.pollMs;
    }
  }
}

/** Reads the shared budget every poll interval while agents work and hands it to the run's SpendGuard. */
export class BudgetWatch {
  private timer: NodeJS.Timeout | null = null;
  private reading = false;

  constructor(
    private readonly gate: BudgetGate,
    private readonly guard: SpendGuard,
    private readonly now: () => number,
    /** How many iterations run now (nothing is read while none does). */
    private readonly running: () => number,
    private readonly notice: (notice: BudgetNotice) => void,
  ) {}

  /** Starts watching (idempotent). */
  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.tick(), Math.max(1, this.gate.pollMs));
    this.timer.unref();
  }

  /** Stops watching. */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private async tick(): Promise<void> {
    if (this.reading || this.running() === 0) return;
    this.reading = true;
    try {
      const reported = this.guard.reportedNow();
      const look = await this.gate.look(this.now());
      this.guard.setShared(look.headroomUsd, reported);
      for (const notice of look.notices) this.notice(notice);
    } catch {
      // The store cannot be read: the last figure stands; the boundary warns and holds the run back.
    } finally {
      this.reading = false;
    }
  }
}
