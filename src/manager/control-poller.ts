// Picks up control requests (pause / resume / stop written to the store by any process) for the runs this
// process owns, within one poll interval, and answers each one. One poller per process, whatever its runs.
import type { ControlRow, Store } from '../store/index.js';
import type { ControlAnswer } from './run-controller.js';

/** What the poller needs of a run it dispatches to. */
export interface ControlTarget {
  readonly runId: string;
  requestPause(by: string | null, now?: boolean): ControlAnswer;
  requestResume(by: string | null): ControlAnswer;
  requestStop(by: string | null): ControlAnswer;
  extend(iterations: number, by: string | null): ControlAnswer;
}

/** Default poll interval: a request is picked up well within a second. */
export const CONTROL_POLL_MS = 250;

/** Polls the store for control requests addressed to registered runs. */
export class ControlPoller {
  private readonly targets = new Map<string, ControlTarget>();
  private timer: NodeJS.Timeout | null = null;
  private busy = false;

  constructor(
    private readonly store: Store,
    private readonly options: { intervalMs?: number; now?: () => number; onError?: (error: Error) => void } = {},
  ) {}

  /** Starts dispatching requests for this run; returns the unregister function. */
  register(target: ControlTarget): () => void {
    this.targets.set(target.runId, target);
    this.start();
    return () => {
      if (this.targets.get(target.runId) === target) this.targets.delete(target.runId);
    };
  }

  /** Stops polling. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One poll: answers every pending request of a registered run. */
  async poll(): Promise<void> {
    if (this.busy || this.targets.size === 0) return;
    this.busy = true;
    try {
      for (const request of await this.store.pendingControls()) {
        const target = this.targets.get(request.run_id);
        if (!target) continue;
        const answer = apply(target, request);
        await this.store.markControlHandled(request.id, (this.options.now ?? Date.now)(), answer);
      }
    } catch (error) {
      this.options.onError?.(error as Error);
    } finally {
      this.busy = false;
    }
  }

  private start(): void {
    if (this.timer) return;
    // Not unref'd: a paused run waits only for this poller, and the process must stay alive for it.
    this.timer = setInterval(() => void this.poll(), this.options.intervalMs ?? CONTROL_POLL_MS);
  }
}

function apply(target: ControlTarget, request: ControlRow): ControlAnswer | 'invalid_request' {
  switch (request.action) {
    case 'pause':
      return target.requestPause(request.requested_by, request.options.now === true);
    case 'resume':
      return target.requestResume(request.requested_by);
    case 'stop':
      return target.requestStop(request.requested_by);
    case 'extend': {
      const n = request.options.iterations;
      return typeof n === 'number' && Number.isInteger(n) && n > 0 ? target.extend(n, request.requested_by) : 'invalid_request';
    }
  }
}
