// `ringmaster budget`: the shared budget every run of the store is held to (README "Budget"): the spend of
// today and this month (UTC) against each limit, by agent and by run, the runs it cannot count (unpriced);
// `budget set --daily USD --monthly USD` changes it ('none' clears a limit).
import { EXIT, UsageError } from '../../core/errors.js';
import { money } from '../../config/value-schemas.js';
import { readBudgetReport, type BudgetReport } from '../../store/budget.js';
import type { BudgetWindowState } from '../../core/budget.js';
import type { BudgetChange } from '../../store/budget-rows.js';
import { openStore } from '../../store/open-store.js';
import { configuredDatabaseUrl } from '../../config/database.js';
import type { CliIO, Command } from '../command.js';
import { parseHistoryArgs } from './history-common.js';
import { table } from './history-format.js';

const OPTIONS = { json: { type: 'boolean' }, daily: { type: 'string' }, monthly: { type: 'string' } } as const;

/** A limit given on the command line: an amount in USD, or 'none' to clear it. */
function limitFlag(flag: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  const parsed = money().safeParse(value);
  if (!parsed.success) throw new UsageError(`--${flag}: expected an amount in USD like 20 or 7.50, or 'none' (got '${value}')`);
  return parsed.data;
}

const dollars = (usd: number): string => `$${usd.toFixed(2)}`;

function windowLine(name: string, w: BudgetWindowState): string {
  const limit = w.limit_usd === null ? 'no limit' : `of ${dollars(w.limit_usd)}`;
  const reached = w.reached ? `  REACHED: runs wait until ${new Date(w.resets_at).toISOString()}` : '';
  return `${name}: ${dollars(w.spent_usd)} ${limit} (projected ${dollars(w.projected_usd)} at this pace; resets ${new Date(w.resets_at).toISOString()})${reached}\n`;
}

/** The report as `ringmaster budget` prints it. */
export function formatBudget(r: BudgetReport): string {
  let out = windowLine('today', r.daily) + windowLine('this month', r.monthly);
  if (r.by_agent.length > 0) {
    out += '\nby agent:\n' + table(['AGENT', 'TODAY', 'MONTH'], r.by_agent.map((a) => [a.agent, dollars(a.today_usd), dollars(a.month_usd)]), ['left', 'right', 'right']);
  }
  if (r.by_run.length > 0) {
    const rows = r.by_run.map((x) => [x.run_id, x.agent, String(x.iterations), dollars(x.today_usd), dollars(x.month_usd)]);
    out += '\nby run:\n' + table(['RUN', 'AGENT', 'ITER', 'TODAY', 'MONTH'], rows, ['left', 'left', 'right', 'right', 'right']);
  }
  if (r.unpriced.length > 0) {
    out += '\nunpriced (their agent reports no cost: the budget cannot count them):\n';
    out += table(['RUN', 'AGENT', 'ITER'], r.unpriced.map((u) => [u.run_id, u.agent, String(u.iterations)]), ['left', 'left', 'right']);
  }
  return out;
}

async function budget(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseHistoryArgs('budget', args, OPTIONS);
  const [sub, ...extra] = positionals;
  if (extra.length > 0 || (sub !== undefined && sub !== 'set')) throw new UsageError(`unexpected argument '${extra[0] ?? sub}' (see 'ringmaster budget --help')`);
  const change: BudgetChange = {};
  const daily = limitFlag('daily', values.daily);
  const monthly = limitFlag('monthly', values.monthly);
  if (daily !== undefined) change.daily_usd = daily;
  if (monthly !== undefined) change.monthly_usd = monthly;
  if (sub === undefined && (daily !== undefined || monthly !== undefined)) throw new UsageError("--daily and --monthly go with 'ringmaster budget set'");
  if (sub === 'set' && daily === undefined && monthly === undefined) throw new UsageError("'budget set' needs --daily USD and/or --monthly USD ('none' clears one)");
  const store = await openStore({ env: io.env, databaseUrl: configuredDatabaseUrl(io.cwd, io.env) });
  try {
    if (sub === 'set') await store.setBudget(change, Date.now());
    const report = await readBudgetReport(store, Date.now());
    io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatBudget(report));
    return EXIT.success;
  } finally {
    await store.close();
  }
}

/** The `budget` command. */
export const budgetCommand: Command = {
  name: 'budget',
  usage: `Usage: ringmaster budget [--json]
       ringmaster budget set [--daily USD|none] [--monthly USD|none] [--json]

The shared budget every run of the store is held to (your SQLite store, or the team's PostgreSQL with every
worker): spend today and this month (UTC) against each limit, with the projection at the current pace, by
agent and by run, and the runs whose agent reports no cost (unpriced: the budget cannot count them). At a
limit, running agents finish their iteration and every run waits (status waiting, reason budget) until the
window resets or the limit is raised.

  set             change the limits: --daily USD, --monthly USD ('none' clears one); prints the new state
  --json          print the report as JSON: {"now", "daily", "monthly", "by_agent", "by_run", "unpriced", "reached"}`,
  run: budget,
};
