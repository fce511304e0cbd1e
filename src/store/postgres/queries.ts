// Read-only aggregate queries of the PostgreSQL store (the SQL is shared with SQLite: aggregates.ts).
import { statsFromRows, statsSql, totalsFromRows, totalsSql } from '../aggregates.js';
import type { Queryable } from './pool.js';
import type { RunTotals, StoreStats } from '../rows.js';
import { metricsFromRows, metricsSql, type StoreMetrics } from '../metrics-sql.js';

const TOTALS = totalsSql('run_id = ANY($1::text[])');
// $1 / $2: the run and workspace filters (NULL = every run / every workspace).
const STATS = statsSql('($1::text IS NULL OR r.id = $1) AND ($2::text IS NULL OR r.workspace = $2)');

/** Totals of each run in `runIds`, from their iteration and owner rows (two queries for any number of runs). */
export async function queryTotalsMany(db: Queryable, runIds: readonly string[]): Promise<Map<string, RunTotals>> {
  if (runIds.length === 0) return new Map();
  const [sums, runtimes] = [await db.query(TOTALS.sums, [runIds]), await db.query(TOTALS.runtimes, [runIds])];
  return totalsFromRows(runIds, sums.rows, runtimes.rows);
}

/** Totals of one run. */
export async function queryTotals(db: Queryable, runId: string): Promise<RunTotals> {
  return (await queryTotalsMany(db, [runId])).get(runId) as RunTotals;
}

/** The metrics of `stats`: cost per run, average iterations to completion, cost by UTC hour. */
export async function queryStats(db: Queryable, runId: string | null, workspace: string | null = null): Promise<StoreStats> {
  const params = [runId, workspace];
  const perRun = await db.query(STATS.perRun, params);
  const completion = await db.query(STATS.completion, params);
  const byHour = await db.query(STATS.byHour, params);
  return statsFromRows(perRun.rows, completion.rows[0], byHour.rows);
}

const METRICS = metricsSql();

/** The figures of /metrics: runs by status, iterations by agent and outcome, durations by agent (two queries). */
export async function queryMetrics(db: Queryable): Promise<StoreMetrics> {
  const runs = await db.query(METRICS.runs);
  const iterations = await db.query(METRICS.iterations);
  return metricsFromRows(runs.rows, iterations.rows);
}
