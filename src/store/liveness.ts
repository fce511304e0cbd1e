// Derived run status: a run stored as running/waiting whose owner is gone is shown as `orphaned`,
// never silently marked failed (resume or stop decide what happens to it).
import { HOOK_AGENT, type RunStatus } from '../core/types.js';
import type { RunRow } from './rows.js';

/** A stored status, or `orphaned` (derived, never stored). */
export type DisplayStatus = RunStatus | 'orphaned';

/** Heartbeats older than this make an active run orphaned even if a process with its pid exists. */
export const DEFAULT_STALE_AFTER_MS = 5 * 60_000;

/** How often a live owner should call Store.heartbeat (well under DEFAULT_STALE_AFTER_MS). */
export const HEARTBEAT_INTERVAL_MS = 15_000;

/** What liveness needs to know about the machine it runs on; injected so tests can fake it. */
export interface LivenessProbe {
  host: string;
  now: number;
  isAlive(pid: number): boolean;
  /** False when the process now holding `pid` started after `atMs` (so it is not the owner that wrote then). */
  couldHaveWritten?(pid: number, atMs: number): boolean;
  staleAfterMs?: number;
}

/** Statuses in which a live owner process must exist (a paused run's owner waits for resume). */
export const ACTIVE_STATUSES: readonly RunStatus[] = ['pending', 'running', 'waiting', 'paused'];

/**
 * A run waiting in the workers' queue: pending (or held there by a pause) with no owner yet. It is not orphaned:
 * nobody has driven it, and the first worker that takes its job claims it.
 */
export function isQueued(run: Pick<RunRow, 'status' | 'owner_pid'>): boolean {
  return run.owner_pid === null && (run.status === 'pending' || run.status === 'paused');
}

/** A run that can go on: active, or stopped because its process went away (never one a user stopped, or that ended). */
export function resumable(run: Pick<RunRow, 'status' | 'stop_reason'>): boolean {
  return ACTIVE_STATUSES.includes(run.status) || (run.status === 'stopped' && run.stop_reason === 'interrupted');
}

/** True when the run claims to be active but no live owner drives it. */
export function isOrphaned(run: RunRow, probe: LivenessProbe): boolean {
  if (!ACTIVE_STATUSES.includes(run.status) || isQueued(run)) return false;
  // A Stop-hook loop lives between hook calls of a Claude Code session: no process owns it in between.
  if (run.agent === HOOK_AGENT) return false;
  if (run.owner_pid === null || run.heartbeat_at === null) return true;
  const stale = probe.now - run.heartbeat_at > (probe.staleAfterMs ?? DEFAULT_STALE_AFTER_MS);
  if (stale) return true;
  if (run.owner_host !== probe.host) return false;
  // A live pid is the owner's only if that process was already running at its last heartbeat (not a reused pid).
  return !probe.isAlive(run.owner_pid) || probe.couldHaveWritten?.(run.owner_pid, run.heartbeat_at) === false;
}

/** The status to show a user: the stored one, or `orphaned`. */
export function displayStatus(run: RunRow, probe: LivenessProbe): DisplayStatus {
  return isOrphaned(run, probe) ? 'orphaned' : run.status;
}
