// Merges run events that arrive from several sources (a REST snapshot, the WebSocket's replay after `since`,
// its live stream, a REST back-fill) into one gap-free, duplicate-free stream per run, ordered by seq; and
// remembers the last events of each run for snapshots that arrive behind the stream.

/** The part of an event the feed looks at. */
export interface Sequenced {
  run_id: string;
  seq: number;
}

/** A hole the feed cannot fill by itself: events after `after_seq` up to `before_seq` (exclusive) are missing. */
export interface Gap {
  run_id: string;
  after_seq: number;
  before_seq: number;
}

/**
 * What accepting one event produced: the events now deliverable in order, a gap to back-fill if any, and
 * whether the run needs a snapshot (`seed`) before anything of it can be delivered.
 */
export interface Accepted<E extends Sequenced> {
  ready: E[];
  gap: Gap | null;
  needsSeed: boolean;
}

interface RunFeed<E> {
  /** Highest seq delivered (or covered by a snapshot); null until the run is seeded. */
  last: number | null;
  /** Events that arrived ahead of `last + 1`, by seq. */
  pending: Map<number, E>;
  /** Lowest seq in `pending` (Infinity when empty). */
  firstPending: number;
}

function lowest(seqs: Iterable<number>): number {
  let min = Infinity;
  for (const seq of seqs) if (seq < min) min = seq;
  return min;
}

/** Delivered events remembered per run, for snapshots that arrive behind the feed. */
export const RECENT = 256;

/** Most events held back per run while waiting for a gap to fill; beyond it the run needs a new snapshot. */
export const MAX_PENDING = 10_000;

/**
 * Per-run sequencing state. A run's events are delivered only in seq order, each exactly once: duplicates
 * (seq already delivered) are dropped, early ones wait for the hole before them to fill.
 */
export class EventFeed<E extends Sequenced> {
  readonly #runs = new Map<string, RunFeed<E>>();
  /** The last RECENT delivered events of each run, oldest first. */
  readonly #recent = new Map<string, E[]>();

  /**
   * Marks `lastSeq` as the point a snapshot of a run not seen yet reflects: events up to it are dropped as
   * already seen, held-back ones after it are delivered. A run the feed already follows is not moved by a
   * snapshot (older or newer): its events keep coming in order, so every cache behind it can still catch up.
   */
  seed(runId: string, lastSeq: number): E[] {
    const feed = this.#feed(runId);
    if (feed.last !== null) return [];
    feed.last = lastSeq;
    for (const seq of [...feed.pending.keys()]) if (seq <= lastSeq) feed.pending.delete(seq);
    const ready = this.#drain(feed);
    feed.firstPending = lowest(feed.pending.keys());
    this.#remember(runId, ready);
    return ready;
  }

  /**
   * Takes one event from any source. A run's first event (seq 1) seeds it; other events of a run never
   * seeded wait for `seed`.
   */
  accept(event: E): Accepted<E> {
    const feed = this.#feed(event.run_id);
    if (feed.last === null && event.seq === 1) feed.last = 0;
    if (feed.last !== null && event.seq <= feed.last) return { ready: [], gap: null, needsSeed: false };
    if (feed.last !== null && event.seq === feed.last + 1) {
      feed.last = event.seq;
      const ready = [event, ...this.#drain(feed)];
      this.#remember(event.run_id, ready);
      return { ready, gap: null, needsSeed: false };
    }
    if (feed.pending.size >= MAX_PENDING) {
      // Too far behind to catch up event by event: start the run over from a snapshot.
      feed.last = null;
      feed.pending.clear();
      this.#recent.delete(event.run_id);
      feed.firstPending = Infinity;
    }
    feed.pending.set(event.seq, event);
    feed.firstPending = Math.min(feed.firstPending, event.seq);
    if (feed.last === null) return { ready: [], gap: null, needsSeed: true };
    return { ready: [], gap: { run_id: event.run_id, after_seq: feed.last, before_seq: feed.firstPending }, needsSeed: false };
  }

  /** The last delivered seq of every seeded run: the `since` of a (re)subscription. */
  since(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [id, feed] of this.#runs) if (feed.last !== null) out[id] = feed.last;
    return out;
  }

  /**
   * The events of a run delivered after `seq`, in order: what a snapshot that reflects events up to `seq` misses.
   * Null when the feed no longer remembers all of them (it keeps the last RECENT of each run).
   */
  deliveredAfter(runId: string, seq: number): E[] | null {
    const feed = this.#runs.get(runId);
    if (feed === undefined || feed.last === null || feed.last <= seq) return [];
    const recent = this.#recent.get(runId) ?? [];
    const first = recent[0]?.seq;
    if (first === undefined || first > seq + 1) return null;
    return recent.filter((e) => e.seq > seq);
  }

  /** The last delivered seq of one run, or null when it was never seeded. */
  lastSeq(runId: string): number | null {
    return this.#runs.get(runId)?.last ?? null;
  }

  /** Holes of every run that has events waiting behind one. */
  gaps(): Gap[] {
    const out: Gap[] = [];
    for (const [id, feed] of this.#runs) {
      if (feed.last !== null && feed.pending.size > 0) out.push({ run_id: id, after_seq: feed.last, before_seq: feed.firstPending });
    }
    return out;
  }

  /** Runs that received events but were never seeded (the caller fetches their snapshot). */
  unseeded(): string[] {
    return [...this.#runs].filter(([, feed]) => feed.last === null).map(([id]) => id);
  }

  /** Number of events held back (all runs). */
  pendingCount(): number {
    let n = 0;
    for (const feed of this.#runs.values()) n += feed.pending.size;
    return n;
  }

  #feed(runId: string): RunFeed<E> {
    let feed = this.#runs.get(runId);
    if (!feed) {
      feed = { last: null, pending: new Map(), firstPending: Infinity };
      this.#runs.set(runId, feed);
    }
    return feed;
  }

  #remember(runId: string, delivered: readonly E[]): void {
    if (delivered.length === 0) return;
    const list = this.#recent.get(runId) ?? [];
    list.push(...delivered);
    if (list.length > RECENT) list.splice(0, list.length - RECENT);
    this.#recent.set(runId, list);
  }

  #drain(feed: RunFeed<E>): E[] {
    const out: E[] = [];
    if (feed.last === null) return out;
    for (let next = feed.pending.get(feed.last + 1); next !== undefined; next = feed.pending.get(feed.last + 1)) {
      feed.pending.delete(next.seq);
      feed.last = next.seq;
      out.push(next);
    }
    if (out.length > 0) feed.firstPending = lowest(feed.pending.keys());
    return out;
  }
}
