// One run and everything around its loop: workspace lock, store rows, recorder (events, heartbeat,
// checkpoints), its own stop / pause / interrupt handles. The CLI drives one; `ringmaster serve` hundreds
// in one process. Process signals are not its business: its owner turns them into interrupt().
import { hostname } from 'node:os';
import { isGitRepo } from '../git/index.js';
import { acquireLock, type HeldLock } from '../runner/lock.js';
import { createEventStream, type AgentActivitySink, type RunEvent, type RunEventBody, type RunEventSink, type RunEventStream } from '../runner/events.js';
import { killLeftoverAgent, killLeftoversOfStaleLock } from '../runner/leftover.js';
import { storeInbox } from '../runner/notes.js';
import { applyControl, type ControlAnswer } from './control-poller.js';
import { RunMailbox, type ControlRequest } from './run-mailbox.js';
import { createRunNotifier, type RunNotifierOptions } from './run-notifier.js';
import type { Notifier } from '../notify/notifier.js';
import { claimWhenIdle, unfinishedWait, type ClaimInfo } from './claim.js';

export { ClaimInterruptedError, type ClaimInfo } from './claim.js';
export type { ControlRequest } from './run-mailbox.js';
import type { IterationRunner } from '../runner/iteration.js';
import type { LoopProgram } from '../runner/program.js';
import { startLease } from '../runner/lease.js';
import { createChangeTracker } from '../runner/change-tracking.js';
import { createRecorder, type Recorder } from '../runner/recorder.js';
import { stateFromRows } from '../runner/resume-state.js';
import { abortableSleep, runLoop, type ResumePoint, type RunSummary } from '../runner/run-loop.js';
import { metaForStorage, specForStorage, type RunSpec } from '../spec/run-spec.js';
import { redactDeep, redactor, redactorOf, secretsOfProcess, type Redactor } from '../core/redact.js';
import { dataDir, iterationLogPath, workspaceKey, workspaceLockPath } from '../store/paths.js';
import { HEARTBEAT_INTERVAL_MS } from '../store/index.js';
import type { ClaimOptions, Owner, Store } from '../store/index.js';
import type { RunStatus } from '../core/types.js';
import { StoreUnusableError } from '../store/errors.js';
import { storeBudgetGate } from '../runner/budget-gate.js';
import { ensureReserve, releaseReserve } from '../store/reserve.js';

/** What a controller needs. */
export interface RunControllerOptions {
  store: Store;
  env: Readonly<Record<string, string | undefined>>;
  runId: string;
  spec: RunSpec;
  /** The user's workspace (where the run was started; runs are listed by its real path). */
  workspace: string;
  /** With --worktree: the worktree the agent works in, and its branch. No workspace lock is taken. */
  worktree?: { path: string; branch: string } | null;
  /** 'create': a new run row; 'claim': take over an existing row (a queued run, or resume after a crash or stop). */
  mode: 'create' | 'claim';
  program?: LoopProgram;
  owner?: Owner;
  now?: () => number;
  /** Receives every stamped event, in order (terminal, WebSocket). */
  onEvent?: RunEventSink;
  /** Receives live agent activity. */
  onActivity?: AgentActivitySink | null;
  /** A store write failed (shown, not stored). */
  onStoreError?: (message: string) => void;
  /** Notification delivery (tests: shorter retries and flush; default notify/deliver.ts and notifier.ts). */
  notify?: Pick<RunNotifierOptions, 'policy' | 'flushMs'>;
  /** With mode 'claim': told what was taken over before the loop starts. */
  onClaim?: (info: ClaimInfo) => void;
  /** Where iterations run (default: this thread; a server passes its worker pool). */
  runIteration?: IterationRunner;
  /** How often the owner renews its lease on the run (default HEARTBEAT_INTERVAL_MS). */
  heartbeatMs?: number;
  /** A lease renewal succeeded; `sentAt` is performance.now() when it was sent. */
  onRenewed?: (sentAt: number) => void;
  /**
   * With mode 'claim': take the run only once its owner has been silent `ifIdleMs` by the store's clock (a
   * takeover), waiting until then, and (onlyIfResumable) only if it can still go on; without these the claim is
   * unconditional (the caller knows the owner is gone).
   */
  claim?: ClaimOptions;
  /**
   * Runs once the run is ours (created or claimed, lease renewed from then on), before the loop: e.g. a worker's
   * clone. A program it returns is the run's (made from files of the prepared workspace).
   */
  prepare?: () => Promise<LoopProgram | undefined>;
}


/** Transient states a user sees between a request and its effect. */
export type Transition = 'pausing' | 'stopping' | null;

/** Drives one run. Create it, call run() once; control it from anywhere in the process meanwhile. */
export class RunController {
  readonly runId: string;
  readonly workspace: string;
  private readonly options: RunControllerOptions;
  private readonly now: () => number;
  /** Hides the secrets of the environment and of the agent's options in what is stored and shown (spec, events). */
  private readonly redact: Redactor;
  /** The run's one control channel: every pause, resume, stop, hand-over, interrupt and fatal error goes through it. */
  private readonly mailbox: RunMailbox;
  private stream: RunEventStream | null = null;
  private finished = false;
  private lastEvent: RunEvent | null = null;
  private recorder: Recorder | null = null;
  private waitingUntilMs: number | null = null;
  /** Said at the run's start: the leftovers of a dead run whose workspace lock this one took over, killed. */
  private staleLockWarning: string | null = null;
  /** The status the run was claimed with (the recorder starts from it). */
  private claimedStatus: RunStatus = 'running';

  constructor(options: RunControllerOptions) {
    this.options = options;
    this.runId = options.runId;
    this.workspace = workspaceKey(options.workspace);
    this.now = options.now ?? Date.now;
    this.mailbox = new RunMailbox(this.now, (body) => this.emit(body), () => this.finished);
    this.redact = redactorOf(secretsOfProcess([...(options.spec.agent.command ?? []), ...options.spec.agent.args], options.env));
  }

  /** pausing / stopping while a request has not taken effect yet. */
  get transition(): Transition {
    if (this.finished) return null;
    if (this.mailbox.stopping) return 'stopping';
    return this.mailbox.pausing ? 'pausing' : null;
  }

  /** True once the loop has paused at an iteration boundary (until resumed). */
  get paused(): boolean {
    return this.mailbox.paused;
  }

  /** True while its agent is frozen mid-iteration (pause --now). */
  get suspended(): boolean {
    return this.mailbox.suspension.suspended;
  }

  /** When a run waiting for a usage or rate limit goes on (epoch ms), or null when it is not waiting. */
  get waitingUntil(): number | null {
    return this.waitingUntilMs;
  }

  /** Events emitted but not yet written to the store, in order (a replay adds them to what the store has). */
  unstoredEvents(): RunEvent[] {
    return this.recorder?.unstored() ?? [];
  }

  /** The last event of the run so far (for live summaries). */
  get latestEvent(): RunEvent | null {
    return this.lastEvent;
  }

  /** Runs the loop to its end. Throws LockHeldError when the workspace is locked, UserError for bad input. */
  async run(): Promise<RunSummary> {
    const { store, spec, env } = this.options;
    const dir = dataDir(env);
    const owner = this.options.owner ?? { pid: process.pid, host: hostname() };
    let lock: HeldLock | null = null;
    if (!this.options.worktree) lock = await acquireLock(workspaceLockPath(dir, this.workspace), this.runId);
    try {
      this.staleLockWarning = killLeftoversOfStaleLock(dir, lock?.takenOver ?? null, this.runId);
      // Room to record the run's end should the disk fill up during it (store/reserve.ts).
      ensureReserve(dir);
      const program = this.options.program;
      let resume: ResumePoint | undefined;
      let lastSeq = 0;
      if (this.options.mode === 'create') {
        await store.createRun({
          id: this.runId,
          agent: spec.agent.name,
          kind: program?.kind ?? 'prompt',
          meta: metaForStorage(program?.metadata() ?? {}, redactor(this.options.env)),
          definition: program?.definition ? metaForStorage(program.definition(), redactor(this.options.env)) : null,
          spec: specForStorage(spec, redactor(this.options.env)),
          workspace: this.workspace,
          worktree: this.options.worktree?.path ?? null,
          branch: this.options.worktree?.branch ?? null,
          owner,
          now: this.now(),
        });
      } else {
        resume = await this.claim(dir, owner);
        lastSeq = await store.lastEventSeq(this.runId);
        // Written again as this process runs it (a resume may change it: a workflow's loops given more iterations).
        if (program?.definition) await store.updateRunDefinition(this.runId, metaForStorage(program.definition(), redactor(this.options.env)), this.now(), owner);
      }
      // The run is ours from here: the lease is renewed until the loop has ended and its writes are done.
      const lease = startLease({
        store,
        runId: this.runId,
        owner,
        intervalMs: this.options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS,
        now: this.now,
        ...(this.options.onRenewed ? { onRenewed: this.options.onRenewed } : {}),
        onLost: () => this.lostOwnership(),
      });
      try {
        const prepared = await this.options.prepare?.();
        return await this.drive(dir, owner, resume, lastSeq, prepared ?? this.options.program);
      } finally {
        lease.stop();
      }
    } finally {
      this.finished = true;
      await lock?.release();
    }
  }

  /** The loop with its recorder, once the run is ours; a run handed over is released for the next owner. */
  private async drive(dir: string, owner: Owner, resume: ResumePoint | undefined, lastSeq: number, program: LoopProgram | undefined): Promise<RunSummary> {
    const { store, spec, env } = this.options;
    const gitEnabled = await isGitRepo(spec.workspace);
    const changes = gitEnabled && spec.trackChanges !== false ? createChangeTracker({ discardFailed: spec.discardFailed === true }) : null;
    const storing = redactor(env);
    const recorder = createRecorder({
      store,
      runId: this.runId,
      dataDir: dir,
      agentDir: spec.workspace,
      owner,
      checkpointInterval: spec.checkpointInterval,
      ...(changes ? { trackedCheckpoint: (at: string, message: string) => changes.checkpoint(at, message) } : {}),
      status: this.claimedStatus,
      gitEnabled,
      now: this.now,
      emit: (body) => this.emit(body),
      freeSpace: () => releaseReserve(dir),
      onDiskFull: (message) => this.fail(message),
      onStoreError: (message, error) => {
        this.options.onStoreError?.(message);
        // A store that cannot be written any more (disk full, read-only, I/O error) cannot record the run:
        // it ends now, failed with that reason, rather than run on unrecorded.
        if (error instanceof StoreUnusableError && error.reason !== 'busy') this.fail(error.message);
      },
      onLostOwnership: () => this.lostOwnership(),
    });
    this.recorder = recorder;
    let notifier: Notifier | null = null;
    this.stream = createEventStream(this.runId, lastSeq, (event) => {
      this.lastEvent = event;
      if (event.type === 'waiting') this.waitingUntilMs = event.until;
      else if (event.type === 'iteration_started' || event.type === 'paused' || event.type === 'run_finished') this.waitingUntilMs = null;
      this.mailbox.observe(event);
      this.options.onEvent?.(event);
      recorder.record(event);
      notifier?.observe(event);
    });
    notifier = createRunNotifier({ runId: this.runId, spec, env, emit: (body) => this.emit(body), now: this.now, ...this.options.notify });
    let summary: RunSummary;
    try {
      summary = await runLoop(
        spec,
        {
          now: this.now,
          newRunId: () => this.runId,
          sleep: abortableSleep,
          env,
          onEvent: (body) => this.emit(body),
          onActivity: this.options.onActivity ?? null,
          ...this.mailbox.deps(),
          startWarnings: [...(this.staleLockWarning === null ? [] : [this.staleLockWarning]), ...gitWarnings(spec, gitEnabled)],
          budgetGate: storeBudgetGate(store, spec.budgetPollMs),
          notes: storeInbox(store, this.runId),
          ...(changes ? { changes } : {}),
          ...(program ? { program } : {}),
          logPath: (id, n) => iterationLogPath(dir, id, n),
          ...(this.options.runIteration ? { runIteration: this.options.runIteration } : {}),
          ...recorder.deps,
          onMetadata: (meta) => recorder.deps.onMetadata?.(metaForStorage(meta, storing)),
        },
        resume,
      );
    } finally {
      this.finished = true;
      this.mailbox.releaseWaiters();
      // Deliveries still going get a bounded time (their events are recorded), never the run's exit held long.
      await notifier?.flush();
      await changes?.close();
      await recorder.close();
    }
    // Handed over at an iteration boundary: the run goes on (status unchanged) with whoever claims it next.
    if (summary.handedOver) await store.releaseRun(this.runId, owner, this.now());
    return summary;
  }

  /**
   * Takes one control request: the one way in for every pause, resume, stop, extension, hand-over, interrupt and
   * fatal error, wherever it comes from (the API, a control request in the store, the CLI's signals, a worker).
   */
  control(request: ControlRequest): ControlAnswer {
    return request.kind === 'extend' ? this.extend(request.iterations, request.by) : this.mailbox.post(request);
  }

  /**
   * Asks the run to pause at the next iteration boundary; with `now`, suspends its running agent at once
   * (SIGSTOP of its process group, timers held) instead. Without an agent running, `now` is a pause.
   */
  requestPause(by: string | null, now = false): ControlAnswer {
    return this.control({ kind: 'pause', by, now });
  }

  /** Resumes a paused run, or cancels a pause that has not taken effect yet. */
  requestResume(by: string | null): ControlAnswer {
    return this.control({ kind: 'resume', by });
  }

  /** Stops the run: the agent's process group is killed now, the iteration recorded, the run ends `stopped`. */
  requestStop(by: string | null): ControlAnswer {
    return this.control({ kind: 'stop', by });
  }

  /** Raises the iteration limit by `iterations` (an unlimited run stays unlimited); stored with the run's spec. */
  extend(iterations: number, by: string | null): ControlAnswer {
    if (this.finished) return 'not_running';
    const limits = this.options.spec.limits;
    if (limits.maxIterations === null) return 'already';
    limits.maxIterations += iterations;
    this.emit({ type: 'limits_changed', time: this.now(), max_iterations: limits.maxIterations, by });
    void this.options.store.updateRunSpec(this.runId, specForStorage(this.options.spec, redactor(this.options.env)), this.now()).catch((error: unknown) => this.options.onStoreError?.(`store: spec: ${(error as Error).message}`));
    return 'accepted';
  }

  /**
   * Ends the run as failed (fatal_error) with `message`: its agent is stopped like for a stop request. For what
   * the run cannot survive, such as a store that can no longer be written.
   */
  fail(message: string): void {
    this.control({ kind: 'fail', message });
  }

  /** Adds a warning to the run's events (e.g. how long its writes waited for a locked database). */
  warn(message: string): void {
    if (!this.finished) this.emit({ type: 'warning', time: this.now(), message });
  }

  /** Interrupts the run (process shutdown, Ctrl+C): like a stop, but recorded as `interrupted` (resumable). */
  interrupt(): void {
    this.control({ kind: 'interrupt' });
  }

  /**
   * Ends the loop at the next iteration boundary without ending the run: its owner row is released and its
   * status kept, so the next owner (a worker's continuation job) claims it at once. A stop wins; a pause is
   * taken first, and the paused run is handed over (it stays paused); a wait for a usage limit is cut short
   * (the next owner goes on waiting until the same time).
   */
  requestHandOver(): void {
    this.control({ kind: 'hand_over' });
  }

  /** Another process owns the run now (a takeover after our lease ran out): stop here, write nothing more. */
  private lostOwnership(): void {
    if (this.mailbox.signal.aborted) return;
    this.emit({ type: 'warning', time: this.now(), message: `run ${this.runId} was taken over by another process: stopping here` });
    this.interrupt();
  }

  private emit(body: RunEventBody): void {
    // Before it is numbered: the terminal, the store and the WebSocket see the same redacted event.
    if (this.stream) this.stream.emit(redactDeep(body, this.redact));
  }

  private async claim(dir: string, owner: Owner): Promise<ResumePoint> {
    const { store } = this.options;
    const leftoverKilled = killLeftoverAgent(dir, this.runId);
    const killedAt = this.now();
    const claim = await claimWhenIdle(store, this.runId, owner, { options: { ...this.options.claim, ...(leftoverKilled !== null ? { agentRanUntil: killedAt } : {}) }, now: this.now, signal: this.mailbox.signal });
    this.claimedStatus = claim.run.status;
    for (const request of await store.pendingControls(this.runId)) {
      // Requests addressed to a previous owner are void: a stop sent before a crash must not stop the resumed run.
      // A run nobody drove (queued for workers, or handed over) gets the requests made meanwhile: they were for us.
      const answer = claim.previous === null ? applyControl(this, request) : `expired: run claimed by pid ${owner.pid} on ${owner.host}`;
      await store.markControlHandled(request.id, this.now(), answer);
    }
    const { state, lastSessionId } = stateFromRows(await store.listIterations(this.runId), this.now());
    this.options.onClaim?.({ iterations: state.iteration, costUsd: state.totalCostUsd, costUnknown: state.costUnknown, interrupted: claim.interrupted, leftoverKilled });
    return { runId: this.runId, state, lastSessionId, wait: await unfinishedWait(store, this.runId, this.now()) };
  }
}

/** What a workspace outside git turns off: checkpoints, and the no-progress guard (it counts changed files). */
function gitWarnings(spec: RunSpec, gitEnabled: boolean): string[] {
  if (gitEnabled) return [];
  const off = [spec.checkpointInterval > 0 ? 'checkpoints are off' : null, (spec.noProgressAfter ?? 0) > 0 ? '--no-progress-after is ignored (it counts the files each iteration changed)' : null];
  return off.filter((w) => w !== null).map((w) => `${spec.workspace} is not a git repository: ${w}`);
}
