// The owner fence of the PostgreSQL store: a write made for an owner happens only while that owner holds the run,
// checked in the write's own transaction (or statement), and renews the owner's lease by the database's clock.
import { OwnershipLostError } from '../errors.js';
import { query } from './pool.js';
import type { Queryable } from './pool.js';
import type { Fence } from '../store.js';

/** The database clock in epoch ms (migration 3): leases are renewed and judged by it only. */
export const DB_NOW = 'ringmaster_now_ms()';

/**
 * Inside a transaction: renews `fence`'s lease if it is the run's open owner, else throws OwnershipLostError. The
 * UPDATE locks the owner row, so a concurrent claim either waits for this transaction (and then sees its rows)
 * or has closed the row already (and this write fails).
 */
export async function checkFence(db: Queryable, runId: string, fence: Fence | undefined, what: string): Promise<void> {
  if (fence === undefined) return;
  const { rowCount } = await query(db, `UPDATE run_owners SET renewed_at = ${DB_NOW} WHERE run_id = $1 AND pid = $2 AND host = $3 AND ended_at IS NULL`, [
    runId,
    fence.pid,
    fence.host,
  ]);
  if (!rowCount) throw new OwnershipLostError(runId, fence, what);
}

/** Locks the run row first, as claimRun does, so that a write to it and a claim queue up instead of deadlocking. */
export async function lockRunRow(db: Queryable, runId: string): Promise<boolean> {
  const { rowCount } = await query(db, 'SELECT 1 FROM runs WHERE id = $1 FOR NO KEY UPDATE', [runId]);
  return (rowCount ?? 0) > 0;
}

/** True when `fence` is the run's open owner right now (to tell "lost" from other reasons a fenced statement wrote nothing). */
export async function holdsRun(db: Queryable, runId: string, fence: Fence): Promise<boolean> {
  const { rowCount } = await query(db, 'SELECT 1 FROM run_owners WHERE run_id = $1 AND pid = $2 AND host = $3 AND ended_at IS NULL', [runId, fence.pid, fence.host]);
  return (rowCount ?? 0) > 0;
}
