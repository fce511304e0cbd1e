// The recorder's writes to the store (recorder.ts): one chain, in order, fenced by the run's owner; a full disk
// gets back the space kept aside once; once another process owns the run, nothing more is written. Events are
// batched on the next turn of the event loop, an iteration row's write carrying them when there is one, and a failed
// batch is written again first with the next one.
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

  /** Resolves when every write queued so far (and the events recorded so far) has settled. */
  idle(): Promise<void> {
    this.beforeEnqueue?.();
    return this.chain;
  }

  /** A write after the others whose result, or failure, is the caller's (the chain goes on either way). */
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.chain.then(work);
    this.chain = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
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

  /** Called before a write is queued (EventBatcher: its batch goes first). */
  beforeEnqueue: (() => void) | null = null;

  /** Queues a write after the others (and the events recorded so far); its failure is reported as `store: <what>: ...`. */
  enqueue(what: string, work: () => Promise<unknown>, settled?: () => void): void {
    this.beforeEnqueue?.();
    this.push(what, work, settled);
  }

  /** Queues a write after the others, as it is. */
  push(what: string, work: () => Promise<unknown>, settled?: () => void): void {
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

/** A row write that takes events along (the iteration writes of the Store: the events after the row, only if it was). */
export type RowWrite<T = unknown> = (events: readonly NewEvent[] | undefined) => Promise<T>;

/**
 * The run's events on their way to the store: written on the next turn of the event loop, i.e. while the next
 * agent already runs, in order but off the critical path between two iterations, as one batch. An iteration row's
 * write can carry the batch (attach, writeWith): one store write instead of two (bench/FINDINGS.md). Any other write
 * queued meanwhile sends the batch first, so the order of writes stays the order of their events.
 */
export class EventBatcher {
  private readonly queue: NewEvent[] = [];
  /** Recorded and not yet confirmed written (queued or in flight), oldest first: writes complete in order. */
  private readonly unwritten: RunEvent[] = [];
  private scheduled: NodeJS.Immediate | null = null;
  /** The row write the queued batch goes with, if any. */
  private row: { what: string; write: RowWrite } | null = null;
  /**
   * Events flushed and not written yet, oldest first (those of a failed write stay: written first with the next
   * batch, so that no later event is ever stored past a missing one, nor any twice); `written` counts those before.
   */
  private readonly pending: NewEvent[] = [];
  private written = 0;

  constructor(
    private readonly writer: StoreWriter,
    private readonly runId: string,
  ) {
    writer.beforeEnqueue = () => this.flush();
  }

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

  /** A row write that goes with the batch (the events queued until it is flushed follow it); failures reported as `store: <what>`. */
  attach(what: string, write: RowWrite): void {
    if (this.writer.finished) return this.writer.enqueue(what, () => write(undefined));
    if (this.row) this.flush();
    this.row = { what, write };
    this.scheduled ??= setImmediate(() => this.flush());
  }

  /**
   * A row write after the queued ones, with the events recorded so far; its result, or failure, is the caller's
   * (undefined when another process owns the run by then: nothing is written).
   */
  writeWith<T>(write: RowWrite<T>): Promise<T | undefined> {
    this.flush(true);
    const end = this.written + this.pending.length;
    return this.writer.run(() => (this.writer.lost ? Promise.resolve(undefined) : this.writer.withRoom(() => this.withRow(write, end))));
  }

  /** Queues the batch now (`keep`: the events only, for a row write the caller makes). */
  flush(keep = false): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    const row = this.row;
    this.row = null;
    const first = this.queue[0]?.seq;
    const last = this.queue.at(-1)?.seq;
    this.pending.push(...this.queue.splice(0));
    const end = this.written + this.pending.length;
    if (row) this.writer.push(row.what, () => this.withRow(row.write, end));
    else if (first !== undefined && !keep) this.writer.push(`events ${first ?? ''}-${last ?? ''}`, () => this.writeEvents(end));
  }

  /** Writes the pending events up to `end` (absolute count), unless written already. */
  private async writeEvents(end: number): Promise<void> {
    const events = this.pending.slice(0, end - this.written);
    if (events.length === 0) return;
    await this.writer.options.store.appendEvents(events, this.writer.finished ? undefined : this.writer.options.owner);
    this.done(events.length);
  }

  /** A row write with the pending events up to `end`; when the row fails, the events are written alone (as apart from it). */
  private async withRow<T>(write: RowWrite<T>, end: number): Promise<T> {
    const events = this.pending.slice(0, Math.max(0, end - this.written));
    let result: T;
    try {
      result = await write(events.length > 0 ? events : undefined);
    } catch (error) {
      if (events.length > 0 && !(error instanceof OwnershipLostError) && !(error instanceof StoreUnusableError)) {
        await this.writeEvents(end).catch((e: unknown) => this.writer.options.onStoreError(`store: events: ${(e as Error).message}`, e));
      }
      throw error;
    }
    this.done(events.length);
    return result;
  }

  private done(count: number): void {
    this.pending.splice(0, count);
    this.unwritten.splice(0, count);
    this.written += count;
  }
}
