// Cost of a run per iteration, cumulative against its budget, and where it will end at its current pace:
// which limit stops it first (iterations, cost, runtime), after how many more iterations, at what cost.
// The same checks as the runner: limits are tested after each iteration, so a cost-limited run ends with
// the iteration that reaches the budget (and may overshoot it).

/** The iteration fields the projection needs. */
export interface CostPoint {
  number: number;
  cost_usd: number | null;
  duration_ms: number | null;
  /** Still running: counted neither in the pace nor as spent. */
  running: boolean;
  /** Ended waiting (usage limit, rate limit, overload) or interrupted: it did no normal work, so it is left out of the pace. */
  waited?: boolean;
}

/** The run's limits and elapsed runtime. */
export interface Budget {
  max_cost_usd: number | null;
  max_iterations: number | null;
  max_runtime_ms: number | null;
  runtime_ms: number;
}

/** One bar of the chart: the iteration's own cost and the cumulative cost after it. */
export interface SeriesPoint {
  iteration: number;
  cost: number | null;
  cumulative: number;
}

/** The limit that ends the projected run, or `none` when no limit will (an unbounded run). */
export type EndReason = 'max_iterations' | 'max_cost' | 'max_runtime' | 'none';

/** Where the run is heading. */
export interface Projection {
  /** Mean cost and duration of the last `window` finished iterations with a known cost/duration. */
  costPerIteration: number;
  msPerIteration: number | null;
  reason: EndReason;
  /** Iterations still to run (null when unbounded). */
  remaining: number | null;
  endIteration: number | null;
  endCost: number | null;
  /** Time left at the current pace (null when unknown or unbounded). */
  remainingMs: number | null;
  /** The dashed line: from the last finished iteration to the projected end. */
  line: Array<{ iteration: number; cumulative: number }>;
}

/** Everything the cost chart draws. */
export interface CostChart {
  series: SeriesPoint[];
  spent: number;
  budget: number | null;
  /** Null until at least one finished iteration has a known cost. */
  projection: Projection | null;
  /** No finished iteration has a known cost (an agent that reports none): there is nothing to chart. */
  costUnknown: boolean;
}

/** Iterations the pace is averaged over (recent pace matters more than the first iterations'). */
export const PACE_WINDOW = 10;

function mean(values: number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Builds the chart's series and the projection. */
export function projectCost(points: readonly CostPoint[], budget: Budget, window = PACE_WINDOW): CostChart {
  const sorted = [...points].sort((a, b) => a.number - b.number);
  const series: SeriesPoint[] = [];
  let cumulative = 0;
  for (const p of sorted) {
    if (p.running) continue;
    cumulative += p.cost_usd ?? 0;
    series.push({ iteration: p.number, cost: p.cost_usd, cumulative });
  }
  const finished = sorted.filter((p) => !p.running);
  // The pace of iterations that worked: a wait or an interrupted iteration costs ~$0 and says nothing about it.
  const recent = finished.filter((p) => p.waited !== true).slice(-window);
  const costPace = mean(recent.flatMap((p) => (p.cost_usd === null ? [] : [p.cost_usd])));
  const msPace = mean(recent.flatMap((p) => (p.duration_ms === null ? [] : [p.duration_ms])));
  const costUnknown = finished.length > 0 && finished.every((p) => p.cost_usd === null);
  const chart: CostChart = { series, spent: cumulative, budget: budget.max_cost_usd, projection: null, costUnknown };
  if (costPace === null) return chart;

  const last = finished.at(-1)?.number ?? 0;
  const candidates: Array<{ reason: EndReason; remaining: number }> = [];
  if (budget.max_iterations !== null) candidates.push({ reason: 'max_iterations', remaining: Math.max(0, budget.max_iterations - last) });
  if (budget.max_cost_usd !== null) {
    const left = budget.max_cost_usd - cumulative;
    if (left <= 0) candidates.push({ reason: 'max_cost', remaining: 0 });
    else if (costPace > 0) candidates.push({ reason: 'max_cost', remaining: Math.ceil(left / costPace) });
  }
  if (budget.max_runtime_ms !== null && msPace !== null && msPace > 0) {
    const left = budget.max_runtime_ms - budget.runtime_ms;
    candidates.push({ reason: 'max_runtime', remaining: left <= 0 ? 0 : Math.ceil(left / msPace) });
  }
  const end = candidates.reduce<{ reason: EndReason; remaining: number } | null>((best, c) => (best === null || c.remaining < best.remaining ? c : best), null);
  if (end === null) {
    chart.projection = { costPerIteration: costPace, msPerIteration: msPace, reason: 'none', remaining: null, endIteration: null, endCost: null, remainingMs: null, line: [] };
    return chart;
  }
  const endCost = cumulative + end.remaining * costPace;
  chart.projection = {
    costPerIteration: costPace,
    msPerIteration: msPace,
    reason: end.reason,
    remaining: end.remaining,
    endIteration: last + end.remaining,
    endCost,
    remainingMs: msPace === null ? null : end.remaining * msPace,
    line: end.remaining === 0 ? [] : [{ iteration: last, cumulative }, { iteration: last + end.remaining, cumulative: endCost }],
  };
  return chart;
}

/** Columns of the chart, aligned on the iteration axis (null = no point), as uPlot takes them. */
export interface ChartColumns {
  x: number[];
  cost: Array<number | null>;
  cumulative: Array<number | null>;
  budget: Array<number | null>;
  projected: Array<number | null>;
}

/** The projection is drawn at most this many times the iterations run so far (plus this many) past the last one. */
export const PROJECTION_REACH = { factor: 3, extra: 30 };

/**
 * The chart's columns: one x per iteration up to the projected end (cut at PROJECTION_REACH so a far-off
 * end does not squash the bars), the projection as a straight line from the last finished iteration.
 */
export function chartColumns(chart: CostChart): ChartColumns {
  const last = chart.series.at(-1)?.iteration ?? 0;
  const p = chart.projection;
  const reach = last * PROJECTION_REACH.factor + PROJECTION_REACH.extra;
  const end = p?.endIteration ?? last;
  const xMax = Math.max(last, Math.min(end, last + reach));
  const byIteration = new Map(chart.series.map((s) => [s.iteration, s]));
  const columns: ChartColumns = { x: [], cost: [], cumulative: [], budget: [], projected: [] };
  let lastCumulative = 0;
  for (let x = 1; x <= xMax; x++) {
    const point = byIteration.get(x);
    if (point) lastCumulative = point.cumulative;
    columns.x.push(x);
    columns.cost.push(point?.cost ?? null);
    columns.cumulative.push(x <= last ? lastCumulative : null);
    columns.budget.push(chart.budget);
    const onLine = p !== null && p.remaining !== null && p.remaining > 0 && x >= last;
    columns.projected.push(onLine ? chart.spent + (x - last) * p.costPerIteration : null);
  }
  return columns;
}
