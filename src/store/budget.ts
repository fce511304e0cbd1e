// The shared budget's report, from any Store: each window (UTC day, UTC month) against its limit with the
// projection at the current pace, spend by agent and by run, the runs that report no cost (unpriced), and the
// limit that holds runs back. `ringmaster budget`, GET /api/budget and the runner's budget gate read it.
import { budgetWindows, reachedWindow, round, windowState, type BudgetWindowName, type BudgetWindowState } from '../core/budget.js';
import type { SpendRow } from './budget-rows.js';
import type { Store } from './store.js';

/** The shared budget at one moment. */
export interface BudgetReport {
  now: number;
  daily: BudgetWindowState;
  monthly: BudgetWindowState;
  /** This month's spend by agent (today's too), most first. */
  by_agent: Array<{ agent: string; today_usd: number; month_usd: number }>;
  /** This month's spend by run (today's too), most first. */
  by_run: Array<{ run_id: string; agent: string; iterations: number; today_usd: number; month_usd: number }>;
  /** Runs this month with iterations whose agent reported no cost: the budget cannot count them. */
  unpriced: Array<{ run_id: string; agent: string; iterations: number }>;
  /** The limit that is reached (runs wait until it resets or is raised), or null. */
  reached: { window: BudgetWindowName; resets_at: number } | null;
}

/** The budget with its windows' spend at `now` (two spend queries, none when no limit is set and `detail` is false). */
export async function readBudgetReport(store: Store, now: number, detail = true): Promise<BudgetReport> {
  const budget = await store.getBudget();
  const windows = budgetWindows(now);
  const limited = budget.daily_usd !== null || budget.monthly_usd !== null;
  const month = detail || limited ? await store.spendSince(windows.monthly.start) : [];
  const today = detail || budget.daily_usd !== null ? await store.spendSince(windows.daily.start) : [];
  const sum = (rows: SpendRow[]): number => rows.reduce((total, r) => total + r.cost_usd, 0);
  const daily = windowState(windows.daily, budget.daily_usd, sum(today), now);
  const monthly = windowState(windows.monthly, budget.monthly_usd, sum(month), now);
  const todayOf = new Map(today.map((r) => [`${r.run_id}\0${r.agent}`, r.cost_usd]));
  const agents = new Map<string, { agent: string; today_usd: number; month_usd: number }>();
  for (const r of month) {
    const entry = agents.get(r.agent) ?? { agent: r.agent, today_usd: 0, month_usd: 0 };
    entry.today_usd = round(entry.today_usd + (todayOf.get(`${r.run_id}\0${r.agent}`) ?? 0));
    entry.month_usd = round(entry.month_usd + r.cost_usd);
    agents.set(r.agent, entry);
  }
  const byRun = month.map((r) => ({ run_id: r.run_id, agent: r.agent, iterations: r.iterations, today_usd: round(todayOf.get(`${r.run_id}\0${r.agent}`) ?? 0), month_usd: round(r.cost_usd) }));
  return {
    now,
    daily,
    monthly,
    by_agent: [...agents.values()].sort((a, b) => b.month_usd - a.month_usd),
    by_run: byRun.sort((a, b) => b.month_usd - a.month_usd),
    unpriced: month.filter((r) => r.unpriced > 0).map((r) => ({ run_id: r.run_id, agent: r.agent, iterations: r.unpriced })),
    reached: reachedWindow({ daily, monthly }),
  };
}
