// Wires a run to the Store and git: iteration rows before the agent starts, events, heartbeats,
// checkpoints every N iterations and at the end. The runner stays ignorant of both.
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { checkpoint, clearStaleIndexLock } from '../git/index.js';
import type { IterationStatus, NewEvent, Owner, Store } from '../store/index.js';
import { HEARTBEAT_INTERVAL_MS } from '../store/index.js';
import type { IterationOutcome } from '../core/types.js';
import type { RunEvent, RunEventSink } from './events.js';
import type { RunDeps } from './run-loop.js';

/** What the recorder needs to know about the run. */
export interface RecorderOptions {
  store: Store;
  runId: string;
  /** Directory holding .ringmaster/ with the store (the user's workspace). */
  workspace: string;
  /** Directory the agent works in (the workspace, or its worktree): what checkpoints commit. */
  agentDir: string;
  owner: Owner;
  checkpointInterval: number;
  gitEnabled: boolean;
  now: () => number;
  /** Called when a heartbeat finds that another process now owns the run. */
  onLostOwnership?: () => void;
}

/** The hooks to merge into RunDeps, a sink wrapper, and the cleanup. */
export interface Recorder {
  deps: Pick<RunDeps, 'beforeIteration' | 'onAgentSpawn' | 'afterIteration' | 'beforeFinish'>;
  /** Wraps the display sink: every event is shown, then persisted in order. */
  wrap(sink: RunEventSink): RunEventSink;
  /** Waits for pending writes and stops the heartbeat. */
  close(): Promise<void>;
}

const STATUS_OF: Record<IterationOutcome, Exclude<IterationStatus, 'running'>> = {
  success: 'success',
  failure: 'failure',
  complete: 'complete',
  waiting: 'waiting',
  interrupted: 'interrupted',
};

/** Path of the file holding the pid of the agent process group of a run's current iteration. */
export function agentPidPath(workspace: string, runId: string): string {
  return join(workspace, '.ringmaster', 'runs', runId, 'agent.pid');
}

/** Path of the file whose existence asks a live run to stop (`ringmaster stop`). */
export function stopRequestPath(workspace: string, runId: string): string {
  return join(workspace, '.ringmaster', 'runs', runId, 'stop-requested');
}

/** Creates the recorder of one run. */
export function createRecorder(options: RecorderOptions): Recorder {
  const { store, runId } = options;
  let chain: Promise<void> = Promise.resolve();
  let warn: RunEventSink = () => undefined;
  let lastCheckpoint = 0;
  let waiting = false;

  const enqueue = (what: string, work: () => Promise<unknown>): void => {
    chain = chain.then(work).then(
      () => undefined,
      (error: unknown) => {
        const message = `store: ${what}: ${(error as Error).message}`;
        warn({ type: 'warning', time: options.now(), message });
      },
    );
  };

  // Events are written on the next turn of the event loop, i.e. while the next agent already runs: they stay
  // in order but off the critical path between two iterations. Rows (the truth for totals) are not deferred.
  const eventQueue: NewEvent[] = [];
  let eventsScheduled: NodeJS.Immediate | null = null;
  const flushEvents = (): void => {
    eventsScheduled = null;
    for (const event of eventQueue.splice(0)) enqueue(`event ${event.type}`, () => store.appendEvent(event));
  };

  const pidPath = agentPidPath(options.workspace, runId);
  mkdirSync(dirname(pidPath), { recursive: true });
  // One descriptor for the whole run, overwritten in place with a fixed-width line: one pwrite per iteration
  // (creating a file per iteration cost more than the rest of the iteration's bookkeeping).
  const pidFd = openSync(pidPath, 'w');
  const heartbeat = setInterval(
    () =>
      enqueue('heartbeat', async () => {
        // Another process took the run over (it judged us dead): two drivers must never share a run.
        if (!(await store.heartbeat(runId, options.owner, options.now()))) options.onLostOwnership?.();
      }),
    HEARTBEAT_INTERVAL_MS,
  );
  heartbeat.unref();

  const persist = (e: RunEvent): void => {
    if (e.type !== 'agent_output') {
      const iteration = 'iteration' in e ? e.iteration : null;
      eventQueue.push({ run_id: runId, type: e.type, payload: e, at: e.time, iteration });
      eventsScheduled ??= setImmediate(flushEvents);
    }
    switch (e.type) {
      case 'iteration_started':
        if (waiting) {
          waiting = false;
          enqueue('status', () => store.updateRunStatus(runId, 'running', e.time));
        }
        break;
      case 'iteration_completed':
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
          }),
        );
        if (e.error_kind !== 'none' && e.error_message) {
          const message = e.error_message;
          enqueue('error', () => store.recordError({ run_id: runId, iteration: e.iteration, kind: e.error_kind, message, created_at: e.time }));
        }
        break;
      case 'waiting':
        waiting = true;
        enqueue('status', () => store.updateRunStatus(runId, 'waiting', e.time));
        break;
      case 'run_finished':
        enqueue('finish', () => store.finishRun(runId, { status: e.status, stop_reason: e.stop_reason, now: e.time }));
        break;
      default:
        break;
    }
  };

  const doCheckpoint = async (iteration: number): Promise<void> => {
    if (!options.gitEnabled || iteration === lastCheckpoint) return;
    lastCheckpoint = iteration;
    const at = options.now();
    try {
      let result;
      try {
        result = await checkpoint(options.agentDir, runId, iteration);
      } catch (error) {
        // A git killed mid-commit (a crash of an earlier ringmaster) leaves index.lock behind: clear it once.
        if (!String((error as Error).message).includes('index.lock') || (await clearStaleIndexLock(options.agentDir)) === null) throw error;
        warn({ type: 'warning', time: options.now(), message: 'removed a stale .git/index.lock left by a killed git process' });
        result = await checkpoint(options.agentDir, runId, iteration);
      }
      await store.recordCheckpoint({ run_id: runId, iteration, commit_sha: result.sha, state: result.committed ? 'committed' : 'unchanged', message: result.message, created_at: at });
    } catch (error) {
      await store.recordCheckpoint({ run_id: runId, iteration, commit_sha: null, state: 'failed', message: (error as Error).message, created_at: at });
      throw error;
    }
  };

  return {
    deps: {
      async beforeIteration(_runId, iteration, agent, logPath) {
        await chain;
        await store.startIteration({ run_id: runId, number: iteration, agent, started_at: options.now(), log_path: logPath });
      },
      onAgentSpawn(_runId, _iteration, pid) {
        writeSync(pidFd, `${String(pid).padEnd(11)}\n`, 0);
      },
      async afterIteration(_runId, iteration) {
        await chain;
        if (options.checkpointInterval > 0 && iteration % options.checkpointInterval === 0) await doCheckpoint(iteration);
      },
      async beforeFinish(_runId, state) {
        await chain;
        if (options.checkpointInterval > 0 && state.iteration > 0) await doCheckpoint(state.iteration);
      },
    },
    wrap(sink) {
      warn = sink;
      return (e) => {
        sink(e);
        persist(e);
      };
    },
    async close() {
      clearInterval(heartbeat);
      if (eventsScheduled) clearImmediate(eventsScheduled);
      flushEvents();
      await chain;
      // The agent's group is gone once the loop returns: a stale pid file could make a later resume or stop
      // SIGKILL an unrelated process group that reused the id.
      closeSync(pidFd);
      rmSync(agentPidPath(options.workspace, runId), { force: true });
    },
  };
}
