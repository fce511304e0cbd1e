// The shared budget in the PostgreSQL store: its one row, a change made in one statement, the spend of a window.
import { budgetRowSchema, claimNoticeSql, NO_BUDGET, spendRowSchema, spendSql, type BudgetChange, type BudgetRow, type BudgetWindowKey, type SpendRow } from '../budget-rows.js';
import { query as q, type Queryable } from './pool.js';

const SELECT = 'SELECT daily_usd, monthly_usd, updated_at::float8 AS updated_at FROM budget WHERE id = 1';
const SPEND = spendSql('$1');

/** The stored budget (no limits when none was ever set). */
export async function readBudget(db: Queryable): Promise<BudgetRow> {
  const { rows } = await q(db, SELECT);
  return rows[0] === undefined ? NO_BUDGET : budgetRowSchema.parse(rows[0]);
}

/** Applies a change (absent fields keep their value) in one statement; returns the budget as now stored. */
export async function writeBudget(db: Queryable, change: BudgetChange, now: number): Promise<BudgetRow> {
  const { rows } = await q(
    db,
    `INSERT INTO budget (id, daily_usd, monthly_usd, updated_at) VALUES (1, $1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET
       daily_usd = CASE WHEN $4 THEN $1 ELSE budget.daily_usd END,
       monthly_usd = CASE WHEN $5 THEN $2 ELSE budget.monthly_usd END,
       daily_notice = CASE WHEN $4 THEN NULL ELSE budget.daily_notice END,
       monthly_notice = CASE WHEN $5 THEN NULL ELSE budget.monthly_notice END,
       updated_at = $3
     RETURNING daily_usd, monthly_usd, updated_at::float8 AS updated_at`,
    [change.daily_usd ?? null, change.monthly_usd ?? null, now, change.daily_usd !== undefined, change.monthly_usd !== undefined],
  );
  return budgetRowSchema.parse(rows[0]);
}

/** Claims the notice of `level` percent of `window` (starting at `start`): true for the one caller that gets it. */
export async function claimNotice(db: Queryable, window: BudgetWindowKey, start: number, level: number): Promise<boolean> {
  const result = await q(db, claimNoticeSql(window, '$1', '$2'), [start, level]);
  return result.rowCount === 1;
}

/** What iterations started at or after `sinceMs` cost, by run and agent. */
export async function readSpend(db: Queryable, sinceMs: number): Promise<SpendRow[]> {
  const { rows } = await q(db, SPEND, [sinceMs]);
  return rows.map((row) => spendRowSchema.parse(row));
}
