// Hook loops in the user's Store (when the data directory has one): a run per loop, an event per decision, an
// iteration row per block, the run finished by the decision that ends the loop. Never creates a store.
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { newRunId } from '../core/ids.js';
import type { RunStatus, StopReason } from '../core/types.js';
import type { HookDecisionRecord } from './decision-log.js';
import type { TrackerFrontmatter } from './tracker.js';
import { dataDir, databasePath, workspaceKey } from '../store/paths.js';
import type { VerifyRecord } from '../store/rows.js';
import type { Store } from '../store/store.js';
import { appendEventBodies } from '../runner/standalone-events.js';

/** The agent name of hook-mode runs in the store. */
export { HOOK_AGENT } from '../core/types.js';
import { HOOK_AGENT } from '../core/types.js';
/** The event type of one Stop-hook decision. */
export const HOOK_DECISION_EVENT = 'hook_decision' as const;

/** True when the user already has a store (the hook never creates one). */
export function hasStore(env: StoreEnv): boolean {
  return Boolean(env.RINGMASTER_DATABASE_URL) || existsSync(databasePath(dataDir(env)));
}

/** The environment that names the data directory ($RINGMASTER_HOME, $XDG_DATA_HOME, $HOME). */
export type StoreEnv = Readonly<Record<string, string | undefined>>;

async function withStore<T>(env: StoreEnv, work: (store: Store) => Promise<T>): Promise<T> {
  // Loaded lazily: a user without a store never pays for node:sqlite.
  const { openStore } = await import('../store/open-store.js');
  const store = await openStore({ env, create: false });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The run's spec: the tracker settings (no env, no keys). */
export function hookRunSpec(f: TrackerFrontmatter, trackerFile: string): Record<string, unknown> {
  return {
    mode: 'hook',
    task: f.task,
    max_iterations: f.max_iterations,
    completion_marker: f.completion_marker,
    session_id: f.session_id,
    continue_message: f.continue_message,
    verify: f.verify === null ? null : { command: f.verify, timeout_ms: f.verify_timeout_ms },
    tracker: trackerFile,
  };
}

/** Creates the run row of a new hook loop; returns its id, or null when the project has no store. */
export async function createHookRun(env: StoreEnv, projectDir: string, spec: unknown, now: number): Promise<string | null> {
  if (!hasStore(env)) return null;
  return withStore(env, async (store) => {
    const id = newRunId(now, Math.random);
    await store.createRun({ id, agent: HOOK_AGENT, origin: 'hook', spec, workspace: workspaceKey(projectDir), owner: { pid: process.pid, host: hostname() }, now });
    return id;
  });
}

/** Ends a hook run (cancel, replaced loop); a run that already ended is left as it is. */
export async function finishHookRun(env: StoreEnv, runId: string, status: RunStatus, reason: StopReason, now: number): Promise<void> {
  await withStore(env, async (store) => {
    const run = await store.getRun(runId);
    if (run === null || run.ended_at !== null) return;
    await store.finishRun(runId, { status, stop_reason: reason, now });
  });
}

/** Run status of a loop that ended for `reason`. */
function endStatus(reason: StopReason): RunStatus {
  if (reason === 'user_stop') return 'stopped';
  if (reason === 'success_signal' || reason === 'max_iterations') return 'completed';
  return 'failed';
}

/** What the store needs to know about one decision beyond its log record. */
export interface StoreDecision {
  runId: string;
  record: HookDecisionRecord;
  /** Set for a block: the block count (= the iteration row's number). */
  blockNumber: number | null;
  /** Set when this decision ends the loop. */
  stopReason: StopReason | null;
  /** Number of the turn that just ended (blocks so far + 1): the last turn's row when the loop ends. */
  turnNumber: number;
  /** The verify check's evidence, when the decision checked a claim: kept on the turn's iteration row. */
  verify?: VerifyRecord | null;
  now: number;
}

/**
 * Records one decision of a loop that has a run: the event; the iteration row of the turn that just ended
 * (each turn is an iteration, as in decideStop: block N closes turn N, and the decision that ends the loop
 * closes the last turn, `complete` with the signal for success_signal); the run's end. The hook's parent process
 * (Claude Code) becomes the run's owner at each block, so `ringmaster runs` sees it alive.
 */
export async function recordInStore(env: StoreEnv, d: StoreDecision): Promise<void> {
  await withStore(env, async (store) => {
    const run = await store.getRun(d.runId);
    if (run === null) throw new Error(`run ${d.runId} of the tracker is not in the store`);
    const sessionId = d.record.session_id;
    await appendEventBodies(store, d.runId, [
      {
        type: HOOK_DECISION_EVENT,
        time: d.now,
        decision: d.record.decision,
        reason: d.record.reason,
        iteration: d.record.iteration,
        max_iterations: d.record.max_iterations,
        session_id: sessionId,
        stop_hook_active: d.record.stop_hook_active,
        warning: d.record.warning,
      },
    ], d.blockNumber);
    if (d.blockNumber !== null && run.ended_at === null && process.ppid > 1) {
      await store.claimRun(d.runId, { pid: process.ppid, host: hostname() }, d.now);
    }
    const turn = d.blockNumber ?? (d.stopReason === 'success_signal' || d.stopReason === 'max_iterations' ? d.turnNumber : null);
    if (turn !== null && run.ended_at === null && (await store.getIteration(d.runId, turn)) === null) {
      const previous = turn > 1 ? await store.getIteration(d.runId, turn - 1) : null;
      const startedAt = Math.min(previous?.completed_at ?? run.created_at, d.now);
      const signal = d.stopReason === 'success_signal';
      const failed = d.verify?.passed === false;
      await store.startIteration({ run_id: d.runId, number: turn, agent: HOOK_AGENT, started_at: startedAt, log_path: null });
      await store.completeIteration(d.runId, turn, {
        status: signal ? 'complete' : failed ? 'failure' : 'success',
        exit_code: null,
        duration_ms: d.now - startedAt,
        completion_signal_found: signal,
        error_kind: failed ? 'verify_failed' : null,
        error_message: failed ? `claimed complete, but the verify command '${d.verify?.command ?? ''}' ${d.verify?.summary ?? ''}` : null,
        verify: d.verify ?? null,
        session_id: sessionId,
        completed_at: d.now,
      });
    }
    if (d.stopReason !== null && run.ended_at === null) {
      await store.finishRun(d.runId, { status: endStatus(d.stopReason), stop_reason: d.stopReason, now: d.now });
    }
  });
}
