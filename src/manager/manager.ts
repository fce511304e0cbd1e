// The loop manager (docs/manager.md): many runs in one process, each its own RunController, at most max_concurrent at
// once (the rest wait as `pending`, first in first out), controlled from anywhere. It also sees and controls the
// runs other processes drive (through the store), and after a restart resumes the runs it was driving.
// Its parts: the queue (run-queue.ts, queued-control.ts), starting runs (run-starter.ts), new runs (create-run.ts),
// control wherever a run is (control-run.ts), runs nobody drives (adopt.ts); what they share: manager-context.ts.
import { hostname } from 'node:os';
import type { RunStatus } from '../core/types.js';
import type { RunEvent } from '../runner/events.js';
import type { ControlAction, NoteRow } from '../store/index.js';
import { IterationPool, iterationWorkersAvailable } from '../runner/iteration-pool.js';
import { recoverRuns } from './adopt.js';
import { ControlPoller } from './control-poller.js';
import { controlRun, type ControlOptions } from './control-run.js';
import { createRun } from './create-run.js';
import { ManagerError } from './errors.js';
import { broadcast, owns, probe, transitionOf, type ManagerContext } from './manager-context.js';
import type { ControlOutcome, ManagerOptions } from './manager-options.js';
import { addNote } from './notes.js';
import { registerBuiltInProgramKinds } from './program-kinds.js';
import type { Transition } from './run-controller.js';
import type { RunRequest } from './run-request.js';
import { RunQueue } from './run-queue.js';
import { managerStats, type ManagerStats } from './stats.js';

export type { ManagerStats } from './stats.js';
export type { ControlOutcome, ManagerOptions } from './manager-options.js';

/** The loop manager of one process. */
export class LoopManager {
  private readonly ctx: ManagerContext;

  constructor(options: ManagerOptions) {
    const poller = new ControlPoller(options.store, { onError: (error) => options.log?.(`control requests: ${error.message}`) });
    const threads = options.iterationThreads ?? 2;
    this.ctx = {
      options,
      owner: options.owner ?? { pid: process.pid, host: hostname() },
      now: options.now ?? Date.now,
      origin: options.origin ?? 'server',
      queue: new RunQueue(poller),
      active: new Map(),
      poller,
      pool: threads > 0 && iterationWorkersAvailable() ? new IterationPool(threads) : null,
      accepting: true,
    };
    // Stored runs of every kind (workflows...) can be continued here.
    registerBuiltInProgramKinds();
  }

  /** How many helper processes run the agents (0 when they run in this process). */
  get iterationThreads(): number {
    return this.ctx.pool === null ? 0 : (this.ctx.options.iterationThreads ?? 2);
  }

  /** The configured concurrency limit. */
  get maxConcurrent(): number {
    return this.ctx.options.maxConcurrent;
  }

  /** True when this process drives (or queues) the run. */
  owns(runId: string): boolean {
    return owns(this.ctx, runId);
  }

  /** pausing / stopping while a request has not taken effect yet (runs driven here). */
  transition(runId: string): Transition {
    return transitionOf(this.ctx, runId);
  }

  /** True while a run this process drives is paused with its agent frozen mid-iteration (pause --now). */
  suspended(runId: string): boolean {
    return this.ctx.active.get(runId)?.controller.suspended ?? false;
  }

  /** A run's place (1 = next to start) in this process's queue of pending runs that are not held by a pause, or null. */
  queuePosition(runId: string): number | null {
    return this.ctx.queue.position(runId);
  }

  /** Until when a run driven here waits for a usage or rate limit (epoch ms), or null. */
  waitingUntil(runId: string): number | null {
    return this.ctx.active.get(runId)?.controller.waitingUntil ?? null;
  }

  /** The events of a run driven here that are emitted but not stored yet (for gap-free replays). */
  unstoredEvents(runId: string): RunEvent[] {
    return this.ctx.active.get(runId)?.controller.unstoredEvents() ?? [];
  }

  /** Adds a warning to the events of every run driven here (e.g. how long their writes waited for a locked database). */
  warnAll(message: string): void {
    for (const { controller } of this.ctx.active.values()) controller.warn(message);
  }

  /** Validates a request like `ringmaster run` and queues the run; it starts at once when a slot is free. */
  async createRun(request: RunRequest): Promise<{ id: string; status: RunStatus }> {
    return createRun(this.ctx, request);
  }

  /** Adds a note to a run wherever it is driven (docs/notes.md); throws ManagerError (not_found, invalid_request). */
  async addNote(runId: string, text: string, by: string | null): Promise<NoteRow> {
    const { store, env } = this.ctx.options;
    const run = await store.getRun(runId);
    if (!run) throw new ManagerError('not_found', `no run ${runId}`);
    const ctx = { store, env, now: this.ctx.now(), by, broadcast: (events: readonly RunEvent[]) => broadcast(this.ctx, events) };
    return (await addNote(ctx, run, text, this.ctx.active.get(runId)?.controller)).note;
  }

  /**
   * Pause, resume, stop or extend (raise the iteration limit by `iterations`) a run, wherever it is driven. Resume of
   * a run nobody drives continues it here; extending a run that ended at its iteration limit continues it too.
   * A pause with `now` suspends the running agent at once (SIGSTOP) instead of waiting for its iteration to end.
   */
  async control(runId: string, action: ControlAction, by: string | null, options: ControlOptions = {}): Promise<ControlOutcome> {
    return controlRun(this.ctx, runId, action, by, options);
  }

  /** LoopManagerStats over the active runs in the store, plus this process's share and today's spend. */
  stats(): Promise<ManagerStats> {
    const { ctx } = this;
    return managerStats(ctx.options.store, { probe: probe(ctx), owns: (id) => owns(ctx, id), now: ctx.now(), maxConcurrent: ctx.options.maxConcurrent, driving: ctx.active.size });
  }

  /** After a restart: the runs this manager's origin was driving come back (or are marked to resume by hand). */
  async recover(): Promise<{ resumed: string[]; marked: string[] }> {
    return recoverRuns(this.ctx);
  }

  /** Stops accepting runs and interrupts every run driven here (each resumable); resolves when all have ended. */
  async shutdown(): Promise<void> {
    const { ctx } = this;
    ctx.accepting = false;
    for (const { controller } of ctx.active.values()) controller.control({ kind: 'interrupt' });
    await Promise.all([...ctx.active.values()].map((a) => a.done));
    ctx.poller.stop();
    await ctx.pool?.close();
  }
}
