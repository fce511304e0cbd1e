// Run owners in the PostgreSQL store: one open owner per run (a unique index), opened when a run is created or
// claimed, its lease renewed by heartbeats and judged by the database's clock, closed on release or takeover.
import { RunBusyError, RunEndedError, StoreError } from '../errors.js';
import { resumable } from '../liveness.js';
import type { ClaimOptions, ClaimResult, Owner } from '../store.js';
import { DB_NOW, lockRunRow } from './fence.js';
import { interruptRunning } from './iterations.js';
import { query as q } from './pool.js';
import type { Queryable } from './pool.js';
import { mustGetRun } from './runs.js';

/** Opens the run's next owner row (in the caller's transaction). */
export async function openOwner(db: Queryable, runId: string, owner: Owner, now: number): Promise<void> {
  await q(
    db,
    `INSERT INTO run_owners (run_id, seq, pid, host, started_at, heartbeat_at, renewed_at, ended_at)
     SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4, $4, ${DB_NOW}, NULL FROM run_owners WHERE run_id = $1`,
    [runId, owner.pid, owner.host, now],
  );
}

/** Takes the run over for `owner` (in the caller's transaction): the previous owner closed, its running iterations interrupted. */
export async function claimRun(db: Queryable, id: string, owner: Owner, now: number, options: ClaimOptions): Promise<ClaimResult> {
  // The run row lock serializes claims of one run (two takeovers at once: the second sees the first's owner).
  if (!(await lockRunRow(db, id))) throw new StoreError(`claimRun: no run ${id}`);
  if (options.onlyIfResumable) {
    const run = await mustGetRun(db, id);
    if (!resumable(run)) throw new RunEndedError(id, run.status, run.stop_reason);
  }
  // The owner row is locked too before its lease is judged: a renewal in flight commits first and counts.
  const prev = (
    await q<{ pid: number; host: string; heartbeat_at: number; idle: number }>(
      db,
      `SELECT pid, host, heartbeat_at, ${DB_NOW} - COALESCE(renewed_at, heartbeat_at) AS idle
       FROM run_owners WHERE run_id = $1 AND ended_at IS NULL FOR UPDATE`,
      [id],
    )
  ).rows[0];
  if (prev && options.ifIdleMs !== undefined && prev.idle < options.ifIdleMs) throw new RunBusyError(id, prev, Math.max(0, prev.idle));
  // A dead owner's runtime ends at its last heartbeat, the last moment it was known alive; unless its agent was
  // found still running (and killed): then the run (its iteration) went on until that kill.
  const heartbeat = prev ? Math.min(prev.heartbeat_at, now) : now;
  const lastAlive = options.agentRanUntil === undefined ? heartbeat : Math.max(heartbeat, Math.min(options.agentRanUntil, now));
  if (prev) await q(db, 'UPDATE run_owners SET ended_at = GREATEST(heartbeat_at, $2) WHERE run_id = $1 AND ended_at IS NULL', [id, lastAlive]);
  const interrupted = await interruptRunning(db, id, lastAlive);
  await openOwner(db, id, owner, now);
  await q(db, 'UPDATE runs SET status = $2, stop_reason = NULL, ended_at = NULL, updated_at = $3 WHERE id = $1', [id, options.status ?? 'running', now]);
  return {
    run: await mustGetRun(db, id),
    interrupted,
    previous: prev ? { pid: prev.pid, host: prev.host, heartbeat_at: prev.heartbeat_at } : null,
  };
}

/** Closes `owner`'s hold on the run; false when it held none. */
export async function releaseRun(db: Queryable, id: string, owner: Owner, now: number): Promise<boolean> {
  const { rowCount } = await q(
    db,
    `UPDATE run_owners SET ended_at = GREATEST(heartbeat_at, $4), heartbeat_at = GREATEST(heartbeat_at, $4)
     WHERE run_id = $1 AND pid = $2 AND host = $3 AND ended_at IS NULL`,
    [id, owner.pid, owner.host, now],
  );
  return (rowCount ?? 0) > 0;
}

/** Renews `owner`'s lease (by the database's clock) and moves its heartbeat; false when it holds the run no more. */
export async function heartbeat(db: Queryable, id: string, owner: Owner, now: number): Promise<boolean> {
  const { rowCount } = await q(
    db,
    `UPDATE run_owners SET heartbeat_at = GREATEST(heartbeat_at, $4), renewed_at = ${DB_NOW}
     WHERE run_id = $1 AND pid = $2 AND host = $3 AND ended_at IS NULL`,
    [id, owner.pid, owner.host, now],
  );
  return (rowCount ?? 0) > 0;
}
