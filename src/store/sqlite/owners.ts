// Run owners in the SQLite store: one open owner per run (a unique index), opened when a run is created or
// claimed, its lease renewed by heartbeats and judged by the store's clock, closed on release or takeover.
// Same checks and messages as the PostgreSQL store (postgres/owners.ts).
import { RunBusyError, RunEndedError, StoreError } from '../errors.js';
import { resumable } from '../liveness.js';
import type { ClaimOptions, ClaimResult, Owner } from '../store.js';
import type { SqliteDb } from './db.js';
import { interruptRunning } from './iterations.js';
import { mustGetRun, readRun } from './runs.js';

/** Opens the run's next owner row (in the caller's transaction). */
export function openOwner(s: SqliteDb, runId: string, owner: Owner, now: number): void {
  s.run(
    `INSERT INTO run_owners (run_id, seq, pid, host, started_at, heartbeat_at, renewed_at, ended_at)
     SELECT :runId, COALESCE(MAX(seq), 0) + 1, :pid, :host, :now, :now, :clock, NULL FROM run_owners WHERE run_id = :runId`,
    { runId, pid: owner.pid, host: owner.host, now, clock: s.clock() },
  );
}

/** Takes the run over for `owner` in one transaction: the previous owner closed, its running iterations interrupted. */
export function claimRun(s: SqliteDb, id: string, owner: Owner, now: number, options: ClaimOptions): ClaimResult {
  return s.tx(() => {
    const run = readRun(s, id);
    if (!run) throw new StoreError(`claimRun: no run ${id}`);
    if (options.onlyIfResumable && !resumable(run)) throw new RunEndedError(id, run.status, run.stop_reason);
    const prev = s.q('SELECT pid, host, heartbeat_at, COALESCE(renewed_at, heartbeat_at) AS renewed_at FROM run_owners WHERE run_id = :id AND ended_at IS NULL')
      .get({ id }) as { pid: number; host: string; heartbeat_at: number; renewed_at: number } | undefined;
    if (prev && options.ifIdleMs !== undefined) {
      const idle = s.clock() - prev.renewed_at;
      if (idle < options.ifIdleMs) throw new RunBusyError(id, prev, Math.max(0, idle));
    }
    // A dead owner's runtime ends at its last heartbeat, the last moment it was known alive; unless its agent was
    // found still running (and killed): then the run (its iteration) went on until that kill.
    const heartbeat = prev ? Math.min(prev.heartbeat_at, now) : now;
    const lastAlive = options.agentRanUntil === undefined ? heartbeat : Math.max(heartbeat, Math.min(options.agentRanUntil, now));
    if (prev) s.run('UPDATE run_owners SET ended_at = MAX(heartbeat_at, :lastAlive) WHERE run_id = :id AND ended_at IS NULL', { id, lastAlive });
    const interrupted = interruptRunning(s, id, lastAlive);
    openOwner(s, id, owner, now);
    s.run('UPDATE runs SET status = :status, stop_reason = NULL, ended_at = NULL, updated_at = :now WHERE id = :id', { id, status: options.status ?? 'running', now });
    return {
      run: mustGetRun(s, id),
      interrupted,
      previous: prev ? { pid: prev.pid, host: prev.host, heartbeat_at: prev.heartbeat_at } : null,
    };
  });
}

/** Closes `owner`'s hold on the run; false when it held none. */
export function releaseRun(s: SqliteDb, id: string, owner: Owner, now: number): boolean {
  const { changes } = s.run(
    `UPDATE run_owners SET ended_at = MAX(heartbeat_at, :now), heartbeat_at = MAX(heartbeat_at, :now)
     WHERE run_id = :id AND pid = :pid AND host = :host AND ended_at IS NULL`,
    { id, pid: owner.pid, host: owner.host, now },
  );
  return changes > 0;
}

/** Renews `owner`'s lease (by the store's clock) and moves its heartbeat; false when it holds the run no more. */
export function heartbeat(s: SqliteDb, id: string, owner: Owner, now: number): boolean {
  const { changes } = s.run(
    `UPDATE run_owners SET heartbeat_at = MAX(heartbeat_at, :now), renewed_at = :clock
     WHERE run_id = :id AND pid = :pid AND host = :host AND ended_at IS NULL`,
    { id, pid: owner.pid, host: owner.host, now, clock: s.clock() },
  );
  return changes > 0;
}
