// The shared budget in the SQLite store: its one row, a change made in one statement, the spend of a window.
import { budgetRowSchema, claimNoticeSql, NO_BUDGET, spendRowSchema, spendSql, type BudgetChange, type BudgetRow, type BudgetWindowKey, type SpendRow } from '../budget-rows.js';
import type { SqliteDb } from './db.js';

const SELECT = 'SELECT daily_usd, monthly_usd, updated_at FROM budget WHERE id = 1';
const SPEND = spendSql(':since');

/** The stored budget (no limits when none was ever set). */
export function readBudget(s: SqliteDb): BudgetRow {
  const row = s.q(SELECT).get();
  return row === undefined ? NO_BUDGET : budgetRowSchema.parse(row);
}

/** Applies a change (absent fields keep their value) in one statement; returns the budget as now stored. */
export function writeBudget(s: SqliteDb, change: BudgetChange, now: number): BudgetRow {
  s.run(
    `INSERT INTO budget (id, daily_usd, monthly_usd, updated_at) VALUES (1, :daily, :monthly, :now)
     ON CONFLICT (id) DO UPDATE SET
       daily_usd = CASE WHEN :setDaily = 1 THEN :daily ELSE budget.daily_usd END,
       monthly_usd = CASE WHEN :setMonthly = 1 THEN :monthly ELSE budget.monthly_usd END,
       daily_notice = CASE WHEN :setDaily = 1 THEN NULL ELSE budget.daily_notice END,
       monthly_notice = CASE WHEN :setMonthly = 1 THEN NULL ELSE budget.monthly_notice END,
       updated_at = :now`,
    {
      daily: change.daily_usd ?? null,
      monthly: change.monthly_usd ?? null,
      setDaily: change.daily_usd === undefined ? 0 : 1,
      setMonthly: change.monthly_usd === undefined ? 0 : 1,
      now,
    },
  );
  return readBudget(s);
}

/** Claims the notice of `level` percent of `window` (starting at `start`): true for the one caller that gets it. */
export function claimNotice(s: SqliteDb, window: BudgetWindowKey, start: number, level: number): boolean {
  return s.run(claimNoticeSql(window, ':start', ':level'), { start, level }).changes === 1;
}

/** What iterations started at or after `sinceMs` cost, by run and agent. */
export function readSpend(s: SqliteDb, sinceMs: number): SpendRow[] {
  return s.q(SPEND).all({ since: sinceMs }).map((row) => spendRowSchema.parse(row));
}
