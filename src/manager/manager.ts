// The loop manager (docs/manager.md): many runs in one process, each its own RunController, at most max_concurrent at
// once (the rest wait as `pending`, first in first out), controlled from anywhere. It also sees and controls the
// runs other processes drive (through the store), and after a restart resumes the runs it was driving.
import type { DisplayStatus } from '../store/liveness.js';
import { hostname } from 'node:os';
import { newRunId } from '../core/ids.js';
import type { RunStatus } from '../core/types.js';
import type { AgentActivity, RunEvent, RunEventBody } from '../runner/events.js';
import type { LoopProgram } from '../runner/program.js';
import { metaForStorage, metaFromStorage, specForStorage, specFromStorage, type RunSpec } from '../spec/run-spec.js';
import { parseStoredSpec } from '../spec/stored-spec.js';
import { redactDeep, redactor } from '../core/redact.js';
import { appendEventBodies } from '../runner/standalone-events.js';
import { ACTIVE_STATUSES, isOrphaned, isQueued, type LivenessProbe } from '../store/liveness.js';
import { workspaceKey } from '../store/paths.js';
import type { ControlAction, NoteRow, Owner, RunRow, Store } from '../store/index.js';
import { addNote } from './notes.js';
import { IterationPool, iterationWorkersAvailable } from '../runner/iteration-pool.js';
import { controlRemote, controlWorkerQueue, type ElsewhereContext } from './control-elsewhere.js';
import { ControlPoller } from './control-poller.js';
import { localProbe } from './local-probe.js';
import { closeOrphanedRun } from './orphans.js';
import { ManagerError } from './errors.js';
import { asRequestError, resolveNewRun } from './new-run.js';
import { registerBuiltInProgramKinds } from './program-kinds.js';
import { programForRun } from './programs.js';
import { RunController, type Transition } from './run-controller.js';
import type { AddedNote, ControlAnswer } from './control-poller.js';
import { managerStats, type ManagerStats } from './stats.js';
import type { RunRequest } from './run-request.js';
import { recordQueuedRun, resolveRepositoryRun } from './repository-run.js';
import { placeInWorktree } from './worktree-run.js';

export type { ManagerStats } from './stats.js';

/** What the manager needs. */
export interface ManagerOptions {
  store: Store;
  env: Readonly<Record<string, string | undefined>>;
  maxConcurrent: number;
  /** After a restart: resume the runs this manager was driving (true), or mark them stopped/interrupted. */
  resumeOnStart: boolean;
  owner?: Owner;
  now?: () => number;
  /** Every event of the runs driven here, as emitted (WebSocket fan-out). */
  onEvent?: (event: RunEvent) => void;
  /** Live agent activity of the runs driven here. */
  onActivity?: (runId: string, activity: AgentActivity) => void;
  /** Problems worth a line in the server's log (store write failures, recovery). */
  log?: (message: string) => void;
  /** Worker threads that run the agents (0: in this thread). Default 2 when the compiled worker is available. */
  iterationThreads?: number;
  /**
   * Workers drive the runs (`serve --workers external`): a run ready to start is handed to this (queued as a job)
   * instead of being started here; max_concurrent is the workers' global limit then, not this process's.
   */
  dispatch?: (runId: string) => Promise<void>;
  /**
   * The origin of the runs this manager creates, and the only ones it resumes after a restart (default
   * `server`). Servers sharing one database each need their own (`serve` uses `server@<host>` with PostgreSQL),
   * so that one server's restart never adopts another's runs.
   */
  origin?: string;
}

/** The answer to a control request made through the manager. */
export interface ControlOutcome {
  id: string;
  action: ControlAction;
  /** accepted | already | not_running | requested (sent to another process that has not answered yet). */
  answer: string;
  status: RunStatus | 'orphaned';
  transition: Transition;
}

interface Queued {
  spec: RunSpec;
  workspace: string;
  worktree: { path: string; branch: string } | null;
  program?: LoopProgram;
  /** Held back from the queue by a pause (a pending run that is paused does not start). */
  held: boolean;
  /** Comes back paused (it was paused when the previous server process ended). */
  startPaused: boolean;
}

interface Active {
  controller: RunController;
  done: Promise<void>;
}

/** The loop manager of one process. */
export class LoopManager {
  private readonly options: ManagerOptions;
  private readonly owner: Owner;
  private readonly now: () => number;
  private readonly queued = new Map<string, Queued>();
  /** Unregisters the control target of a queued run (requests from the CLI reach a queued run as the API's do). */
  private readonly queuedControl = new Map<string, () => void>();
  private readonly active = new Map<string, Active>();
  private readonly poller: ControlPoller;
  private readonly pool: IterationPool | null;
  private readonly origin: string;
  private accepting = true;

  constructor(options: ManagerOptions) {
    this.options = options;
    this.owner = options.owner ?? { pid: process.pid, host: hostname() };
    this.now = options.now ?? Date.now;
    this.origin = options.origin ?? 'server';
    this.poller = new ControlPoller(options.store, { onError: (error) => options.log?.(`control requests: ${error.message}`) });
    const threads = options.iterationThreads ?? 2;
    this.pool = threads > 0 && iterationWorkersAvailable() ? new IterationPool(threads) : null;
    // Stored runs of every kind (workflows...) can be continued here.
    registerBuiltInProgramKinds();
  }

  /** How many worker threads run the agents (0 when they run in this thread). */
  get iterationThreads(): number {
    return this.pool === null ? 0 : (this.options.iterationThreads ?? 2);
  }

  /** The configured concurrency limit. */
  get maxConcurrent(): number {
    return this.options.maxConcurrent;
  }

  /** True when this process drives (or queues) the run. */
  owns(runId: string): boolean {
    return this.active.has(runId) || this.queued.has(runId);
  }

  /** pausing / stopping while a request has not taken effect yet (runs driven here). */
  transition(runId: string): Transition {
    return this.active.get(runId)?.controller.transition ?? null;
  }

  /** True while a run this process drives is paused with its agent frozen mid-iteration (pause --now). */
  suspended(runId: string): boolean {
    return this.active.get(runId)?.controller.suspended ?? false;
  }

  /** A run's place (1 = next to start) in this process's queue of pending runs that are not held by a pause, or null. */
  queuePosition(runId: string): number | null {
    if (!this.queued.has(runId)) return null;
    let place = 0;
    for (const [id, q] of this.queued) {
      if (q.held) continue;
      place += 1;
      if (id === runId) return place;
    }
    return null;
  }

  /** Until when a run driven here waits for a usage or rate limit (epoch ms), or null. */
  waitingUntil(runId: string): number | null {
    return this.active.get(runId)?.controller.waitingUntil ?? null;
  }

  /** The events of a run driven here that are emitted but not stored yet (for gap-free replays). */
  unstoredEvents(runId: string): RunEvent[] {
    return this.active.get(runId)?.controller.unstoredEvents() ?? [];
  }

  /** Adds a warning to the events of every run driven here (e.g. how long their writes waited for a locked database). */
  warnAll(message: string): void {
    for (const { controller } of this.active.values()) controller.warn(message);
  }

  /** Validates a request like `ringmaster run` and queues the run; it starts at once when a slot is free. */
  async createRun(request: RunRequest): Promise<{ id: string; status: RunStatus }> {
    if (!this.accepting) throw new ManagerError('unavailable', 'the server is shutting down');
    if (request.repository !== undefined) return this.createRepositoryRun(request);
    const { dir, spec, program } = resolveNewRun(request, this.options.env);
    const key = workspaceKey(dir);
    if (!request.worktree) await this.assertWorkspaceFree(key);
    const id = newRunId(this.now(), Math.random);
    const worktree = request.worktree ? await placeInWorktree(dir, id, spec) : null;
    // For the workers: queued with no owner (a worker on this machine takes the workspace path as it is).
    const queued = this.options.dispatch !== undefined;
    await this.options.store.createRun({
      id,
      agent: spec.agent.name,
      kind: program?.kind ?? 'prompt',
      meta: metaForStorage(program?.metadata() ?? {}, redactor(this.options.env)),
      definition: program?.definition ? metaForStorage(program.definition(), redactor(this.options.env)) : null,
      spec: specForStorage(spec, redactor(this.options.env)),
      workspace: key,
      worktree: worktree?.path ?? null,
      branch: worktree?.branch ?? null,
      status: 'pending',
      origin: queued ? 'queue' : this.origin,
      owner: queued ? null : this.owner,
      now: this.now(),
    });
    this.queued.set(id, { spec, workspace: key, worktree: worktree ? { path: worktree.path, branch: worktree.branch } : null, ...(program ? { program } : {}), held: false, startPaused: false });
    this.answerWhileQueued(id);
    await this.announce(id, [{ type: 'run_queued', time: this.now(), position: this.waitingCount(), workspace: key, agent: spec.agent.name, label: spec.label }]);
    this.pump();
    return { id, status: this.active.has(id) ? 'running' : 'pending' };
  }

  /** A run on a repository and branch (`repository` instead of `workspace`): queued for the workers, which clone it. */
  private async createRepositoryRun(request: RunRequest): Promise<{ id: string; status: RunStatus }> {
    if (!this.options.dispatch) throw new ManagerError('invalid_request', "repository: runs on a repository are driven by workers: start the server with '--workers external'");
    const { spec, repository, branch } = asRequestError(() => resolveRepositoryRun(this.options.env, request));
    const id = newRunId(this.now(), Math.random);
    this.broadcast(await recordQueuedRun(this.options.store, this.options.env, { id, spec, repository, branch, now: this.now() }));
    await this.options.dispatch(id);
    return { id, status: 'pending' };
  }

  /** Adds a note to a run wherever it is driven (docs/notes.md); throws ManagerError (not_found, invalid_request). */
  async addNote(runId: string, text: string, by: string | null): Promise<NoteRow> {
    const run = await this.options.store.getRun(runId);
    if (!run) throw new ManagerError('not_found', `no run ${runId}`);
    const ctx = { store: this.options.store, env: this.options.env, now: this.now(), by, broadcast: (events: readonly RunEvent[]) => this.broadcast(events) };
    return (await addNote(ctx, run, text, this.active.get(runId)?.controller)).note;
  }

  /**
   * Pause, resume, stop or extend (raise the iteration limit by `iterations`) a run, wherever it is driven. Resume of
   * a run nobody drives continues it here; extending a run that ended at its iteration limit continues it too.
   * A pause with `now` suspends the running agent at once (SIGSTOP) instead of waiting for its iteration to end.
   */
  async control(runId: string, action: ControlAction, by: string | null, options: { iterations?: number; now?: boolean } = {}): Promise<ControlOutcome> {
    const iterations = options.iterations ?? 0;
    const now = options.now === true;
    if (action === 'extend' && (!Number.isInteger(iterations) || iterations < 1)) throw new ManagerError('invalid_request', 'iterations: expected a whole number of at least 1');
    const live = this.active.get(runId);
    if (live) {
      const request = action === 'extend' ? { kind: action, iterations, by } : action === 'pause' ? { kind: action, by, now } : { kind: action, by };
      return this.outcome(runId, action, live.controller.control(request));
    }
    const waiting = this.queued.get(runId);
    if (waiting) return this.controlQueued(runId, waiting, action, iterations);
    const run = await this.options.store.getRun(runId);
    if (!run) throw new ManagerError('not_found', `no run '${runId}'`);
    if (isQueued(run)) return this.outcome(runId, action, await controlWorkerQueue(this.elsewhere(), run, action, by, iterations));
    if (ACTIVE_STATUSES.includes(run.status) && !isOrphaned(run, this.probe())) return this.outcome(runId, action, await controlRemote(this.options.store, run, action, { by, iterations, now, requestedAt: this.now() }));
    switch (action) {
      case 'extend': {
        const spec = parseStoredSpec(run.id, run.spec);
        if (spec.limits.maxIterations === null) return this.outcome(runId, action, 'already');
        spec.limits.maxIterations += iterations;
        await this.options.store.updateRunSpec(runId, spec, this.now());
        if (run.stop_reason === 'max_iterations' || ACTIVE_STATUSES.includes(run.status)) await this.adopt({ ...run, spec }, false);
        return this.outcome(runId, action, 'accepted');
      }
      case 'pause':
        return this.outcome(runId, action, 'not_running');
      case 'stop':
        if (!ACTIVE_STATUSES.includes(run.status)) return this.outcome(runId, action, 'not_running');
        await closeOrphanedRun(this.options.store, this.options.env, run, this.owner, this.now());
        return this.outcome(runId, action, 'accepted');
      case 'resume':
        await this.adopt(run, false);
        return this.outcome(runId, action, 'accepted');
    }
  }

  /** LoopManagerStats over the active runs in the store, plus this process's share and today's spend. */
  stats(): Promise<ManagerStats> {
    return managerStats(this.options.store, { probe: this.probe(), owns: (id) => this.owns(id), now: this.now(), maxConcurrent: this.options.maxConcurrent, driving: this.active.size });
  }

  /** After a restart: the runs this manager's origin was driving come back (or are marked to resume by hand). */
  async recover(): Promise<{ resumed: string[]; marked: string[] }> {
    const probe = this.probe();
    const resumed: string[] = [];
    const marked: string[] = [];
    const candidates = await this.options.store.listRuns({ status: [...ACTIVE_STATUSES, 'stopped'] });
    for (const run of candidates.reverse()) {
      if (run.origin !== this.origin || this.owns(run.id)) continue;
      const orphaned = ACTIVE_STATUSES.includes(run.status) && isOrphaned(run, probe);
      const interrupted = run.status === 'stopped' && run.stop_reason === 'interrupted';
      if (!orphaned && !interrupted) continue;
      if (this.options.resumeOnStart) {
        try {
          await this.adopt(run, run.status === 'paused');
          resumed.push(run.id);
        } catch (error) {
          // It cannot continue here (a secret of its agent command is not in this environment): resumable by hand.
          this.options.log?.(`run ${run.id} not resumed: ${(error as Error).message}`);
          if (orphaned) await closeOrphanedRun(this.options.store, this.options.env, run, this.owner, this.now(), 'interrupted');
          marked.push(run.id);
        }
      } else if (orphaned) {
        await closeOrphanedRun(this.options.store, this.options.env, run, this.owner, this.now(), 'interrupted');
        marked.push(run.id);
      }
    }
    return { resumed, marked };
  }

  /** Stops accepting runs and interrupts every run driven here (each resumable); resolves when all have ended. */
  async shutdown(): Promise<void> {
    this.accepting = false;
    for (const { controller } of this.active.values()) controller.control({ kind: 'interrupt' });
    await Promise.all([...this.active.values()].map((a) => a.done));
    this.poller.stop();
    await this.pool?.close();
  }

  /** What the control of a run driven elsewhere needs. */
  private elsewhere(): ElsewhereContext {
    return { store: this.options.store, env: this.options.env, owner: this.owner, now: this.now(), broadcast: (events) => this.broadcast(events) };
  }

  private probe(): LivenessProbe {
    return localProbe(this.now());
  }

  private async assertWorkspaceFree(key: string): Promise<void> {
    const probe = this.probe();
    const busy = (await this.options.store.listRuns({ workspace: key, status: ACTIVE_STATUSES })).find((r) => !r.worktree && (!isOrphaned(r, probe) || this.owns(r.id)));
    if (busy) throw new ManagerError('conflict', `workspace ${key} already has an active run (${busy.id}, ${busy.status}); use a worktree or stop it first`);
  }

  private waitingCount(): number {
    return [...this.queued.values()].filter((q) => !q.held).length;
  }

  /** Takes over a run nobody drives (resume from the API, recovery): it is queued and continues here. */
  private async adopt(run: RunRow, startPaused: boolean): Promise<void> {
    if (!this.accepting) throw new ManagerError('unavailable', 'the server is shutting down');
    if (run.stop_reason === 'success_signal') throw new ManagerError('conflict', `run ${run.id} already completed: the agent signalled success`);
    if (this.options.dispatch) {
      // For the workers: an ended run is queued again (pending, no owner), a live or orphaned one as it is. The
      // worker that takes it puts its secrets back from its own environment.
      if (!ACTIVE_STATUSES.includes(run.status)) await this.options.store.updateRunStatus(run.id, 'pending', this.now());
      await this.options.dispatch(run.id);
      return;
    }
    // The stored spec has the secrets of its agent command redacted: they come back from this environment.
    const spec = asRequestError(() => specFromStorage(parseStoredSpec(run.id, run.spec), this.options.env));
    const meta = asRequestError(() => metaFromStorage(run.meta, this.options.env));
    const stored = await this.options.store.getRunDefinition(run.id);
    const definition = stored === null ? null : asRequestError(() => metaFromStorage(stored, this.options.env));
    const program = await programForRun({ ...run, meta }, spec, definition);
    // Queued from now on: whoever looks sees it pending (not still stopped or failed) until it is claimed.
    if (!startPaused) await this.options.store.updateRunStatus(run.id, 'pending', this.now());
    this.queued.set(run.id, {
      spec,
      workspace: run.workspace,
      worktree: run.worktree !== null ? { path: run.worktree, branch: run.branch ?? '' } : null,
      ...(program ? { program } : {}),
      held: false,
      startPaused,
    });
    this.answerWhileQueued(run.id);
    this.pump();
  }

  /**
   * While a run waits in this manager's queue, the control requests other processes write for it (`ringmaster
   * stop|pause|resume RUN`) are answered here as the API's are (controlQueued); its controller takes over once it starts.
   */
  private answerWhileQueued(runId: string): void {
    const act = (action: ControlAction, iterations = 0): ControlAnswer => {
      const q = this.queued.get(runId);
      if (!q) return 'not_running';
      if ((action === 'pause' && q.held) || (action === 'resume' && !q.held) || (action === 'extend' && q.spec.limits.maxIterations === null)) return 'already';
      this.controlQueued(runId, q, action, iterations).catch((error: unknown) => this.options.log?.(`run ${runId}: ${action}: ${(error as Error).message}`));
      return 'accepted';
    };
    this.queuedControl.get(runId)?.();
    this.queuedControl.set(runId, this.poller.register({ runId, control: (request) => (request.kind === 'note' ? this.noteWhileQueued(runId, request.note) : act(request.kind, request.kind === 'extend' ? request.iterations : 0)) }));
  }

  /** A note to a run waiting in this manager's queue: announced here (note_added); its first iteration claims it. */
  private noteWhileQueued(runId: string, note: AddedNote): ControlAnswer {
    if (!this.queued.has(runId)) return 'not_running';
    this.announce(runId, [{ type: 'note_added', time: this.now(), note_id: note.id, text: note.text, by: note.by }]).catch((error: unknown) => this.options.log?.(`run ${runId}: note: ${(error as Error).message}`));
    return 'accepted';
  }

  /** The run left the queue (started, handed to the workers, stopped): its controller (if any) answers from now on. */
  private leftQueue(runId: string): void {
    this.queued.delete(runId);
    this.queuedControl.get(runId)?.();
    this.queuedControl.delete(runId);
  }

  private async controlQueued(runId: string, queued: Queued, action: ControlAction, iterations: number): Promise<ControlOutcome> {
    const { store } = this.options;
    switch (action) {
      case 'extend':
        if (queued.spec.limits.maxIterations === null) return this.outcome(runId, action, 'already');
        queued.spec.limits.maxIterations += iterations;
        await store.updateRunSpec(runId, specForStorage(queued.spec, redactor(this.options.env)), this.now());
        return this.outcome(runId, action, 'accepted');
      case 'pause':
        if (queued.held) return this.outcome(runId, action, 'already');
        queued.held = true;
        await store.updateRunStatus(runId, 'paused', this.now());
        await this.announce(runId, [{ type: 'paused', time: this.now(), after_iteration: (await store.runTotals(runId)).last_iteration, by: null, suspended: false }]);
        return this.outcome(runId, action, 'accepted');
      case 'resume':
        if (!queued.held) return this.outcome(runId, action, 'already');
        queued.held = false;
        // Back at the end of the queue, first in first out among the runs waiting now.
        this.queued.delete(runId);
        this.queued.set(runId, queued);
        await store.updateRunStatus(runId, 'pending', this.now());
        await this.announce(runId, [{ type: 'resumed', time: this.now(), paused_ms: 0 }]);
        this.pump();
        return this.outcome(runId, action, 'accepted');
      case 'stop': {
        this.leftQueue(runId);
        const run = await store.getRun(runId);
        if (run) await closeOrphanedRun(store, this.options.env, run, this.owner, this.now(), 'user_stop', (events) => this.broadcast(events));
        return this.outcome(runId, action, 'accepted');
      }
    }
  }

  private async outcome(id: string, action: ControlAction, answer: string): Promise<ControlOutcome> {
    const run = await this.options.store.getRun(id);
    let status: DisplayStatus = run === null ? 'stopped' : isOrphaned(run, this.probe()) && !this.owns(id) ? 'orphaned' : run.status;
    // A run driven here is paused or not as its controller says (the store learns it at the recorder's next write).
    const controller = this.active.get(id)?.controller;
    if (controller && (status === 'running' || status === 'paused')) status = controller.paused ? 'paused' : 'running';
    return { id, action, answer, status, transition: this.transition(id) };
  }

  /** Appends events for a run nobody drives right now, and hands them to the fan-out. */
  private async announce(runId: string, bodies: RunEventBody[]): Promise<void> {
    this.broadcast(await appendEventBodies(this.options.store, runId, redactDeep(bodies, redactor(this.options.env))));
  }

  private broadcast(events: readonly RunEvent[]): void {
    for (const event of events) this.options.onEvent?.(event);
  }

  /** Starts queued runs while slots are free, oldest first (with workers: hands each to them). */
  private pump(): void {
    if (!this.accepting) return;
    const dispatch = this.options.dispatch;
    if (dispatch) {
      for (const [id, queued] of this.queued) {
        if (queued.held) continue;
        this.leftQueue(id);
        dispatch(id).catch((error: unknown) => this.options.log?.(`run ${id}: could not queue it for the workers: ${(error as Error).message}`));
      }
      return;
    }
    for (const [id, queued] of this.queued) {
      if (this.active.size >= this.options.maxConcurrent) return;
      if (queued.held) continue;
      this.leftQueue(id);
      this.start(id, queued);
    }
  }

  private start(id: string, queued: Queued): void {
    const controller = new RunController({
      store: this.options.store,
      env: this.options.env,
      runId: id,
      spec: queued.spec,
      workspace: queued.workspace,
      worktree: queued.worktree,
      mode: 'claim',
      ...(queued.program ? { program: queued.program } : {}),
      owner: this.owner,
      now: this.now,
      onEvent: (event) => this.options.onEvent?.(event),
      onActivity: this.options.onActivity ? (activity) => this.options.onActivity?.(id, activity) : null,
      onStoreError: (message) => this.options.log?.(`run ${id}: ${message}`),
      ...(this.pool ? { runIteration: this.pool.run } : {}),
    });
    if (queued.startPaused) controller.control({ kind: 'pause', by: 'restart' });
    const unregister = this.poller.register(controller);
    const done = controller
      .run()
      .then(
        () => undefined,
        async (error: unknown) => {
          // It never started (e.g. the workspace got locked by a terminal run meanwhile): it ends failed, with why.
          const message = error instanceof Error ? error.message : String(error);
          this.options.log?.(`run ${id} could not start: ${message}`);
          const run = await this.options.store.getRun(id);
          // Never a run that another process has taken meanwhile: only one nobody holds, or we hold.
          const ours = run !== null && (run.owner_pid === null || (run.owner_pid === this.owner.pid && run.owner_host === this.owner.host));
          if (run && ours && ACTIVE_STATUSES.includes(run.status)) {
            await closeOrphanedRun(this.options.store, this.options.env, run, this.owner, this.now(), 'fatal_error', (events) => this.broadcast(events), message);
          }
        },
      )
      .catch((error: unknown) => this.options.log?.(`run ${id}: ${(error as Error).message}`))
      .finally(() => {
        unregister();
        this.active.delete(id);
        this.pump();
      });
    this.active.set(id, { controller, done });
  }
}
