// The cost chart's numbers: per-iteration cost, cumulative spend against the budget, and the projected
// end of the run at its current pace (which limit ends it, when, at what cost).
import { describe, expect, it } from 'vitest';
import { chartColumns, projectCost, type CostPoint } from '../../web/src/lib/cost-projection.js';

const it_ = (number: number, cost_usd: number | null, duration_ms: number | null = 60_000, running = false): CostPoint => ({ number, cost_usd, duration_ms, running });
const noLimits = { max_cost_usd: null, max_iterations: null, max_runtime_ms: null, runtime_ms: 0 };

describe('projectCost', () => {
  it('builds the per-iteration and cumulative series, skipping the running iteration', () => {
    const chart = projectCost([it_(2, 0.5), it_(1, 0.25), it_(3, null, null, true)], noLimits);
    expect(chart.series).toEqual([
      { iteration: 1, cost: 0.25, cumulative: 0.25 },
      { iteration: 2, cost: 0.5, cumulative: 0.75 },
    ]);
    expect(chart.spent).toBe(0.75);
    expect(chart.budget).toBeNull();
  });

  it('an unknown cost counts as 0 in the sum but stays unknown in its bar', () => {
    const chart = projectCost([it_(1, 1), it_(2, null), it_(3, 2)], noLimits);
    expect(chart.series.map((p) => [p.cost, p.cumulative])).toEqual([[1, 1], [null, 1], [2, 3]]);
    expect(chart.projection?.costPerIteration).toBe(1.5);
  });

  it('leaves waits and interrupted iterations out of the pace (they cost ~$0 and say nothing about it)', () => {
    const waited = (number: number): CostPoint => ({ ...it_(number, 0, 3_600_000), waited: true });
    const chart = projectCost([it_(1, 1), waited(2), waited(3), it_(4, 3)], { ...noLimits, max_cost_usd: 10 });
    expect(chart.projection).toMatchObject({ costPerIteration: 2, msPerIteration: 60_000, reason: 'max_cost', remaining: 3, endIteration: 7 });
  });

  it('says the cost is unknown when no finished iteration reports one (nothing to chart)', () => {
    expect(projectCost([it_(1, null), it_(2, null), it_(3, null, null, true)], noLimits).costUnknown).toBe(true);
    expect(projectCost([it_(1, null), it_(2, 0.01)], noLimits).costUnknown).toBe(false);
    expect(projectCost([], noLimits).costUnknown).toBe(false);
  });

  it('no projection before a finished iteration with a known cost', () => {
    expect(projectCost([], noLimits).projection).toBeNull();
    expect(projectCost([it_(1, null), it_(2, 5, 1000, true)], { ...noLimits, max_cost_usd: 10 }).projection).toBeNull();
  });

  it('an unbounded run has a pace but no end', () => {
    const p = projectCost([it_(1, 2), it_(2, 4)], noLimits).projection;
    expect(p).toEqual({ costPerIteration: 3, msPerIteration: 60_000, reason: 'none', remaining: null, endIteration: null, endCost: null, remainingMs: null, line: [] });
  });

  it('the iteration limit ends the run when the budget would last longer', () => {
    const p = projectCost([it_(1, 1), it_(2, 1)], { max_cost_usd: 100, max_iterations: 10, max_runtime_ms: null, runtime_ms: 120_000 }).projection;
    expect(p).toMatchObject({ reason: 'max_iterations', remaining: 8, endIteration: 10, endCost: 10, remainingMs: 480_000 });
    expect(p?.line).toEqual([{ iteration: 2, cumulative: 2 }, { iteration: 10, cumulative: 10 }]);
  });

  it('the budget ends the run with the iteration that reaches it (and may overshoot)', () => {
    // $3 spent, $1.50 per iteration, $10 budget: 7 left -> 5 more iterations reach $10.50 >= $10.
    const p = projectCost([it_(1, 1.5), it_(2, 1.5)], { max_cost_usd: 10, max_iterations: 100, max_runtime_ms: null, runtime_ms: 0 }).projection;
    expect(p).toMatchObject({ reason: 'max_cost', remaining: 5, endIteration: 7, endCost: 10.5 });
  });

  it('the runtime limit ends the run when time runs out first', () => {
    // 10 minutes per iteration, 30 minutes used of 1 hour: 3 more iterations.
    const p = projectCost([it_(1, 0.1, 600_000), it_(2, 0.1, 600_000), it_(3, 0.1, 600_000)], { max_cost_usd: 50, max_iterations: 100, max_runtime_ms: 3_600_000, runtime_ms: 1_800_000 }).projection;
    expect(p).toMatchObject({ reason: 'max_runtime', remaining: 3, endIteration: 6, remainingMs: 1_800_000 });
    expect(p?.endCost).toBeCloseTo(0.6, 10);
  });

  it('the pace is the mean of the last 10 finished iterations', () => {
    const points = [...Array.from({ length: 10 }, (_, i) => it_(i + 1, 10)), ...Array.from({ length: 10 }, (_, i) => it_(i + 11, 1))];
    expect(projectCost(points, noLimits).projection?.costPerIteration).toBe(1);
    expect(projectCost(points, noLimits, 20).projection?.costPerIteration).toBe(5.5);
  });

  it('a budget already spent ends the run now', () => {
    const p = projectCost([it_(1, 6), it_(2, 6)], { max_cost_usd: 10, max_iterations: null, max_runtime_ms: null, runtime_ms: 0 }).projection;
    expect(p).toMatchObject({ reason: 'max_cost', remaining: 0, endIteration: 2, endCost: 12, line: [] });
  });

  it('free iterations never reach the budget: another limit or none ends the run', () => {
    const p = projectCost([it_(1, 0)], { max_cost_usd: 10, max_iterations: null, max_runtime_ms: null, runtime_ms: 0 }).projection;
    expect(p?.reason).toBe('none');
  });
});

describe('chartColumns', () => {
  it('aligns bars, cumulative, budget and projection on the iteration axis', () => {
    const chart = projectCost([it_(1, 1), it_(2, null), it_(3, 2)], { max_cost_usd: 10, max_iterations: 6, max_runtime_ms: null, runtime_ms: 0 });
    expect(chartColumns(chart)).toEqual({
      x: [1, 2, 3, 4, 5, 6],
      cost: [1, null, 2, null, null, null],
      cumulative: [1, 1, 3, null, null, null],
      budget: [10, 10, 10, 10, 10, 10],
      projected: [null, null, 3, 4.5, 6, 7.5],
    });
  });

  it('cuts a far-off projected end so the bars stay readable', () => {
    const chart = projectCost([it_(1, 0.001)], { max_cost_usd: 100, max_iterations: null, max_runtime_ms: null, runtime_ms: 0 });
    expect(chart.projection?.endIteration).toBe(100_000);
    const columns = chartColumns(chart);
    expect(columns.x.length).toBe(1 + 3 + 30);
    expect(columns.budget[0]).toBe(100);
  });

  it('an empty run has empty columns', () => {
    expect(chartColumns(projectCost([], noLimits))).toEqual({ x: [], cost: [], cumulative: [], budget: [], projected: [] });
  });
});
