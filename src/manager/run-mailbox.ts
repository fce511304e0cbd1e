// The one control channel of a run driven by a RunController: every request (pause, pause now, resume, stop, a
// note, hand over, interrupt, a fatal error) is posted here as a ControlRequest, from wherever it comes (the API, the CLI's
// signals, a control request in the store, a worker's job). The loop reads what is pending as RunDeps' controls
// (runner/run-controls.ts reads them as one snapshot); `extend` changes the spec and stays with the controller.
import { createSuspendSwitch, type SuspendSwitch } from '../agents/suspend-signal.js';
import type { RunEvent, RunEventBody } from '../runner/events.js';
import type { RunDeps } from '../runner/run-deps.js';
import type { ControlAnswer, StoredControl } from './control-poller.js';

/**
 * One control request to a run: those a user makes (StoredControl: pause, with `now` a suspension of the running
 * agent; resume; stop; extend, which raises the iteration limit; a note, recorded as note_added), and those of the process that drives it.
 */
export type ControlRequest =
  | StoredControl
  /** End the loop at the next boundary without ending the run (its next owner goes on). */
  | { kind: 'hand_over' }
  /** Interrupt (shutdown, Ctrl+C, the run taken over): like a stop, recorded as `interrupted` (resumable). */
  | { kind: 'interrupt' }
  /** End the run failed (fatal_error) with `message`: what it cannot survive (a store that cannot be written). */
  | { kind: 'fail'; message: string };

/** The pending control requests of one run, and the handles the loop waits on. */
export class RunMailbox {
  private readonly interruptController = new AbortController();
  /** Aborted (and replaced) when a pause or stop request must wake the loop from a sleep. */
  private wakeController = new AbortController();
  private resumeWaiters: Array<() => void> = [];
  private stopBy: string | null | undefined = undefined;
  private pauseRequest: { by: string | null } | null = null;
  private isPaused = false;
  private handOverRequested = false;
  /** Why the run cannot go on (the store or the disk cannot be written): it ends failed with this message. */
  private fatal: string | null = null;
  /** The iteration started last (0 before the first). */
  private lastStarted = 0;
  /** Suspends the running agent (`pause --now`). */
  readonly suspension: SuspendSwitch;

  constructor(
    private readonly now: () => number,
    private readonly emit: (body: RunEventBody) => void,
    /** True once the run has ended: requests are then answered `not_running`. */
    private readonly finished: () => boolean,
  ) {
    this.suspension = createSuspendSwitch(now);
  }

  /** Aborted when the run is interrupted, stopped or failed. */
  get signal(): AbortSignal {
    return this.interruptController.signal;
  }

  /** A stop was requested (not yet taken effect, or taken). */
  get stopping(): boolean {
    return this.stopBy !== undefined;
  }

  /** A pause was requested and has not taken effect yet. */
  get pausing(): boolean {
    return this.pauseRequest !== null && !this.isPaused;
  }

  /** True once the loop has paused at an iteration boundary (until resumed). */
  get paused(): boolean {
    return this.isPaused;
  }

  /** Follows the run's events: the loop's pauses and resumptions, the iteration started last. */
  observe(event: RunEvent): void {
    if (event.type === 'iteration_started') this.lastStarted = event.iteration;
    if (event.type === 'paused') this.isPaused = true;
    if (event.type === 'resumed') this.isPaused = false;
  }

  /** Takes one request (all but `extend`, which is the controller's); the answer to give. */
  post(request: Exclude<ControlRequest, { kind: 'extend' }>): ControlAnswer {
    switch (request.kind) {
      case 'pause':
        return this.pause(request.by, request.now === true);
      case 'resume':
        return this.resume();
      case 'stop':
        return this.stop(request.by);
      case 'note':
        // The note waits in the store; the next iteration that starts claims it (runner/notes.ts).
        if (this.finished()) return 'not_running';
        this.emit({ type: 'note_added', time: this.now(), note_id: request.note.id, text: request.note.text, by: request.note.by });
        return 'accepted';
      case 'hand_over':
        this.handOverRequested = true;
        this.wake();
        if (this.isPaused) this.releaseWaiters();
        return 'accepted';
      case 'interrupt':
        this.interruptController.abort();
        this.releaseWaiters();
        return 'accepted';
      case 'fail':
        if (this.finished()) return 'not_running';
        this.fatal ??= request.message;
        this.interruptController.abort();
        this.releaseWaiters();
        return 'accepted';
    }
  }

  /** The controls as the loop reads them (RunDeps). */
  deps(): Pick<RunDeps, 'signal' | 'stopRequested' | 'wakeSignal' | 'pause' | 'handOver' | 'fatalError'> {
    return {
      signal: this.interruptController.signal,
      stopRequested: () => this.stopBy !== undefined,
      wakeSignal: () => this.waker(),
      pause: { requested: () => this.pauseRequest, waitUntilResumed: () => this.waitUntilResumed(), suspend: this.suspension },
      handOver: () => this.handOverRequested && this.stopBy === undefined && (this.pauseRequest === null || this.isPaused),
      fatalError: () => this.fatal,
    };
  }

  /** The run has ended: nothing waits for a resume any more. */
  releaseWaiters(): void {
    const waiters = this.resumeWaiters;
    this.resumeWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private pause(by: string | null, now: boolean): ControlAnswer {
    if (this.finished() || this.stopBy !== undefined) return 'not_running';
    if (now && this.suspension.attached && !this.suspension.suspended && this.resumeWaiters.length === 0) {
      // A pause already asked for (pausing) becomes a suspension.
      this.pauseRequest ??= { by };
      this.emit({ type: 'pause_requested', time: this.now(), by, now: true });
      this.suspension.set(true);
      this.emit({ type: 'paused', time: this.now(), after_iteration: Math.max(0, this.lastStarted - 1), by, suspended: true });
      return 'accepted';
    }
    if (this.pauseRequest !== null) return 'already';
    this.pauseRequest = { by };
    this.emit({ type: 'pause_requested', time: this.now(), by, now: false });
    this.wake();
    return 'accepted';
  }

  private resume(): ControlAnswer {
    if (this.finished() || this.stopBy !== undefined) return 'not_running';
    if (this.pauseRequest === null) return 'already';
    this.pauseRequest = null;
    if (this.suspension.suspended) {
      const pausedMs = this.suspension.currentMs();
      this.suspension.set(false);
      // The agent goes on where it was, unless its iteration ended meanwhile and the loop waits at a boundary.
      if (this.resumeWaiters.length === 0) {
        this.emit({ type: 'resumed', time: this.now(), paused_ms: pausedMs });
        return 'accepted';
      }
    }
    if (this.isPaused) this.releaseWaiters();
    else this.emit({ type: 'resumed', time: this.now(), paused_ms: 0 });
    return 'accepted';
  }

  private stop(by: string | null): ControlAnswer {
    if (this.finished()) return 'not_running';
    if (this.stopBy !== undefined) return 'already';
    this.stopBy = by;
    this.emit({ type: 'stop_requested', time: this.now(), by });
    this.interruptController.abort();
    this.releaseWaiters();
    return 'accepted';
  }

  private waker(): AbortSignal {
    if (this.pauseRequest !== null || this.stopBy !== undefined) return AbortSignal.abort();
    return this.wakeController.signal;
  }

  private wake(): void {
    const current = this.wakeController;
    this.wakeController = new AbortController();
    current.abort();
  }

  private waitUntilResumed(): Promise<void> {
    if (this.pauseRequest === null || this.stopBy !== undefined || this.handOverRequested || this.interruptController.signal.aborted) return Promise.resolve();
    // A paused run has no timer or child process of its own: keep the process alive until it is resumed.
    const keepAlive = setInterval(() => undefined, 60 * 60 * 1000);
    return new Promise<void>((resolve) => this.resumeWaiters.push(resolve)).finally(() => clearInterval(keepAlive));
  }
}
