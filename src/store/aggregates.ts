// The aggregate queries both stores share (SQLite and PostgreSQL speak this SQL alike): run totals computed
// from iteration and owner rows, and the metrics of `stats`. Each store supplies only its way of naming parameters
// (the run-id and filter conditions) and runs the text with its own driver.
import { z } from 'zod';
import { costUnknownSql, RUN_STATUSES, runTotalsSchema } from './rows.js';
import type { RunTotals, StoreStats } from './rows.js';

/**
 * The totals of the runs whose id matches `runIdCondition` (a condition on `run_id`): sums of their iteration rows,
 * and runtime from their owner rows. Consecutive failures are the `failure` rows after the last success or
 * complete row, ignoring running, interrupted and waiting rows.
 */
export function totalsSql(runIdCondition: string): { sums: string; runtimes: string } {
  return {
    sums: `WITH it AS (
       SELECT i.*, MAX(CASE WHEN status NOT IN ('running', 'interrupted', 'waiting', 'failure') THEN number END)
                     OVER (PARTITION BY run_id) AS last_ok
       FROM iterations i WHERE ${runIdCondition})
     SELECT run_id, COUNT(*) AS iterations, COALESCE(MAX(number), 0) AS last_iteration,
            COALESCE(SUM(cost_usd), 0) AS cost_usd,
            COUNT(*) FILTER (WHERE ${costUnknownSql('')}) AS cost_unknown,
            COALESCE(SUM(tokens_in), 0) AS tokens_in, COALESCE(SUM(tokens_out), 0) AS tokens_out,
            COALESCE(SUM(cache_read), 0) AS cache_read, COALESCE(SUM(cache_write), 0) AS cache_write,
            COALESCE(SUM(duration_ms), 0) AS duration_ms,
            COUNT(*) FILTER (WHERE status = 'failure' AND number > COALESCE(last_ok, 0)) AS consecutive_failures
     FROM it GROUP BY run_id`,
    runtimes: `SELECT run_id, COALESCE(SUM(COALESCE(ended_at, heartbeat_at) - started_at), 0) AS ms
     FROM run_owners WHERE ${runIdCondition} GROUP BY run_id`,
  };
}

const sums = z.lazy(() =>
  z.object({
    run_id: z.string(),
    iterations: z.number(),
    last_iteration: z.number(),
    cost_usd: z.number(),
    cost_unknown: z.number(),
    tokens_in: z.number(),
    tokens_out: z.number(),
    cache_read: z.number(),
    cache_write: z.number(),
    duration_ms: z.number(),
    consecutive_failures: z.number(),
  }),
);
const runtime = z.object({ run_id: z.string(), ms: z.number() });

const EMPTY: Omit<z.infer<typeof sums>, 'run_id'> = {
  iterations: 0, last_iteration: 0, cost_usd: 0, cost_unknown: 0, tokens_in: 0, tokens_out: 0,
  cache_read: 0, cache_write: 0, duration_ms: 0, consecutive_failures: 0,
};

/** The totals of each of `runIds` from the rows of totalsSql's two queries (a run with no rows has zero totals). */
export function totalsFromRows(runIds: readonly string[], sumRows: readonly unknown[], runtimeRows: readonly unknown[]): Map<string, RunTotals> {
  const bySum = new Map(sumRows.map((row) => sums.parse(row)).map((row) => [row.run_id, row] as const));
  const byRuntime = new Map(runtimeRows.map((row) => runtime.parse(row)).map((row) => [row.run_id, row.ms] as const));
  const totals = new Map<string, RunTotals>();
  for (const id of runIds) {
    const { run_id: _runId, ...row } = bySum.get(id) ?? { run_id: id, ...EMPTY };
    totals.set(
      id,
      runTotalsSchema.parse({
        ...row,
        cost_usd: roundUsd(row.cost_usd),
        cost_unknown: row.cost_unknown > 0,
        runtime_ms: Math.max(0, byRuntime.get(id) ?? 0),
      }),
    );
  }
  return totals;
}

/** The metrics queries over the runs that `runFilter` (a condition on runs `r`) keeps. */
export function statsSql(runFilter: string): { perRun: string; completion: string; byHour: string } {
  const inRuns = `run_id IN (SELECT r.id FROM runs r WHERE ${runFilter})`;
  return {
    perRun: `SELECT r.id AS run_id, r.status, COUNT(i.number) AS iterations, COALESCE(SUM(i.cost_usd), 0) AS cost_usd,
              COUNT(i.number) FILTER (WHERE ${costUnknownSql('i.')}) AS cost_unknown
       FROM runs r LEFT JOIN iterations i ON i.run_id = r.id WHERE ${runFilter}
       GROUP BY r.id, r.status, r.created_at ORDER BY r.created_at DESC, r.id DESC`,
    // The iteration at which each run first found its completion signal, averaged over runs.
    completion: `SELECT AVG(n) AS avg, COUNT(*) AS runs FROM (
         SELECT MIN(number) AS n FROM iterations WHERE ${inRuns} AND CAST(completion_signal_found AS INTEGER) = 1
         GROUP BY run_id) AS firsts`,
    byHour: `SELECT (started_at / 3600000) * 3600000 AS hour, COUNT(*) AS iterations, COALESCE(SUM(cost_usd), 0) AS cost_usd,
              COUNT(*) FILTER (WHERE ${costUnknownSql('')}) AS cost_unknown
       FROM iterations WHERE ${inRuns} GROUP BY (started_at / 3600000) * 3600000 ORDER BY hour`,
  };
}

const costPerRunRow = z.lazy(() => z.object({ run_id: z.string(), status: z.enum(RUN_STATUSES), iterations: z.number(), cost_usd: z.number(), cost_unknown: z.number() }));
const completionRow = z.lazy(() => z.object({ avg: z.number().nullable(), runs: z.number() }));
const hourRow = z.lazy(() => z.object({ hour: z.number(), iterations: z.number(), cost_usd: z.number(), cost_unknown: z.number() }));

/** StoreStats from the rows of statsSql's three queries. */
export function statsFromRows(perRunRows: readonly unknown[], completion: unknown, byHourRows: readonly unknown[]): StoreStats {
  const perRun = perRunRows.map((row) => costPerRunRow.parse(row)).map((row) => ({ ...row, cost_usd: roundUsd(row.cost_usd), cost_unknown: row.cost_unknown > 0 }));
  const firsts = completion === undefined ? { avg: null, runs: 0 } : completionRow.parse(completion);
  return {
    cost_per_run: perRun,
    avg_iterations_to_completion: firsts.avg,
    completed_runs: firsts.runs,
    cost_by_hour: byHourRows.map((row) => hourRow.parse(row)).map((h) => ({ hour: h.hour, iterations: h.iterations, cost_usd: roundUsd(h.cost_usd), cost_unknown: h.cost_unknown > 0 })),
    total_cost_usd: roundUsd(perRun.reduce((sum, r) => sum + r.cost_usd, 0)),
    total_iterations: perRun.reduce((sum, r) => sum + r.iterations, 0),
  };
}

/** Rounds a USD sum to 1e-9 so float noise of SUM() does not leak into output. */
export function roundUsd(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}
