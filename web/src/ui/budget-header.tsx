// The header's spend of the UTC day against the shared budget (GET /api/budget): "today $X of $Y" with the
// projection at the current pace, a note when the budget holds runs back or some runs report no cost, and a
// small control that sets the daily limit (PUT /api/budget).
import { useQueryClient } from '@tanstack/react-query';
import { setDailyBudget } from '../api/client.js';
import { usd } from '../lib/format.js';
import { useBudget } from './live.js';

/** Asks for a new daily limit ('' or 'none' clears it) and stores it. */
async function editDaily(current: number | null): Promise<boolean> {
  const answer = window.prompt('Daily budget in USD for every run (empty: no limit)', current === null ? '' : String(current));
  if (answer === null) return false;
  const text = answer.trim().replace(/^\$/, '');
  const value = text === '' || text === 'none' ? null : Number(text);
  if (value !== null && (!Number.isFinite(value) || value < 0)) {
    window.alert(`not an amount in USD: ${answer}`);
    return false;
  }
  await setDailyBudget(value);
  return true;
}

/** Today's spend (UTC day), against the daily budget when one is set. */
export function TodaySpend({ fallbackUsd }: { fallbackUsd: number }) {
  const budget = useBudget();
  const client = useQueryClient();
  const daily = budget.data?.daily;
  const onEdit = (): void => {
    void editDaily(daily?.limit_usd ?? null).then((changed) => (changed ? client.invalidateQueries({ queryKey: ['budget'] }) : undefined));
  };
  if (!daily) {
    return (
      <span title="spent today (UTC) by every run">
        today <strong>{usd(fallbackUsd)}</strong>
      </span>
    );
  }
  const reached = budget.data?.reached ?? null;
  const unpriced = budget.data?.unpriced.length ?? 0;
  return (
    <span data-testid="budget" className={reached ? 'budget reached' : 'budget'} title={`spent today (UTC) by every run; projected ${usd(daily.projected_usd)} by midnight UTC at this pace`}>
      today <strong>{usd(daily.spent_usd)}</strong>
      {daily.limit_usd !== null && <> of {usd(daily.limit_usd)}</>} <span className="projection">(→ {usd(daily.projected_usd)})</span>
      {reached && <strong title="runs wait (reason budget) until the window resets or the budget is raised"> budget reached: runs wait until {new Date(reached.resets_at).toISOString().slice(11, 16)} UTC</strong>}
      {unpriced > 0 && <span title="their agent reports no cost: the budget cannot count them"> · {unpriced} unpriced</span>}
      <button type="button" className="link" onClick={onEdit} title="set the daily budget">
        edit
      </button>
    </span>
  );
}
