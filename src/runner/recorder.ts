// Wires a run to the Store and git: iteration rows before the agent starts, every stamped event with its seq,
// run status changes, program metadata, and checkpoints (with a snapshot of the loop state) every N iterations
// and at the end. The loop stays ignorant of both. Every write is fenced by the run's owner: once another
// process has taken the run over, nothing more is written and the owner is told to stop.
import { loopSnapshot } from '../core/snapshot.js';
import type { IterationOutcome, LoopState, RunStatus } from '../core/types.js';
import { checkpoint, checkpointMessage, clearStaleIndexLock, type CheckpointResult } from '../git/index.js';
import type { IterationStatus, Owner, Store } from '../store/index.js';
import { OwnershipLostError } from '../store/index.js';
import { AgentPidFile } from './agent-pid-file.js';
import { EventBatcher, StoreWriter } from './store-writer.js';
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
export function createRecorder(options: RecorderOptions): Recorder {
  const { store, runId, owner } = options;
  const writer = new StoreWriter(options);
  const events = new EventBatcher(writer, runId);
  const warn = (message: string): void => options.emit({ type: 'warning', time: options.now(), message });
  const pidFile = new AgentPidFile(options.dataDir, runId, warn);
  const checkpoints = checkpointer(options, writer);
  const run = { status: options.status ?? 'running', lastMeta: '', latestState: null as LoopState | null };
  /** The exit code and agent of an iteration that ended with an error, until its `error` event is recorded. */
  const errorContext = new Map<number, { exit_code: number | null; agent: string }>();
  const record = (e: RunEvent): void => {
    // Rows (the truth for totals) are queued before their event, so when an event is stored, the rows it reports are too.
    const next = statusAfter(e, run.status);
    if (next !== null && next !== run.status) {
      run.status = next;
      writer.enqueue('status', () => store.updateRunStatus(runId, next, e.time, owner));
    }
    recordRows(e, options, writer, events, errorContext);
    events.push(e);
    // A pause takes a checkpoint (README, `ringmaster pause`): a pause at an iteration boundary commits the workspace (no
    // agent is working in it). `pause --now` does not: the agent is frozen mid-edit.
    if (e.type === 'paused' && !e.suspended && options.checkpointInterval > 0 && run.latestState !== null && e.after_iteration > 0) {
      const at = run.latestState;
      writer.enqueue('pause checkpoint', () => checkpoints(e.after_iteration, at, 'paused'));
    }
  };
  return {
    record,
    unstored: () => events.unstored(),
    deps: {
      async beforeIteration(_runId, iteration, agent, logPath, unitId) {
        const start = { run_id: runId, number: iteration, agent, started_at: options.now(), log_path: logPath, unit_id: unitId };
        try {
          // After the queued writes, with the events recorded so far (the iteration_started event): one write.
          await events.writeWith((list) => store.startIteration(start, owner, list));
        } catch (error) {
          // Taken over: the owner is told to stop (the loop sees its interrupt before starting the agent).
          if (!(error instanceof OwnershipLostError)) throw error;
          writer.loseOwnership();
        }
      },
      onAgentSpawn: (_runId, _iteration, pid) => pidFile.write(pid),
      async afterIteration(_runId, iteration, state) {
        run.latestState = state;
        await writer.idle();
        if (options.checkpointInterval > 0 && iteration % options.checkpointInterval === 0) await checkpoints(iteration, state, run.status);
      },
      onMetadata(meta) {
        const text = JSON.stringify(meta);
        if (text === run.lastMeta) return;
        run.lastMeta = text;
        writer.enqueue('metadata', () => store.updateRunMeta(runId, meta, options.now(), owner));
      },
      async beforeFinish(_runId, state, finalStatus) {
        await writer.idle();
        if (options.checkpointInterval > 0 && state.iteration > 0) await checkpoints(state.iteration, state, finalStatus);
      },
    },
    async close() {
      events.flush();
      await writer.idle();
      pidFile.close();
    },
  };
}

/** The rows an event implies: the running iteration's cost, the iteration's end, its error record, the run's end. */
function recordRows(e: RunEvent, options: RecorderOptions, writer: StoreWriter, events: EventBatcher, errorContext: Map<number, { exit_code: number | null; agent: string }>): void {
  const { store, runId, owner } = options;
  switch (e.type) {
    case 'cost_so_far':
      // Into the running iteration's row: the run's totals (the board, resume after a crash) include it.
      events.attach(`iteration ${e.iteration} cost so far`, (list) => store.updateIteration(runId, e.iteration, { cost_usd: e.cost_usd }, owner, list));
      break;
    case 'iteration_completed':
      // Its log could not be written (a full disk, most likely): make room for recording how the run ends.
      if (e.error_kind === 'write_failed' && !writer.diskFull) {
        writer.diskFull = true;
        options.freeSpace?.();
      }
      events.attach(`iteration ${e.iteration}`, (list) => store.completeIteration(runId, e.iteration, completedRow(e), owner, list));
      if (e.error_kind !== 'none' && e.error_message) errorContext.set(e.iteration, { exit_code: e.exit_code, agent: e.agent });
      break;
    case 'error': {
      // The record of an iteration's error: its message, the agent's last output lines, the retries in a row.
      const iteration = e.iteration;
      const at = iteration === null ? undefined : errorContext.get(iteration);
      if (iteration === null || at === undefined) break;
      errorContext.delete(iteration);
      const context = { iteration, consecutive_failures: e.consecutive_failures, retry_count: e.retry_count ?? 0, exit_code: at.exit_code, agent: at.agent, last_output: e.last_output ?? [] };
      writer.enqueue('error', () => store.recordError({ run_id: runId, iteration, kind: e.kind, message: e.message, context, created_at: e.time }, owner));
      break;
    }
    case 'run_finished':
      writer.enqueue('finish', async () => {
        await store.finishRun(runId, { status: e.status, stop_reason: e.stop_reason, now: e.time }, owner);
        writer.finished = true;
      });
      break;
    default:
      break;
  }
}

/** The iteration row's end, from its event. */
function completedRow(e: Extract<RunEvent, { type: 'iteration_completed' }>): Parameters<Store['completeIteration']>[2] {
  return {
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
  };
}

/** Takes checkpoints (a commit of the agent's directory and its row with a loop snapshot), at most one per iteration. */
function checkpointer(options: RecorderOptions, writer: StoreWriter): (iteration: number, state: LoopState, runStatus: RunStatus) => Promise<void> {
  const { store, runId, owner } = options;
  let lastCheckpoint = 0;
  return async (iteration, state, runStatus) => {
    if (!options.gitEnabled || iteration === lastCheckpoint || writer.lost) return;
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
      if (error instanceof OwnershipLostError) return writer.loseOwnership();
      await store.recordCheckpoint({ run_id: runId, iteration, commit_sha: null, state: 'failed', message: (error as Error).message, snapshot, created_at: at }, owner);
      options.emit({ type: 'checkpoint_created', time: options.now(), iteration, commit_sha: null, state: 'failed' });
      throw error;
    }
  };
}
