// Read-only aggregate queries of the SQLite store (the SQL is shared with PostgreSQL: aggregates.ts).
import type { DatabaseSync } from 'node:sqlite';
import { statsFromRows, statsSql, totalsFromRows, totalsSql } from '../aggregates.js';
import type { RunTotals, StoreStats } from '../rows.js';
import { metricsFromRows, metricsSql, type StoreMetrics } from '../metrics-sql.js';

const TOTALS = totalsSql('run_id IN (SELECT value FROM json_each(:ids))');
const STATS = statsSql('(:runId IS NULL OR r.id = :runId) AND (:workspace IS NULL OR r.workspace = :workspace)');

/** Totals of each run in `runIds`, from their iteration and owner rows (two queries for any number of runs). */
export function queryTotalsMany(db: DatabaseSync, runIds: readonly string[]): Map<string, RunTotals> {
  if (runIds.length === 0) return new Map();
  const ids = JSON.stringify(runIds);
  return totalsFromRows(runIds, db.prepare(TOTALS.sums).all({ ids }), db.prepare(TOTALS.runtimes).all({ ids }));
}

/** Totals of one run. */
export function queryTotals(db: DatabaseSync, runId: string): RunTotals {
  return queryTotalsMany(db, [runId]).get(runId) as RunTotals;
}

/** The metrics of `stats`: cost per run, average iterations to completion, cost by UTC hour. */
export function queryStats(db: DatabaseSync, runId: string | null, workspace: string | null = null): StoreStats {
  const params = { runId, workspace };
  return statsFromRows(db.prepare(STATS.perRun).all(params), db.prepare(STATS.completion).get(params), db.prepare(STATS.byHour).all(params));
}

const METRICS = metricsSql();

/** The figures of /metrics: runs by status, iterations by agent and outcome, durations by agent (two queries). */
export function queryMetrics(db: DatabaseSync): StoreMetrics {
  return metricsFromRows(db.prepare(METRICS.runs).all(), db.prepare(METRICS.iterations).all());
}
