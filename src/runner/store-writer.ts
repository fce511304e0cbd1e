// The recorder's writes to the store (recorder.ts): one chain, in order, fenced by the run's owner; a full disk
// gets back the space kept aside once; once another process owns the run, nothing more is written. Events are
// batched on the next turn of the event loop and a failed batch is written again first with the next one.
import type { NewEvent, Owner, Store } from '../store/index.js';
import { OwnershipLostError } from '../store/index.js';
import { StoreUnusableError } from '../store/errors.js';
import type { RunEvent } from './events.js';

/** What the writer needs (RecorderOptions' part). */
export interface StoreWriterOptions {
  store: Store;
  owner: Owner;
  onStoreError: (message: string, error: unknown) => void;
  onLostOwnership?: () => void;
  freeSpace?: () => boolean;
  onDiskFull?: (message: string) => void;
}

/** The chain of a run's store writes. */
export class StoreWriter {
  private chain: Promise<void> = Promise.resolve();
  /** Another process owns the run now: nothing more is written (its rows are not ours to touch). */
  lost = false;
  /** finishRun closed our owner row: the run's last events are written after it, without the fence. */
  finished = false;
  /** The disk filled up once: the space kept aside has been given back. */
  diskFull = false;

  constructor(readonly options: StoreWriterOptions) {}

  /** Resolves when every write queued so far has settled. */
  idle(): Promise<void> {
    return this.chain;
  }

  /** Runs a store write; on a full disk, gives back the reserved space once and tries again. */
  async withRoom<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof StoreUnusableError && error.reason === 'disk_full') || this.diskFull) throw error;
      this.diskFull = true;
      if (!this.options.freeSpace?.()) throw error;
      const result = await work();
      this.options.onDiskFull?.(error.message);
      return result;
    }
  }

  /** Queues a write after the others; its failure is reported as `store: <what>: ...`. */
  enqueue(what: string, work: () => Promise<unknown>, settled?: () => void): void {
    this.chain = this.chain.then(() => (this.lost ? undefined : this.withRoom(work))).finally(settled).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof OwnershipLostError) return this.loseOwnership();
        this.options.onStoreError(`store: ${what}: ${(error as Error).message}`, error);
      },
    );
  }

  /** Another process took the run over: told once. */
  loseOwnership(): void {
    if (this.lost) return;
    this.lost = true;
    this.options.onLostOwnership?.();
  }
}

/**
 * The run's events on their way to the store: written on the next turn of the event loop, i.e. while the next
 * agent already runs, in order but off the critical path between two iterations, as one batch.
 */
export class EventBatcher {
  private readonly queue: NewEvent[] = [];
  /** Recorded and not yet confirmed written (queued or in flight), oldest first: writes complete in order. */
  private readonly unwritten: RunEvent[] = [];
  private scheduled: NodeJS.Immediate | null = null;
  /**
   * Events whose write failed (the database unreachable, the disk full): written first with the next batch, so
   * that no later event is ever stored past a missing one (event numbers stay gap-free), nor any twice.
   */
  private held: NewEvent[] = [];

  constructor(
    private readonly writer: StoreWriter,
    private readonly runId: string,
  ) {}

  /** Takes one stamped event. */
  push(e: RunEvent): void {
    this.unwritten.push(e);
    const iteration = 'iteration' in e ? e.iteration : null;
    this.queue.push({ run_id: this.runId, seq: e.seq, type: e.type, payload: e, at: e.time, iteration: iteration === 0 ? null : iteration });
    this.scheduled ??= setImmediate(() => this.flush());
  }

  /** Events recorded but not written yet, in order. */
  unstored(): RunEvent[] {
    return [...this.unwritten];
  }

  /** Queues the batch now. */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    const batch = this.queue.splice(0);
    if (batch.length === 0) return;
    const { store, owner } = this.writer.options;
    this.writer.enqueue(`events ${batch[0]?.seq ?? ''}-${batch.at(-1)?.seq ?? ''}`, async () => {
      const events = [...this.held, ...batch];
      this.held = events;
      await store.appendEvents(events, this.writer.finished ? undefined : owner);
      this.held = [];
      this.unwritten.splice(0, events.length);
    });
  }
}
