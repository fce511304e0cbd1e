// What running iterations spend while their agents work. Each reports what it has cost so far
// (IterationCost.report); the run hears of it at most every few seconds (a `cost_so_far` event, written into the
// iteration's row: a crash keeps what was spent), and its budget (max_cost) is enforced on it: once the run's
// recorded cost plus what the running iterations have spent reaches the budget, every running agent is stopped
// (its iteration ends with `max_cost`). Between iterations decide() stops a run that has spent its budget; without
// this one long iteration, or several at once (tasks.parallelism), could spend far past it. The store's shared
// budget (README "Budget") is enforced the same way: what may still be spent in its window, as last read from the
// store (setShared), against what the running iterations spent since; reached, every running agent is stopped and
// its iteration ends with `budget` (the run then waits at its boundary, it does not end).

import { limitText } from '../core/budget.js';
import type { RunEventBodySink } from './events.js';

/** How often a running iteration's cost so far is reported (cost_so_far events, its row). */
const COST_REPORT_MS = 2000;

/** What an iteration about to start gets: its budget signal (with a budget) and where it reports its spend. */
export interface IterationBudget {
  budgetSignal?: AbortSignal;
  onSpend?: (usd: number) => void;
}

/** How the run hears of the spend of its running iterations. */
export interface SpendReport {
  /** At most one report per iteration this often (the latest figure is reported when the time comes). */
  everyMs: number;
  now: () => number;
  /** Iteration `n` has cost `usd` so far; `totalUsd` counts the recorded cost and every running iteration's spend. */
  report: (n: number, usd: number, totalUsd: number) => void;
}

interface Running {
  spent: number;
  /** What the store counted of it when the shared budget was last read (its reported spend then). */
  counted: number;
  cut: AbortController;
  reportedAt: number | null;
  reported: number;
  timer: NodeJS.Timeout | null;
}

/** The spend of one run's running iterations, against its budget. */
export class SpendGuard {
  private readonly running = new Map<number, Running>();
  /** What may still be spent of the shared budget as last read (null: no limit, or no shared budget). */
  private headroomUsd: number | null = null;
  /** Iterations stopped by the shared budget (not by max_cost). */
  private readonly sharedCut = new Set<number>();

  /**
   * `maxCostUsd`: the run's budget (null: none, nothing is cut); `committed`: what the run's finished iterations
   * cost (across resumes); `onCut`: told once per cut, with the spend that reached the budget.
   */
  constructor(
    private readonly maxCostUsd: number | null,
    private readonly committed: () => number,
    private readonly onCut: (spentUsd: number, iterations: number[]) => void,
    private readonly spendReport: SpendReport | null = null,
    /** Told once per cut by the shared budget, with what running iterations spent since the store was read. */
    private readonly onSharedCut: ((spentUsd: number, iterations: number[]) => void) | null = null,
  ) {}

  /** True when the run's recorded cost plus what its running iterations spent so far reaches the budget. */
  get exhausted(): boolean {
    return this.maxCostUsd !== null && this.total() >= this.maxCostUsd;
  }

  /** For iteration `n`, about to start. */
  start(n: number): IterationBudget {
    if (this.maxCostUsd === null && this.spendReport === null && this.onSharedCut === null) return {};
    const cut = new AbortController();
    if (this.exhausted) cut.abort();
    this.running.set(n, { spent: 0, counted: 0, cut, reportedAt: null, reported: 0, timer: null });
    const cuts = this.maxCostUsd !== null || this.onSharedCut !== null;
    return { ...(cuts ? { budgetSignal: cut.signal } : {}), onSpend: (usd) => this.spent(n, usd) };
  }

  /** What each running iteration had reported (so the store counts it) before the shared budget is read. */
  reportedNow(): Map<number, number> {
    return new Map([...this.running].map(([n, r]) => [n, r.reported]));
  }

  /**
   * The shared budget as just read: `headroomUsd` may still be spent in its window (null: no limit), the store
   * counting `reported` of each running iteration (reportedNow() taken before the read). Reached already, the
   * running agents are stopped.
   */
  setShared(headroomUsd: number | null, reported: Map<number, number>): void {
    this.headroomUsd = headroomUsd;
    for (const [n, r] of this.running) r.counted = reported.get(n) ?? 0;
    this.checkShared();
  }

  /** True once for an iteration the shared budget stopped (its max_cost exit is the budget's). */
  takeSharedCut(n: number): boolean {
    return this.sharedCut.delete(n);
  }

  /** Iteration `n` ended (its cost is in `committed` from now on): nothing more is reported for it. */
  end(n: number): void {
    const entry = this.running.get(n);
    if (entry?.timer) clearTimeout(entry.timer);
    this.running.delete(n);
  }

  private spent(n: number, usd: number): void {
    const entry = this.running.get(n);
    if (entry === undefined) return;
    entry.spent = usd;
    this.scheduleReport(n, entry);
    this.checkShared();
    if (this.maxCostUsd === null) return;
    const total = this.total();
    if (total < this.maxCostUsd) return;
    const cut = this.cutAll();
    if (cut.length > 0) this.onCut(total, cut);
  }

  private checkShared(): void {
    if (this.headroomUsd === null || this.onSharedCut === null) return;
    let since = 0;
    for (const r of this.running.values()) since += Math.max(0, r.spent - r.counted);
    if (since < this.headroomUsd) return;
    const cut = this.cutAll();
    for (const n of cut) this.sharedCut.add(n);
    if (cut.length > 0) this.onSharedCut(since, cut);
  }

  /** Stops every running agent not stopped yet; their numbers. */
  private cutAll(): number[] {
    const cut = [...this.running].filter(([, r]) => !r.cut.signal.aborted);
    for (const [, r] of cut) r.cut.abort();
    return cut.map(([i]) => i);
  }

  /** Reports at once when the last report is old enough, else once it is (with the figure of that time). */
  private scheduleReport(n: number, entry: Running): void {
    const spend = this.spendReport;
    if (spend === null || entry.timer !== null) return;
    const wait = entry.reportedAt === null ? 0 : entry.reportedAt + spend.everyMs - spend.now();
    const send = (): void => {
      entry.timer = null;
      if (this.running.get(n) !== entry || entry.spent === entry.reported) return;
      entry.reportedAt = spend.now();
      entry.reported = entry.spent;
      spend.report(n, entry.spent, this.total());
    };
    if (wait <= 0) send();
    else {
      entry.timer = setTimeout(send, wait);
      entry.timer.unref();
    }
  }

  private total(): number {
    let total = this.committed();
    for (const r of this.running.values()) total += r.spent;
    return total;
  }
}

/**
 * The guard of a run: cuts announced as a warning, spend as `cost_so_far` events (every COST_REPORT_MS at most),
 * both through `emit`.
 */
export function runSpendGuard(maxCostUsd: number | null, committed: () => number, emit: RunEventBodySink, now: () => number, shared = false): SpendGuard {
  const round = (usd: number): number => Math.round(usd * 1e10) / 1e10;
  const which = (cut: number[]): string => (cut.length === 1 ? `iteration ${cut[0]}` : `iterations ${cut.join(', ')}`);
  return new SpendGuard(
    maxCostUsd,
    committed,
    (spent, cut) => emit({ type: 'warning', time: now(), message: `max cost $${limitText(maxCostUsd ?? 0)} reached while ${which(cut)} ran ($${spent.toFixed(4)} spent): stopping the agent` }),
    { everyMs: COST_REPORT_MS, now, report: (n, usd, total) => emit({ type: 'cost_so_far', time: now(), iteration: n, cost_usd: round(usd), total_cost_usd: round(total) }) },
    shared ? (spent, cut) => emit({ type: 'warning', time: now(), message: `the shared budget was reached while ${which(cut)} ran ($${spent.toFixed(4)} spent since it was read): stopping the agent` }) : null,
  );
}
