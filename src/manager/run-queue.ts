// The loop manager's queue (manager.ts): the runs of this process waiting for a slot, first in first out, each
// with the control target that answers its requests while it waits (a pause holds a run back in its place).
import type { LoopProgram } from '../runner/program.js';
import type { RunSpec } from '../spec/run-spec.js';
import type { ControlPoller, ControlTarget } from './control-poller.js';

/** A run waiting in the queue. */
export interface Queued {
  spec: RunSpec;
  workspace: string;
  worktree: { path: string; branch: string } | null;
  program?: LoopProgram;
  /** Held back from the queue by a pause (a pending run that is paused does not start). */
  held: boolean;
  /** Comes back paused (it was paused when the previous server process ended). */
  startPaused: boolean;
}

/** The runs waiting in one manager, in the order they start. */
export class RunQueue {
  private readonly runs = new Map<string, Queued>();
  /** Unregisters the control target of a queued run (requests from the CLI reach a queued run as the API's do). */
  private readonly controls = new Map<string, () => void>();

  constructor(private readonly poller: ControlPoller) {}

  has(runId: string): boolean {
    return this.runs.has(runId);
  }

  get(runId: string): Queued | undefined {
    return this.runs.get(runId);
  }

  /** The waiting runs, oldest first (a run may leave the queue while this is walked). */
  entries(): IterableIterator<[string, Queued]> {
    return this.runs.entries();
  }

  /** Queues a run at the end; `target` answers the control requests written for it until it leaves. */
  add(runId: string, run: Queued, target: ControlTarget): void {
    this.runs.set(runId, run);
    this.controls.get(runId)?.();
    this.controls.set(runId, this.poller.register(target));
  }

  /** The run left the queue (started, handed to the workers, stopped): its controller (if any) answers from now on. */
  leave(runId: string): void {
    this.runs.delete(runId);
    this.controls.get(runId)?.();
    this.controls.delete(runId);
  }

  /** Puts a queued run back at the end, first in first out among the runs waiting now. */
  moveToEnd(runId: string): void {
    const run = this.runs.get(runId);
    if (!run) return;
    this.runs.delete(runId);
    this.runs.set(runId, run);
  }

  /** A run's place (1 = next to start) among the runs not held by a pause, or null. */
  position(runId: string): number | null {
    if (!this.runs.has(runId)) return null;
    let place = 0;
    for (const [id, q] of this.runs) {
      if (q.held) continue;
      place += 1;
      if (id === runId) return place;
    }
    return null;
  }

  /** How many runs wait, not counting those held by a pause. */
  waiting(): number {
    return [...this.runs.values()].filter((q) => !q.held).length;
  }
}
