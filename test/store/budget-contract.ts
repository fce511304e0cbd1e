// The shared budget's part of the Store contract (run by store-contract.ts against every Store): the one budget
// row, the spend of a window, and the threshold notices that exactly one caller claims.
import { expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';

const DAY = Date.UTC(2025, 0, 2);

/** Registers the budget cases on the store `current()` gives (a fresh one per test). */
export function budgetContract(current: () => Store): void {
  it('keeps one budget: a change sets, clears or keeps each limit', async () => {
    const store = current();
    expect(await store.getBudget()).toEqual({ daily_usd: null, monthly_usd: null, updated_at: null });
    expect(await store.setBudget({ daily_usd: 5, monthly_usd: 50 }, 1)).toEqual({ daily_usd: 5, monthly_usd: 50, updated_at: 1 });
    expect(await store.setBudget({ monthly_usd: null }, 2)).toEqual({ daily_usd: 5, monthly_usd: null, updated_at: 2 });
    expect(await store.getBudget()).toEqual({ daily_usd: 5, monthly_usd: null, updated_at: 2 });
  });

  it('gives each threshold notice of a window to one caller only, again in the next window or after the limit changes', async () => {
    const store = current();
    expect(await store.claimBudgetNotice('daily', DAY, 80)).toBe(false);
    await store.setBudget({ daily_usd: 5, monthly_usd: 50 }, 1);
    const first = await Promise.all([1, 2, 3].map(() => store.claimBudgetNotice('daily', DAY, 80)));
    expect(first.filter(Boolean)).toHaveLength(1);
    expect(await store.claimBudgetNotice('daily', DAY, 80)).toBe(false);
    expect(await store.claimBudgetNotice('daily', DAY, 100)).toBe(true);
    expect(await store.claimBudgetNotice('daily', DAY, 80)).toBe(false);
    expect(await store.claimBudgetNotice('monthly', DAY, 80)).toBe(true);
    expect(await store.claimBudgetNotice('daily', DAY + 86_400_000, 80)).toBe(true);
    await store.setBudget({ daily_usd: 9 }, 2);
    expect(await store.claimBudgetNotice('daily', DAY + 86_400_000, 80)).toBe(true);
    expect(await store.claimBudgetNotice('monthly', DAY, 80)).toBe(false);
  });
}
