// SQL shared word for word by the SQLite and PostgreSQL stores: the run select (a run with its open owner) and
// the column lists of the rows both read back the same way (rows.ts parses them), and the values both write.
import type { IterationEnd } from './store.js';

/** A run with its open owner (none when queued or ended); append a WHERE / ORDER BY. */
export const RUN_SELECT = `
SELECT r.id, r.status, r.stop_reason, r.agent, r.kind, r.origin, r.spec_json AS spec, r.meta_json AS meta, r.workspace, r.worktree, r.branch,
       r.created_at, r.updated_at, r.ended_at,
       o.pid AS owner_pid, o.host AS owner_host, o.heartbeat_at AS heartbeat_at
FROM runs r LEFT JOIN run_owners o ON o.run_id = r.id AND o.ended_at IS NULL`;

/** Columns of a checkpoint row. */
export const CHECKPOINT_COLUMNS = 'id, run_id, iteration, commit_sha, state, message, snapshot_json AS snapshot, created_at';

/** Columns of an error row. */
export const ERROR_COLUMNS = 'id, run_id, iteration, kind, message, context_json AS context, created_at';

/** Columns of an event row. */
export const EVENT_COLUMNS = 'run_id, seq, at, type, iteration, payload_json AS payload';

/** Columns of a control request row. */
export const CONTROL_COLUMNS = 'id, run_id, action, options_json AS options, requested_by, requested_at, handled_at, result';

/** Columns of a note row. */
export const NOTE_COLUMNS = 'id, run_id, text, created_by, created_at, delivered_iteration, delivered_at, cancelled_at';

/**
 * The notes an iteration starting now takes (a table alias `n`): pending ones, and those delivered to an iteration
 * that was interrupted (its agent never finished reading them: they go to the next one).
 */
export const CLAIMABLE_NOTE = `n.cancelled_at IS NULL AND (n.delivered_iteration IS NULL OR EXISTS (
  SELECT 1 FROM iterations i WHERE i.run_id = n.run_id AND i.number = n.delivered_iteration AND i.status = 'interrupted'))`;

/** The change columns of a completed iteration (all null when not tracked). */
export function changeColumns(end: IterationEnd): { tree_before: string | null; tree_after: string | null; files_changed: string | null; files_changed_total: number | null; discarded_ref: string | null } {
  const c = end.changes ?? null;
  if (c === null) return { tree_before: null, tree_after: null, files_changed: null, files_changed_total: null, discarded_ref: null };
  return { tree_before: c.tree_before, tree_after: c.tree_after, files_changed: JSON.stringify(c.files_changed), files_changed_total: c.files_changed_total, discarded_ref: c.discarded_ref };
}
