// Read-only aggregate queries of the PostgreSQL store: run totals (for many runs in two queries) and the
// seed's metrics queries. Same results as sqlite-queries.ts, computed from the rows.
import { z } from 'zod';
import type { Queryable } from './postgres-pool.js';
import { RUN_STATUSES, runTotalsSchema } from './rows.js';
import type { RunTotals, StoreStats } from './rows.js';

const sums = z.object({
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
});

const EMPTY: Omit<z.infer<typeof sums>, 'run_id'> = {
  iterations: 0, last_iteration: 0, cost_usd: 0, cost_unknown: 0, tokens_in: 0, tokens_out: 0,
  cache_read: 0, cache_write: 0, duration_ms: 0, consecutive_failures: 0,
};

/**
 * Totals of each run in `runIds`, from their iteration and owner rows. Consecutive failures are the
 * `failure` rows after the last success/complete row, ignoring running, interrupted and waiting rows.
 */
export async function queryTotalsMany(db: Queryable, runIds: readonly string[]): Promise<Map<string, RunTotals>> {
  const totals = new Map<string, RunTotals>();
  if (runIds.length === 0) return totals;
  const rows = await db.query(
    `WITH it AS (
       SELECT i.*, MAX(CASE WHEN status NOT IN ('running', 'interrupted', 'waiting', 'failure') THEN number END)
                     OVER (PARTITION BY run_id) AS last_ok
       FROM iterations i WHERE run_id = ANY($1::text[]))
     SELECT run_id, COUNT(*) AS iterations, COALESCE(MAX(number), 0) AS last_iteration,
            COALESCE(SUM(cost_usd), 0) AS cost_usd,
            COUNT(*) FILTER (WHERE cost_usd IS NULL AND status <> 'running') AS cost_unknown,
            COALESCE(SUM(tokens_in), 0) AS tokens_in, COALESCE(SUM(tokens_out), 0) AS tokens_out,
            COALESCE(SUM(cache_read), 0) AS cache_read, COALESCE(SUM(cache_write), 0) AS cache_write,
            COALESCE(SUM(duration_ms), 0) AS duration_ms,
            COUNT(*) FILTER (WHERE status = 'failure' AND number > COALESCE(last_ok, 0)) AS consecutive_failures
     FROM it GROUP BY run_id`,
    [runIds],
  );
  const runtimes = await db.query<{ run_id: string; ms: number }>(
    `SELECT run_id, COALESCE(SUM(COALESCE(ended_at, heartbeat_at) - started_at), 0) AS ms
     FROM run_owners WHERE run_id = ANY($1::text[]) GROUP BY run_id`,
    [runIds],
  );
  const bySum = new Map(rows.rows.map((row) => {
    const parsed = sums.parse(row);
    return [parsed.run_id, parsed] as const;
  }));
  const byRuntime = new Map(runtimes.rows.map((row) => [row.run_id, Number(row.ms)] as const));
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

/** Totals of one run. */
export async function queryTotals(db: Queryable, runId: string): Promise<RunTotals> {
  const totals = (await queryTotalsMany(db, [runId])).get(runId);
  if (!totals) throw new Error(`queryTotals: no totals for ${runId}`);
  return totals;
}

const costPerRunRow = z.object({
  run_id: z.string(),
  status: z.enum(RUN_STATUSES),
  iterations: z.number(),
  cost_usd: z.number(),
  cost_unknown: z.number(),
});

const hourRow = z.object({ hour: z.number(), iterations: z.number(), cost_usd: z.number() });

/** The seed's metrics: cost per run, average iterations to completion, cost by UTC hour. */
export async function queryStats(db: Queryable, runId: string | null, workspace: string | null = null): Promise<StoreStats> {
  // $1 / $2: the run and workspace filters (NULL = every run / every workspace).
  const params = [runId, workspace];
  const filterRuns = 'WHERE ($1::text IS NULL OR r.id = $1) AND ($2::text IS NULL OR r.workspace = $2)';
  const perRun = (
    await db.query(
      `SELECT r.id AS run_id, r.status, COUNT(i.number) AS iterations, COALESCE(SUM(i.cost_usd), 0) AS cost_usd,
              COUNT(i.number) FILTER (WHERE i.cost_usd IS NULL AND i.status <> 'running') AS cost_unknown
       FROM runs r LEFT JOIN iterations i ON i.run_id = r.id ${filterRuns}
       GROUP BY r.id ORDER BY r.created_at DESC, r.id DESC`,
      params,
    )
  ).rows
    .map((row) => costPerRunRow.parse(row))
    .map((row) => ({ ...row, cost_usd: roundUsd(row.cost_usd), cost_unknown: row.cost_unknown > 0 }));
  const filterIterations = `WHERE run_id IN (SELECT r.id FROM runs r ${filterRuns})`;
  // The iteration at which each run first found its completion signal, averaged over runs.
  const completion = (
    await db.query<{ avg: number | null; runs: number }>(
      `SELECT AVG(n) AS avg, COUNT(*) AS runs FROM (
         SELECT MIN(number) AS n FROM iterations ${filterIterations} AND completion_signal_found
         GROUP BY run_id) AS firsts`,
      params,
    )
  ).rows[0];
  const byHour = (
    await db.query(
      `SELECT (started_at / 3600000) * 3600000 AS hour, COUNT(*) AS iterations, COALESCE(SUM(cost_usd), 0) AS cost_usd
       FROM iterations ${filterIterations} GROUP BY hour ORDER BY hour`,
      params,
    )
  ).rows.map((row) => hourRow.parse(row));
  return {
    cost_per_run: perRun,
    avg_iterations_to_completion: completion?.avg ?? null,
    completed_runs: completion?.runs ?? 0,
    cost_by_hour: byHour.map((h) => ({ hour: h.hour, iterations: h.iterations, cost_usd: roundUsd(h.cost_usd) })),
    total_cost_usd: roundUsd(perRun.reduce((sum, r) => sum + r.cost_usd, 0)),
    total_iterations: perRun.reduce((sum, r) => sum + r.iterations, 0),
  };
}

/** Rounds a USD sum to 1e-9 so float noise of SUM() does not leak into output. */
function roundUsd(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}
