// The shared budget as the store keeps it (one row: daily and monthly limits in USD) and the spend rows it sums
// for a window (iterations started in it, by run and agent). Both stores return these shapes (zod-checked).
import { z } from 'zod';

const usd = z.number().finite().nonnegative();

/** The budget every run of the store is held to; null = no limit for that window. */
export const budgetRowSchema = z.lazy(() =>
  z.object({
    daily_usd: usd.nullable(),
    monthly_usd: usd.nullable(),
    updated_at: z.number().nullable(),
  }),
);
/** The stored budget. */
export type BudgetRow = z.infer<typeof budgetRowSchema>;

/** A change of the budget: a number sets a limit, null clears it, absent keeps it. */
export interface BudgetChange {
  daily_usd?: number | null;
  monthly_usd?: number | null;
}

/** What one run's iterations of one agent started in a window cost. */
export const spendRowSchema = z.lazy(() =>
  z.object({
    run_id: z.string(),
    agent: z.string(),
    iterations: z.coerce.number(),
    cost_usd: z.coerce.number(),
    /** Iterations that ended with no cost reported (an agent that tells none): the budget cannot count them. */
    unpriced: z.coerce.number(),
  }),
);
/** A spend row of a window. */
export type SpendRow = z.infer<typeof spendRowSchema>;

/** The shared budget's two windows. */
export type BudgetWindowKey = 'daily' | 'monthly';

/**
 * The claim of a threshold notice (`window`'s `level` percent in the window starting at `start`), for both stores
 * (`$start` and `$level` their parameters): it changes the row only when that level was not yet notified in that
 * window, so one process of all those using the store wins it. The columns come from a fixed pair, never from input.
 */
export function claimNoticeSql(window: BudgetWindowKey, start: string, level: string): string {
  const [notice, since] = window === 'daily' ? ['daily_notice', 'daily_notice_start'] : ['monthly_notice', 'monthly_notice_start'];
  return `UPDATE budget SET ${notice} = ${level}, ${since} = ${start}
    WHERE id = 1 AND (${since} IS NULL OR ${since} <> ${start} OR ${notice} IS NULL OR ${notice} < ${level})`;
}

/** The budget with no limits (no row yet). */
export const NO_BUDGET: BudgetRow = { daily_usd: null, monthly_usd: null, updated_at: null };

/**
 * The spend query of both stores, `since` being their parameter: iterations started at or after it, by run and
 * agent. A running iteration counts what it has reported so far (cost_so_far); waits and interruptions with no
 * figure are not "unpriced".
 */
export function spendSql(since: string): string {
  return `SELECT run_id, agent, COUNT(*) AS iterations, COALESCE(SUM(cost_usd), 0) AS cost_usd,
    SUM(CASE WHEN cost_usd IS NULL AND status IN ('success', 'failure', 'complete') THEN 1 ELSE 0 END) AS unpriced
    FROM iterations WHERE started_at >= ${since} GROUP BY run_id, agent ORDER BY run_id, agent`;
}
