// The run's budget across its running iterations (spend-guard.ts): what they spent so far adds to what the
// finished ones cost; reaching the budget stops every running agent once, and none starts while it is spent.
import { describe, expect, it } from 'vitest';
import { SpendGuard } from '../../src/runner/spend-guard.js';

function guard(maxCostUsd: number | null, committed = 0): { guard: SpendGuard; cuts: Array<[number, number[]]>; committed: { usd: number } } {
  const state = { usd: committed };
  const cuts: Array<[number, number[]]> = [];
  return { guard: new SpendGuard(maxCostUsd, () => state.usd, (spent, its) => cuts.push([spent, its])), cuts, committed: state };
}

describe('SpendGuard', () => {
  it('without a budget watches nothing', () => {
    const { guard: g, cuts } = guard(null);
    expect(g.start(1)).toEqual({});
    expect(g.exhausted).toBe(false);
    expect(cuts).toEqual([]);
  });

  it('cuts every running iteration once their spend and the recorded cost reach the budget', () => {
    const { guard: g, cuts } = guard(1, 0.3);
    const a = g.start(1);
    const b = g.start(2);
    a.onSpend?.(0.3);
    b.onSpend?.(0.2);
    expect([a.budgetSignal?.aborted, b.budgetSignal?.aborted, g.exhausted]).toEqual([false, false, false]);
    // A report replaces the iteration's earlier one (it is what the iteration has cost so far).
    b.onSpend?.(0.4);
    expect([a.budgetSignal?.aborted, b.budgetSignal?.aborted, g.exhausted]).toEqual([true, true, true]);
    expect(cuts).toEqual([[1, [1, 2]]]);
    // Told once: later reports of the iterations already cut say nothing more.
    a.onSpend?.(0.5);
    expect(cuts).toHaveLength(1);
  });

  it('an iteration that ended leaves its cost to the recorded total; one started on a spent budget is cut at once', () => {
    const { guard: g, cuts, committed } = guard(1);
    const a = g.start(1);
    a.onSpend?.(0.6);
    committed.usd = 0.6;
    g.end(1);
    const b = g.start(2);
    b.onSpend?.(0.3);
    expect(b.budgetSignal?.aborted).toBe(false);
    b.onSpend?.(0.4);
    expect(cuts).toEqual([[1, [2]]]);
    committed.usd = 1;
    g.end(2);
    expect(g.start(3).budgetSignal?.aborted).toBe(true);
  });
});
