// The aggregate queries behind `ringmaster serve`'s /metrics (SQLite and PostgreSQL speak this SQL alike): a handful
// of GROUP BY queries (two) over every run and iteration of the store, whatever their number, never a query per run.
import { z } from 'zod';
import { ITERATION_STATUSES, RUN_STATUSES } from './rows.js';
import type { IterationStatus } from './rows.js';
import type { RunStatus } from '../core/types.js';
import { roundUsd } from './aggregates.js';

/** Upper bounds (seconds) of the iteration duration histogram's buckets (+Inf is implied). */
export const DURATION_BUCKETS_S: readonly number[] = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200];

/** The iterations of one agent with one outcome (iteration status): how many, and what they used. */
export interface IterationFigures {
  agent: string;
  outcome: IterationStatus;
  count: number;
  cost_usd: number;
  tokens_in: number;
  tokens_out: number;
  cache_read: number;
  cache_write: number;
}

/** The duration histogram of one agent's finished iterations: cumulative counts per bucket of DURATION_BUCKETS_S. */
export interface DurationFigures {
  agent: string;
  buckets: number[];
  count: number;
  sum_seconds: number;
}

/** Everything /metrics reports from the store. */
export interface StoreMetrics {
  runs_by_status: Array<{ status: RunStatus; count: number }>;
  iterations: IterationFigures[];
  durations: DurationFigures[];
}

/**
 * The two queries of StoreMetrics (no parameters): runs by status, and one scan of the iterations grouped by agent and
 * status that also counts their durations into the buckets (a running iteration has no duration yet).
 */
export function metricsSql(): { runs: string; iterations: string } {
  const buckets = DURATION_BUCKETS_S.map((s, i) => `COUNT(*) FILTER (WHERE duration_ms <= ${s * 1000}) AS le_${i}`).join(', ');
  return {
    runs: 'SELECT status, COUNT(*) AS count FROM runs GROUP BY status',
    iterations: `SELECT agent, status AS outcome, COUNT(*) AS count, COALESCE(SUM(cost_usd), 0) AS cost_usd,
              COALESCE(SUM(tokens_in), 0) AS tokens_in, COALESCE(SUM(tokens_out), 0) AS tokens_out,
              COALESCE(SUM(cache_read), 0) AS cache_read, COALESCE(SUM(cache_write), 0) AS cache_write,
              COUNT(duration_ms) AS timed, COALESCE(SUM(duration_ms), 0) AS sum_ms, ${buckets}
       FROM iterations GROUP BY agent, status`,
  };
}

const runRow = z.lazy(() => z.object({ status: z.enum(RUN_STATUSES), count: z.number() }));
const iterationRow = z.lazy(() =>
  z.looseObject({
    agent: z.string(),
    outcome: z.enum(ITERATION_STATUSES),
    count: z.number(),
    cost_usd: z.number(),
    tokens_in: z.number(),
    tokens_out: z.number(),
    cache_read: z.number(),
    cache_write: z.number(),
    timed: z.number(),
    sum_ms: z.number(),
  }),
);

/** StoreMetrics from the rows of metricsSql's queries. */
export function metricsFromRows(runs: readonly unknown[], iterationRows: readonly unknown[]): StoreMetrics {
  const iterations: IterationFigures[] = [];
  const durations = new Map<string, DurationFigures>();
  const sumsMs = new Map<string, number>();
  for (const raw of iterationRows) {
    const { timed, sum_ms: sumMs, ...row } = iterationRow.parse(raw);
    iterations.push({ agent: row.agent, outcome: row.outcome, count: row.count, cost_usd: roundUsd(row.cost_usd), tokens_in: row.tokens_in, tokens_out: row.tokens_out, cache_read: row.cache_read, cache_write: row.cache_write });
    if (row.outcome === 'running' || timed === 0) continue;
    const d = durations.get(row.agent) ?? { agent: row.agent, buckets: DURATION_BUCKETS_S.map(() => 0), count: 0, sum_seconds: 0 };
    DURATION_BUCKETS_S.forEach((_, i) => {
      d.buckets[i] = (d.buckets[i] ?? 0) + z.number().parse(row[`le_${i}`]);
    });
    d.count += timed;
    sumsMs.set(row.agent, (sumsMs.get(row.agent) ?? 0) + sumMs);
    d.sum_seconds = (sumsMs.get(row.agent) ?? 0) / 1000;
    durations.set(row.agent, d);
  }
  return { runs_by_status: runs.map((row) => runRow.parse(row)), iterations, durations: [...durations.values()] };
}
