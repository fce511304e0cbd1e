// The aggregate queries behind `ringmaster serve`'s /metrics (SQLite and PostgreSQL speak this SQL alike): a handful
// of GROUP BY queries over every run and iteration of the store, whatever their number, never a query per run.
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

/** The three queries of StoreMetrics (no parameters). */
export function metricsSql(): { runs: string; iterations: string; durations: string } {
  const buckets = DURATION_BUCKETS_S.map((s, i) => `COUNT(*) FILTER (WHERE duration_ms <= ${s * 1000}) AS le_${i}`).join(', ');
  return {
    runs: 'SELECT status, COUNT(*) AS count FROM runs GROUP BY status',
    iterations: `SELECT agent, status AS outcome, COUNT(*) AS count, COALESCE(SUM(cost_usd), 0) AS cost_usd,
              COALESCE(SUM(tokens_in), 0) AS tokens_in, COALESCE(SUM(tokens_out), 0) AS tokens_out,
              COALESCE(SUM(cache_read), 0) AS cache_read, COALESCE(SUM(cache_write), 0) AS cache_write
       FROM iterations GROUP BY agent, status`,
    // Finished iterations only: a running one has no duration yet.
    durations: `SELECT agent, COUNT(*) AS count, COALESCE(SUM(duration_ms), 0) AS sum_ms, ${buckets}
       FROM iterations WHERE duration_ms IS NOT NULL AND status <> 'running' GROUP BY agent`,
  };
}

const runRow = z.object({ status: z.enum(RUN_STATUSES), count: z.number() });
const iterationRow = z.object({
  agent: z.string(),
  outcome: z.enum(ITERATION_STATUSES),
  count: z.number(),
  cost_usd: z.number(),
  tokens_in: z.number(),
  tokens_out: z.number(),
  cache_read: z.number(),
  cache_write: z.number(),
});
const durationRow = z.looseObject({ agent: z.string(), count: z.number(), sum_ms: z.number() });

/** StoreMetrics from the rows of metricsSql's queries. */
export function metricsFromRows(runs: readonly unknown[], iterations: readonly unknown[], durations: readonly unknown[]): StoreMetrics {
  return {
    runs_by_status: runs.map((row) => runRow.parse(row)),
    iterations: iterations.map((row) => iterationRow.parse(row)).map((row) => ({ ...row, cost_usd: roundUsd(row.cost_usd) })),
    durations: durations.map((raw) => {
      const row = durationRow.parse(raw);
      const buckets = DURATION_BUCKETS_S.map((_, i) => z.number().parse(row[`le_${i}`]));
      return { agent: row.agent, buckets, count: row.count, sum_seconds: row.sum_ms / 1000 };
    }),
  };
}
