// Read-only aggregate queries of the SQLite store: run totals and the seed's metrics queries.
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { z } from 'zod';
import { RUN_STATUSES, runTotalsSchema } from './rows.js';
import type { RunTotals, StoreStats } from './rows.js';

const sums = z.object({
  iterations: z.number(),
  last_iteration: z.number(),
  cost_usd: z.number(),
  cost_unknown: z.number(),
  tokens_in: z.number(),
  tokens_out: z.number(),
  cache_read: z.number(),
  cache_write: z.number(),
  duration_ms: z.number(),
});

/** Totals of one run, computed from its iteration rows and owner rows in one read. */
export function queryTotals(db: DatabaseSync, runId: string): RunTotals {
  const row = sums.parse(
    db
      .prepare(
        `SELECT COUNT(*) AS iterations, COALESCE(MAX(number), 0) AS last_iteration,
                COALESCE(SUM(cost_usd), 0) AS cost_usd,
                COALESCE(SUM(CASE WHEN cost_usd IS NULL AND status <> 'running' THEN 1 ELSE 0 END), 0) AS cost_unknown,
                COALESCE(SUM(tokens_in), 0) AS tokens_in, COALESCE(SUM(tokens_out), 0) AS tokens_out,
                COALESCE(SUM(cache_read), 0) AS cache_read, COALESCE(SUM(cache_write), 0) AS cache_write,
                COALESCE(SUM(duration_ms), 0) AS duration_ms
         FROM iterations WHERE run_id = :runId`,
      )
      .get({ runId }),
  );
  const runtime = db
    .prepare('SELECT COALESCE(SUM(COALESCE(ended_at, heartbeat_at) - started_at), 0) AS ms FROM run_owners WHERE run_id = :runId')
    .get({ runId }) as { ms: number };
  const statuses = db
    .prepare("SELECT status FROM iterations WHERE run_id = :runId AND status NOT IN ('running', 'interrupted', 'waiting') ORDER BY number DESC LIMIT 1000")
    .all({ runId }) as Array<{ status: string }>;
  let consecutiveFailures = 0;
  for (const { status } of statuses) {
    if (status !== 'failure') break;
    consecutiveFailures++;
  }
  return runTotalsSchema.parse({
    ...row,
    cost_usd: roundUsd(row.cost_usd),
    cost_unknown: row.cost_unknown > 0,
    runtime_ms: Math.max(0, runtime.ms),
    consecutive_failures: consecutiveFailures,
  });
}

const costPerRunRow = z.object({
  run_id: z.string(),
  status: z.enum(RUN_STATUSES),
  iterations: z.number(),
  cost_usd: z.number(),
  cost_unknown: z.number(),
});

/** The seed's metrics: cost per run, average iterations to completion, cost by UTC hour. */
export function queryStats(db: DatabaseSync, runId: string | null, workspace: string | null = null): StoreStats {
  const runConditions: string[] = [];
  const params: Record<string, SQLInputValue> = {};
  if (runId !== null) {
    runConditions.push('r.id = :runId');
    params.runId = runId;
  }
  if (workspace !== null) {
    runConditions.push('r.workspace = :workspace');
    params.workspace = workspace;
  }
  const filterRuns = runConditions.length ? `WHERE ${runConditions.join(' AND ')}` : '';
  const filterIterations = runConditions.length ? `AND run_id IN (SELECT r.id FROM runs r ${filterRuns})` : '';
  const perRun = db
    .prepare(
      `SELECT r.id AS run_id, r.status, COUNT(i.number) AS iterations, COALESCE(SUM(i.cost_usd), 0) AS cost_usd,
              COALESCE(SUM(CASE WHEN i.number IS NOT NULL AND i.cost_usd IS NULL AND i.status <> 'running' THEN 1 ELSE 0 END), 0) AS cost_unknown
       FROM runs r LEFT JOIN iterations i ON i.run_id = r.id ${filterRuns}
       GROUP BY r.id ORDER BY r.created_at DESC, r.id DESC`,
    )
    .all(params)
    .map((row) => costPerRunRow.parse(row))
    .map((row) => ({ ...row, cost_usd: roundUsd(row.cost_usd), cost_unknown: row.cost_unknown > 0 }));
  // The iteration at which each run first found its completion signal, averaged over runs.
  const completion = db
    .prepare(
      `SELECT AVG(n) AS avg, COUNT(*) AS runs FROM (
         SELECT MIN(number) AS n FROM iterations WHERE completion_signal_found = 1 ${filterIterations} GROUP BY run_id)`,
    )
    .get(params) as { avg: number | null; runs: number };
  const byHour = db
    .prepare(
      `SELECT (started_at / 3600000) * 3600000 AS hour, COUNT(*) AS iterations, COALESCE(SUM(cost_usd), 0) AS cost_usd
       FROM iterations WHERE 1 = 1 ${filterIterations} GROUP BY hour ORDER BY hour`,
    )
    .all(params) as Array<{ hour: number; iterations: number; cost_usd: number }>;
  return {
    cost_per_run: perRun,
    avg_iterations_to_completion: completion.avg,
    completed_runs: completion.runs,
    cost_by_hour: byHour.map((h) => ({ hour: h.hour, iterations: h.iterations, cost_usd: roundUsd(h.cost_usd) })),
    total_cost_usd: roundUsd(perRun.reduce((sum, r) => sum + r.cost_usd, 0)),
    total_iterations: perRun.reduce((sum, r) => sum + r.iterations, 0),
  };
}

/** Rounds a USD sum to 1e-9 so float noise of SUM() does not leak into output. */
function roundUsd(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}
