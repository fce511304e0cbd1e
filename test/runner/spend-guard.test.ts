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

  it("the shared budget: cuts once the spend since the store was read reaches what may still be spent, not counting what the store already has", () => {
    const shared: Array<[number, number[]]> = [];
    const g = new SpendGuard(null, () => 0, () => undefined, null, (spent, its) => shared.push([spent, its]));
    const a = g.start(1);
    a.onSpend?.(0.5);
    // Read while iteration 1 had reported nothing yet: the store counts none of its $0.50.
    g.setShared(0.8, new Map([[1, 0]]));
    const b = g.start(2);
    b.onSpend?.(0.2);
    expect([a.budgetSignal?.aborted, b.budgetSignal?.aborted, shared]).toEqual([false, false, []]);
    // Read again once the store counts the $0.50 of iteration 1: $0.30 left.
    g.setShared(0.3, g.reportedNow().set(1, 0.5));
    b.onSpend?.(0.29);
    expect(shared).toEqual([]);
    a.onSpend?.(0.52);
    expect([a.budgetSignal?.aborted, b.budgetSignal?.aborted]).toEqual([true, true]);
    expect(shared.map(([spent, its]) => [Math.round(spent * 100) / 100, its])).toEqual([[0.31, [1, 2]]]);
    expect([g.takeSharedCut(1), g.takeSharedCut(1), g.takeSharedCut(2), g.exhausted]).toEqual([true, false, true, false]);
  });

  it('the shared budget cleared (no limit) cuts nothing', () => {
    const shared: number[][] = [];
    const g = new SpendGuard(null, () => 0, () => undefined, null, (_spent, its) => shared.push(its));
    const a = g.start(1);
    g.setShared(null, new Map());
    a.onSpend?.(100);
    expect([a.budgetSignal?.aborted, shared]).toEqual([false, []]);
  });
});
