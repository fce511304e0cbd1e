// Wires a run to the Store and git: iteration rows before the agent starts, every stamped event with its seq,
// run status changes, program metadata, and checkpoints (with a snapshot of the loop state) every N iterations
// and at the end. The loop stays ignorant of both. Every write is fenced by the run's owner: once another
// process has taken the run over, nothing more is written and the owner is told to stop.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { loopSnapshot } from '../core/snapshot.js';
import type { IterationOutcome, LoopState, RunStatus } from '../core/types.js';
import { checkpoint, checkpointMessage, clearStaleIndexLock, type CheckpointResult } from '../git/index.js';
import { fsProblem } from '../os/fs-errors.js';
import { agentPidPath, ensurePrivateDir } from '../store/paths.js';
import { agentPidBlank, agentPidLine } from './leftover.js';
import type { IterationStatus, NewEvent, Owner, Store } from '../store/index.js';
import { OwnershipLostError } from '../store/index.js';
import { StoreUnusableError } from '../store/errors.js';
import type { RunEvent, RunEventBody } from './events.js';
import type { RunDeps } from './run-loop.js';

/** What the recorder needs to know about the run. */
export interface RecorderOptions {
  store: Store;
  runId: string;
  /** The data directory (agent pid file). */
  dataDir: string;
  /** Directory the agent works in (the workspace, or its worktree): what checkpoints commit. */
  agentDir: string;
  owner: Owner;
  checkpointInterval: number;
  /** The run's stored status when the recorder starts (default `running`): a claim may keep `paused` or `waiting`. */
  status?: RunStatus;
  gitEnabled: boolean;
  now: () => number;
  /** Emits an event into the run's stream (warnings, checkpoint_created). */
  emit: (event: RunEventBody) => void;
  /** A store write failed: shown, never stored (storing it could fail the same way, again and again). */
  onStoreError: (message: string, error: unknown) => void;
  /**
   * Change tracking's checkpoint of the tree it just wrote (ChangeTracker.checkpoint); null answers, or none given,
   * take git/checkpoint.ts's path.
   */
  trackedCheckpoint?: (dir: string, message: string) => Promise<CheckpointResult | null>;
  /** Called (once) when a write finds that another process now owns the run. */
  onLostOwnership?: () => void;
  /**
   * Gives back the disk space kept aside (store/reserve.ts); true when some was freed. Called when the disk is
   * full, so that the rows that tell how the run ended still fit; the failed write is then tried once more.
   */
  freeSpace?: () => boolean;
  /** The disk is full: told once, after the space kept aside was given back (the run must end). */
  onDiskFull?: (message: string) => void;
}

/** The hooks to merge into RunDeps, the event persister, and the cleanup. */
export interface Recorder {
  deps: Pick<RunDeps, 'beforeIteration' | 'onAgentSpawn' | 'afterIteration' | 'beforeFinish' | 'onMetadata'>;
  /** Persists one stamped event, and the rows and status it implies, in order. */
  record(event: RunEvent): void;
  /** Events recorded but not written to the store yet (in order), so a replay can include them. */
  unstored(): RunEvent[];
  /** Waits for pending writes. */
  close(): Promise<void>;
}

const STATUS_OF: Record<IterationOutcome, Exclude<IterationStatus, 'running'>> = {
  success: 'success',
  failure: 'failure',
  complete: 'complete',
  waiting: 'waiting',
  interrupted: 'interrupted',
};

/** The run status an event moves the run into, if any. */
function statusAfter(event: RunEvent, current: RunStatus): RunStatus | null {
  switch (event.type) {
    case 'waiting':
      return 'waiting';
    case 'paused':
      return 'paused';
    case 'resumed':
      return current === 'paused' ? 'running' : null;
    case 'iteration_started':
      return current === 'running' ? null : 'running';
    default:
      return null;
  }
}

/** A checkpoint of the iteration: change tracking's tree when it can, else the worktree as it is now. */
async function takeCheckpoint(options: RecorderOptions, runId: string, iteration: number): Promise<CheckpointResult> {
  return (await options.trackedCheckpoint?.(options.agentDir, checkpointMessage(runId, iteration))) ?? checkpoint(options.agentDir, runId, iteration);
}

/** Creates the recorder of one run. */
// eslint-disable-next-line max-lines-per-function -- too long today; to be split by concern (docs/architecture.md "Layers and size")
export function createRecorder(options: RecorderOptions): Recorder {
  const { store, runId } = options;
  let chain: Promise<void> = Promise.resolve();
  let lastCheckpoint = 0;
  let status: RunStatus = options.status ?? 'running';
  let lastMeta = '';

  const owner = options.owner;
  // Another process owns the run now: nothing more is written (its rows are not ours to touch).
  let lost = false;
  // finishRun closed our owner row: the run's last events are written after it, without the fence.
  let finished = false;
  let diskFull = false;
  /** The exit code and agent of an iteration that ended with an error, until its `error` event is recorded. */
  /** The loop's state after the last iteration (the snapshot of a checkpoint taken on a pause). */
  let latestState: LoopState | null = null;
  const errorContext = new Map<number, { exit_code: number | null; agent: string }>();
  /** Runs a store write; on a full disk, gives back the reserved space once and tries again. */
  const withRoom = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof StoreUnusableError && error.reason === 'disk_full') || diskFull) throw error;
      diskFull = true;
      if (!options.freeSpace?.()) throw error;
      const result = await work();
      options.onDiskFull?.(error.message);
      return result;
    }
  };

  const enqueue = (what: string, work: () => Promise<unknown>, settled?: () => void): void => {
    chain = chain.then(() => (lost ? undefined : withRoom(work))).finally(settled).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof OwnershipLostError) return loseOwnership();
        options.onStoreError(`store: ${what}: ${(error as Error).message}`, error);
      },
    );
  };
  const loseOwnership = (): void => {
    if (lost) return;
    lost = true;
    options.onLostOwnership?.();
  };

  // Events are written on the next turn of the event loop, i.e. while the next agent already runs: they stay
  // in order but off the critical path between two iterations, as one batch. Rows (the truth for totals) are
  // not deferred, so when an event is stored, the rows it reports are too.
  const eventQueue: NewEvent[] = [];
  // Recorded and not yet confirmed written (queued or in flight), oldest first: writes complete in order.
  const unwritten: RunEvent[] = [];
  let eventsScheduled: NodeJS.Immediate | null = null;
  // Events whose write failed (the database unreachable, the disk full): written first with the next batch, so
  // that no later event is ever stored past a missing one (event numbers stay gap-free), nor any twice.
  let held: NewEvent[] = [];
  const flushEvents = (): void => {
    eventsScheduled = null;
    const batch = eventQueue.splice(0);
    if (batch.length === 0) return;
    enqueue(`events ${batch[0]?.seq ?? ''}-${batch.at(-1)?.seq ?? ''}`, async () => {
      const events = [...held, ...batch];
      held = events;
      await store.appendEvents(events, finished ? undefined : owner);
      held = [];
      unwritten.splice(0, events.length);
    });
  };

  const pidPath = agentPidPath(options.dataDir, runId);
  // One descriptor for the whole run, overwritten in place with a fixed-width line (agentPidLine): one pwrite per
  // iteration (creating a file per iteration cost more than the rest of the iteration's bookkeeping). Written
  // blank at once, so its block exists before a disk fills up. Without it, a crash's leftover agent cannot be
  // found: a warning, not a reason to stop.
  let pidFd: number | null = null;
  try {
    ensurePrivateDir(dirname(pidPath));
    pidFd = openSync(pidPath, 'w', 0o600);
    writeSync(pidFd, agentPidBlank(), 0);
  } catch (error) {
    options.emit({ type: 'warning', time: options.now(), message: `cannot write ${pidPath} (${fsProblem(error)}): an agent left behind by a crash could not be found` });
  }

  const record = (e: RunEvent): void => {
    unwritten.push(e);
    const iteration = 'iteration' in e ? e.iteration : null;
    eventQueue.push({ run_id: runId, seq: e.seq, type: e.type, payload: e, at: e.time, iteration: iteration === 0 ? null : iteration });
    eventsScheduled ??= setImmediate(flushEvents);
    const next = statusAfter(e, status);
    if (next !== null && next !== status) {
      status = next;
      enqueue('status', () => store.updateRunStatus(runId, next, e.time, owner));
    }
    switch (e.type) {
      case 'cost_so_far':
        // Into the running iteration's row: the run's totals (the board, resume after a crash) include it.
        enqueue(`iteration ${e.iteration} cost so far`, () => store.updateIteration(runId, e.iteration, { cost_usd: e.cost_usd }, owner));
        break;
      case 'iteration_completed':
        // Its log could not be written (a full disk, most likely): make room for recording how the run ends.
        if (e.error_kind === 'write_failed' && !diskFull) {
          diskFull = true;
          options.freeSpace?.();
        }
        enqueue(`iteration ${e.iteration}`, () =>
          store.completeIteration(runId, e.iteration, {
            status: STATUS_OF[e.outcome],
            exit_code: e.exit_code,
            exit_signal: e.exit_signal,
            duration_ms: e.duration_ms,
            tokens_in: e.tokens_in,
            tokens_out: e.tokens_out,
            cache_read: e.cache_read,
            cache_write: e.cache_write,
            cost_usd: e.cost_usd,
            session_id: e.session_id,
            model: e.model,
            completion_signal_found: e.completion_signal_found,
            failure_signal_found: e.failure_signal_found,
            error_kind: e.error_kind,
            error_message: e.error_message,
            completed_at: e.time,
            changes: e.changes ?? null,
            verify: e.verify ?? null,
          }, owner),
        );
        if (e.error_kind !== 'none' && e.error_message) errorContext.set(e.iteration, { exit_code: e.exit_code, agent: e.agent });
        break;
      case 'error':
        // The record of an iteration's error: its message, the agent's last output lines, the retries in a row.
        if (e.iteration !== null && errorContext.has(e.iteration)) {
          const at = errorContext.get(e.iteration);
          errorContext.delete(e.iteration);
          const iteration = e.iteration;
          const context = { iteration, consecutive_failures: e.consecutive_failures, retry_count: e.retry_count ?? 0, exit_code: at?.exit_code ?? null, agent: at?.agent ?? null, last_output: e.last_output ?? [] };
          enqueue('error', () => store.recordError({ run_id: runId, iteration, kind: e.kind, message: e.message, context, created_at: e.time }, owner));
        }
        break;
      case 'paused':
        // Seed 000's PAUSED state takes a checkpoint: a pause at an iteration boundary commits the workspace (no
        // agent is working in it). `pause --now` does not: the agent is frozen mid-edit.
        if (!e.suspended && options.checkpointInterval > 0 && latestState !== null && e.after_iteration > 0) {
          const at = latestState;
          enqueue('pause checkpoint', () => doCheckpoint(e.after_iteration, at, 'paused'));
        }
        break;
      case 'run_finished':
        enqueue('finish', async () => {
          await store.finishRun(runId, { status: e.status, stop_reason: e.stop_reason, now: e.time }, owner);
          finished = true;
        });
        break;
      default:
        break;
    }
  };

  const doCheckpoint = async (iteration: number, state: LoopState, runStatus: RunStatus): Promise<void> => {
    if (!options.gitEnabled || iteration === lastCheckpoint || lost) return;
    lastCheckpoint = iteration;
    const at = options.now();
    const snapshot = loopSnapshot(state, runStatus, at);
    try {
      let result;
      try {
        result = await takeCheckpoint(options, runId, iteration);
      } catch (error) {
        // A git killed mid-commit (a crash of an earlier ringmaster) leaves index.lock behind: clear it once.
        if (!String((error as Error).message).includes('index.lock') || (await clearStaleIndexLock(options.agentDir)) === null) throw error;
        options.emit({ type: 'warning', time: options.now(), message: 'removed a stale .git/index.lock left by a killed git process' });
        result = await takeCheckpoint(options, runId, iteration);
      }
      const outcome = result.committed ? 'committed' : 'unchanged';
      await store.recordCheckpoint({ run_id: runId, iteration, commit_sha: result.sha, state: outcome, message: result.message, snapshot, created_at: at }, owner);
      options.emit({ type: 'checkpoint_created', time: options.now(), iteration, commit_sha: result.sha, state: outcome });
    } catch (error) {
      if (error instanceof OwnershipLostError) return loseOwnership();
      await store.recordCheckpoint({ run_id: runId, iteration, commit_sha: null, state: 'failed', message: (error as Error).message, snapshot, created_at: at }, owner);
      options.emit({ type: 'checkpoint_created', time: options.now(), iteration, commit_sha: null, state: 'failed' });
      throw error;
    }
  };

  return {
    record,
    unstored: () => [...unwritten],
    deps: {
      async beforeIteration(_runId, iteration, agent, logPath, unitId) {
        await chain;
        if (lost) return;
        try {
          await withRoom(() => store.startIteration({ run_id: runId, number: iteration, agent, started_at: options.now(), log_path: logPath, unit_id: unitId }, owner));
        } catch (error) {
          // Taken over: the owner is told to stop (the loop sees its interrupt before starting the agent).
          if (!(error instanceof OwnershipLostError)) throw error;
          loseOwnership();
        }
      },
      onAgentSpawn(_runId, _iteration, pid) {
        if (pidFd === null) return;
        try {
          writeSync(pidFd, agentPidLine(pid), 0);
        } catch (error) {
          options.emit({ type: 'warning', time: options.now(), message: `cannot write ${pidPath} (${fsProblem(error)}): an agent left behind by a crash could not be found` });
        }
      },
      async afterIteration(_runId, iteration, state) {
        latestState = state;
        await chain;
        if (options.checkpointInterval > 0 && iteration % options.checkpointInterval === 0) await doCheckpoint(iteration, state, status);
      },
      onMetadata(meta) {
        const text = JSON.stringify(meta);
        if (text === lastMeta) return;
        lastMeta = text;
        enqueue('metadata', () => store.updateRunMeta(runId, meta, options.now(), owner));
      },
      async beforeFinish(_runId, state, finalStatus) {
        await chain;
        if (options.checkpointInterval > 0 && state.iteration > 0) await doCheckpoint(state.iteration, state, finalStatus);
      },
    },
    async close() {
      if (eventsScheduled) clearImmediate(eventsScheduled);
      flushEvents();
      await chain;
      // The agent's group is gone once the loop returns: a stale pid file could make a later resume or stop
      // SIGKILL an unrelated process group that reused the id.
      if (pidFd !== null) closeSync(pidFd);
      rmSync(pidPath, { force: true });
    },
  };
}
