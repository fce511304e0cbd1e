// The shared budget's windows and verdict, pure: the UTC day and UTC month a time falls in, when each resets,
// what a window's spend projects to at the current pace, and which limit (if any) is reached. The store gives
// the figures (store/budget.ts); the runner waits on the verdict (runner/budget-gate.ts).

const DAY_MS = 86_400_000;
const MIN_ELAPSED_MS = 60_000;

/** The two windows of the shared budget. */
export type BudgetWindowName = 'daily' | 'monthly';

/** Start and end (the reset) of the UTC day and UTC month that `now` falls in. */
export function budgetWindows(now: number): Record<BudgetWindowName, { start: number; resets_at: number }> {
  const d = new Date(now);
  const dayStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return {
    daily: { start: dayStart, resets_at: dayStart + DAY_MS },
    monthly: { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), resets_at: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) },
  };
}

/** One window's figures against its limit. */
export interface BudgetWindowState {
  limit_usd: number | null;
  spent_usd: number;
  start: number;
  resets_at: number;
  /** The spend at the end of the window if the pace so far goes on (at least one minute of it is assumed). */
  projected_usd: number;
  /** The limit is set and the spend has reached it. */
  reached: boolean;
}

/** A window's state from its limit and spend at `now`. */
export function windowState(window: { start: number; resets_at: number }, limitUsd: number | null, spentUsd: number, now: number): BudgetWindowState {
  const elapsed = Math.max(MIN_ELAPSED_MS, now - window.start);
  const projected = (spentUsd * (window.resets_at - window.start)) / elapsed;
  return {
    limit_usd: limitUsd,
    spent_usd: round(spentUsd),
    start: window.start,
    resets_at: window.resets_at,
    projected_usd: round(Math.max(spentUsd, projected)),
    reached: limitUsd !== null && spentUsd >= limitUsd,
  };
}

/** The limit that holds runs back, if any: the one that resets last when both are reached. */
export function reachedWindow(windows: Record<BudgetWindowName, BudgetWindowState>): { window: BudgetWindowName; resets_at: number } | null {
  if (windows.monthly.reached) return { window: 'monthly', resets_at: windows.monthly.resets_at };
  if (windows.daily.reached) return { window: 'daily', resets_at: windows.daily.resets_at };
  return null;
}

/** The thresholds that notify (percent of a window's limit), highest last. */
export const BUDGET_NOTICE_LEVELS = [80, 100] as const;

/** The highest threshold a window's spend has reached: 0 for none, or when it has no limit. */
export function noticeLevel(window: BudgetWindowState): number {
  if (window.limit_usd === null) return 0;
  const limit = window.limit_usd;
  return BUDGET_NOTICE_LEVELS.filter((level) => window.spent_usd >= (limit * level) / 100).at(-1) ?? 0;
}

/** "80% of the daily budget: $4.0000 of $5.00 spent (resets 2026-01-03T00:00:00.000Z)", for terminals and notifications. */
export function budgetNoticeText(n: { window: BudgetWindowName; percent: number; spent_usd: number; limit_usd: number; resets_at: number }): string {
  return `${n.percent}% of the ${n.window} budget: $${n.spent_usd.toFixed(4)} of $${limitText(n.limit_usd)} spent (resets ${new Date(n.resets_at).toISOString()})`;
}

/** A dollar limit as given: cents at least, up to 4 decimals ("5.00", "12.50", "0.005"), never rounded to a cent. */
export function limitText(usd: number): string {
  return usd.toFixed(4).replace(/0{1,2}$/, '');
}

/** Dollars rounded to 1e-10 (sums of floats). */
export function round(usd: number): number {
  return Math.round(usd * 1e10) / 1e10;
}
