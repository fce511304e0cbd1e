// Picks up control requests (pause / resume / stop written to the store by any process) for the runs this
// process owns and answers each one. One poller per process, whatever its runs. With PostgreSQL a notification
// wakes it the moment a request is written; polling stays as the fallback (and is all SQLite has).
import { isWatchable } from '../store/index.js';
import type { ControlRow, Store, Subscription } from '../store/index.js';

/** How a run answers a control request: done, nothing to do (already so), or the run is not running here. */
export type ControlAnswer = 'accepted' | 'already' | 'not_running';

/** A control request a run takes from the store (the run controller's one control channel: run-mailbox.ts). */
export type StoredControl =
  | { kind: 'pause'; by: string | null; now?: boolean }
  | { kind: 'resume'; by: string | null }
  | { kind: 'stop'; by: string | null }
  | { kind: 'extend'; iterations: number; by: string | null }
  /** A note was written to the run (docs/notes.md): its owner records note_added; the note waits in the store. */
  | { kind: 'note'; note: AddedNote };

/** A new note as its control request carries it. */
export interface AddedNote {
  id: number;
  text: string;
  by: string | null;
}

/** What the poller needs of a run it dispatches to: the one entry of its control requests. */
export interface ControlTarget {
  readonly runId: string;
  control(request: StoredControl): ControlAnswer;
}

/** Default poll interval: a request is picked up well within a second. */
export const CONTROL_POLL_MS = 250;

/** Poll interval when the store announces requests (a safety net in case a notification is lost). */
export const CONTROL_FALLBACK_POLL_MS = 2000;

/** Polls the store for control requests addressed to registered runs. */
export class ControlPoller {
  private readonly targets = new Map<string, ControlTarget>();
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  private again = false;
  private subscription: Promise<Subscription | null> | null = null;

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

  /** Stops polling and listening. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const subscription = this.subscription;
    this.subscription = null;
    void subscription?.then((s) => s?.close());
  }

  /** One poll: answers every pending request of a registered run (once more if woken meanwhile). */
  async poll(): Promise<void> {
    if (this.targets.size === 0) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    try {
      do {
        this.again = false;
        for (const request of await this.store.pendingControls()) {
          const target = this.targets.get(request.run_id);
          if (!target) continue;
          const answer = applyControl(target, request);
          await this.store.markControlHandled(request.id, (this.options.now ?? Date.now)(), answer);
        }
      } while (this.again);
    } catch (error) {
      this.options.onError?.(error as Error);
    } finally {
      this.busy = false;
    }
  }

  private start(): void {
    if (this.timer) return;
    const watchable = isWatchable(this.store);
    // Not unref'd: a paused run waits only for this poller, and the process must stay alive for it.
    this.timer = setInterval(() => void this.poll(), this.options.intervalMs ?? (watchable ? CONTROL_FALLBACK_POLL_MS : CONTROL_POLL_MS));
    if (watchable) {
      this.subscription = this.store
        .watch('control', () => void this.poll(), () => void this.poll())
        .catch((error: unknown) => {
          this.options.onError?.(error as Error);
          return null;
        });
    }
  }
}

/** Hands one request to its run; the answer to store. */
export function applyControl(target: ControlTarget, request: ControlRow): ControlAnswer | 'invalid_request' {
  const control = storedControl(request);
  return control === null ? 'invalid_request' : target.control(control);
}

/** A stored request as a control request, or null when it is invalid (an extension by no whole number, a note without its id and text). */
function storedControl(request: ControlRow): StoredControl | null {
  const by = request.requested_by;
  switch (request.action) {
    case 'pause':
      return { kind: 'pause', by, now: request.options.now === true };
    case 'resume':
    case 'stop':
      return { kind: request.action, by };
    case 'extend': {
      const n = request.options.iterations;
      return typeof n === 'number' && Number.isInteger(n) && n > 0 ? { kind: 'extend', iterations: n, by } : null;
    }
    case 'note': {
      const { note_id: id, text } = request.options;
      return typeof id === 'number' && typeof text === 'string' ? { kind: 'note', note: { id, text, by } } : null;
    }
  }
}
