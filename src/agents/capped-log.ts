// An iteration's log file with a size cap: an agent that writes without end (`yes`) must not fill the disk.
// The first bytes go to the file as they come; past the cap only the last bytes are kept (in memory, at most
// TAIL_MAX_BYTES) and written at the end after a marker saying how much was left out. What the agent says is
// still scanned in full: the cap is about the file only.
import { createWriteStream, type WriteStream } from 'node:fs';
import { formatByteSize } from '../core/byte-size.js';

/** Default cap of an iteration log (loop.max_log_size). */
export const DEFAULT_MAX_LOG_BYTES = 100 * 1024 * 1024;

/** Most of the tail kept in memory once the cap is passed. */
export const TAIL_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Output reaches the file in batches of this much (or what came within BATCH_MS), copied into buffers that are
 * reused: one write per read of the agent's pipe (8-64 KiB) cost a thread-pool round trip each, and holding the
 * pipe's chunks until a batched write instead (cork) kept them alive into V8's old space.
 */
export const BATCH_BYTES = 512 * 1024;

/**
 * A log's first batch buffer: most iterations print a few KiB, and a process running hundreds of iterations at once
 * (a server's iteration helper) held a full BATCH_BYTES buffer for each, resident for the iteration's life (~130 MB
 * at 250 iterations). A log that fills it goes on with BATCH_BYTES buffers.
 */
export const FIRST_BATCH_BYTES = 16 * 1024;

/** Longest a batch waits for more output before it is written. */
export const BATCH_MS = 10;

/** Batch buffers at most (one being filled, the others being written); past that chunks go to the file as they are. */
const BATCH_BUFFERS = 3;

/**
 * Batch buffers of logs that ended, for the next logs (at most BATCH_BUFFERS of each size): a new 512 KiB buffer per
 * iteration counted as V8 external memory and brought on a full garbage collection every ~15 iterations
 * (bench/FINDINGS.md).
 */
const spare = { small: [] as Buffer[], large: [] as Buffer[] };
const spareOf = (size: number): Buffer[] => (size === BATCH_BYTES ? spare.large : spare.small);

/** Keeps a buffer for the next log, while its size has fewer than BATCH_BUFFERS spares. */
function keepSpare(buffer: Buffer): void {
  const pool = spareOf(buffer.length);
  if (pool.length < BATCH_BUFFERS) pool.push(buffer);
}

/** The marker written between the head and the tail of a capped log. */
export function capMarker(omitted: number, cap: number): string {
  return `\n[ringmaster: ${omitted} bytes of output omitted here: the log keeps its first and last bytes, ${formatByteSize(cap)} in all (loop.max_log_size)]\n`;
}

/**
 * The last N bytes of a byte stream (N = 0 keeps nothing), copied into a ring of its own: holding on to the
 * stream's chunks instead would keep them alive long enough to reach V8's old space, where a flood of output
 * (1 GiB) piles up tens of MB of dead buffers between full collections.
 */
export class ByteTail {
  private ring: Buffer | null = null;
  private start = 0;
  private size = 0;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    if (this.max <= 0 || chunk.length === 0) return;
    this.ring ??= Buffer.allocUnsafe(this.max);
    const ring = this.ring;
    if (chunk.length >= this.max) {
      chunk.copy(ring, 0, chunk.length - this.max);
      this.start = 0;
      this.size = this.max;
      return;
    }
    const end = (this.start + this.size) % this.max;
    const first = Math.min(chunk.length, this.max - end);
    chunk.copy(ring, end, 0, first);
    if (first < chunk.length) chunk.copy(ring, 0, first);
    const overflow = this.size + chunk.length - this.max;
    if (overflow > 0) {
      this.start = (this.start + overflow) % this.max;
      this.size = this.max;
    } else {
      this.size += chunk.length;
    }
  }
  /** How many bytes `bytes()` returns. */
  get kept(): number {
    return this.size;
  }
  /** The kept bytes, oldest first (a copy). */
  bytes(): Buffer {
    const ring = this.ring;
    if (ring === null) return Buffer.alloc(0);
    const firstLength = Math.min(this.size, this.max - this.start);
    return Buffer.concat([ring.subarray(this.start, this.start + firstLength), ring.subarray(0, this.size - firstLength)]);
  }
}

/**
 * A log file written through `write` with backpressure, capped at `capBytes` (null = no cap). A file that cannot
 * be written (disk full, read-only, I/O error) is reported once to `onError`; what follows is dropped.
 */
export class CappedLog {
  private readonly file: WriteStream;
  private readonly headBytes: number;
  private readonly tail: ByteTail | null;
  private written = 0;
  private omitted = 0;
  private failure: NodeJS.ErrnoException | null = null;
  private readonly batch: WriteBatch;

  constructor(path: string, private readonly capBytes: number | null, onError?: (error: NodeJS.ErrnoException) => void) {
    // Opened asynchronously: writes are buffered until the file exists. Only its owner may read it.
    // Room for two batches being written: the agent is paused only when the file falls behind by that much.
    this.file = createWriteStream(path, { flags: 'a', mode: 0o600, highWaterMark: 2 * BATCH_BYTES });
    this.batch = new WriteBatch(this.file);
    this.file.on('error', (error: NodeJS.ErrnoException) => {
      if (this.failure !== null) return;
      this.failure = error;
      onError?.(error);
    });
    const tailBytes = capBytes === null ? 0 : Math.min(Math.floor(capBytes / 2), TAIL_MAX_BYTES);
    this.headBytes = capBytes === null ? Infinity : capBytes - tailBytes;
    this.tail = capBytes === null ? null : new ByteTail(tailBytes);
  }

  /** Bytes left out of the file (known so far): what passed the cap, minus the tail kept. */
  get omittedBytes(): number {
    return Math.max(0, this.omitted - (this.tail?.kept ?? 0));
  }

  /** Why the file could not be written, or null. */
  get error(): NodeJS.ErrnoException | null {
    return this.failure;
  }

  /**
   * Writes a chunk (not kept past the call: it is copied); false when the caller should wait for `drain` (the file is
   * slower than the agent).
   */
  write(chunk: Buffer): boolean {
    if (this.failure !== null) return true;
    const room = this.headBytes - this.written;
    if (room >= chunk.length) {
      this.written += chunk.length;
      return this.batch.write(chunk);
    }
    let ok = true;
    if (room > 0) {
      this.written += room;
      ok = this.batch.write(chunk.subarray(0, room));
    }
    const rest = room > 0 ? chunk.subarray(room) : chunk;
    this.tail?.push(rest);
    this.omitted += rest.length;
    return ok;
  }

  /** Waits for the file to accept more (at once when it failed: nothing more is written). */
  once(event: 'drain', listener: () => void): void {
    if (this.failure !== null || !this.batch.full) queueMicrotask(listener);
    else this.file.once(event, listener);
  }

  /** Writes the marker and the tail (when the cap was passed), then closes the file; resolves when closed. */
  end(): Promise<void> {
    this.batch.flush();
    if (this.failure !== null || this.file.destroyed) return Promise.resolve();
    if (this.tail !== null && this.omitted > 0 && this.capBytes !== null) {
      const tail = this.tail.bytes();
      // Under the cap after all (the tail holds everything past the head): the log is whole, no marker.
      if (this.omitted > tail.length) this.file.write(capMarker(this.omitted - tail.length, this.capBytes));
      this.file.write(tail);
    }
    return new Promise((resolve) => {
      // Called on finish, or with the error when the last writes fail.
      this.file.end(() => {
        this.batch.release();
        resolve();
      });
    });
  }
}

/**
 * Gathers chunks into reused buffers written as one (see BATCH_BYTES), in order: a FIRST_BATCH_BYTES buffer, then,
 * once one has filled, BATCH_BYTES ones.
 */
class WriteBatch {
  private readonly free: Buffer[] = [];
  private allocated = 0;
  /** A first buffer has filled: the output is a flood, batches are BATCH_BYTES from now on. */
  private grown = false;
  private current: Buffer | null = null;
  private used = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The file's last write said to wait for `drain`. */
  full = false;

  constructor(private readonly file: WriteStream) {
    file.on('drain', () => (this.full = false));
  }

  /** Adds a chunk; false when the caller should wait for the file's `drain`. */
  write(chunk: Buffer): boolean {
    let from = 0;
    while (from < chunk.length) {
      const into = this.current ?? this.take();
      if (into === null) {
        // Every buffer is being written: a copy of the rest goes to the file's own queue (after the batches, in
        // order). A copy: the caller's chunk may be a read buffer that is reused as soon as this returns.
        this.submit(Buffer.from(from === 0 ? chunk : chunk.subarray(from)));
        break;
      }
      const copied = chunk.copy(into, this.used, from);
      this.used += copied;
      from += copied;
      if (this.used === into.length) {
        if (into.length < BATCH_BYTES) this.grown = true;
        this.flush();
      }
    }
    return !this.full;
  }

  /** Writes the batch gathered so far. */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const buffer = this.current;
    if (buffer === null) return;
    const used = this.used;
    this.current = null;
    this.used = 0;
    if (used === 0) this.reuse(buffer);
    else this.submit(buffer.subarray(0, used), () => this.reuse(buffer));
  }

  /** Gives the buffers back for the next log (the file is closed: none is being written). */
  release(): void {
    for (const buffer of this.free) keepSpare(buffer);
    this.free.length = 0;
  }

  /** A buffer written or unused goes back to this log's free ones; a small one of a log that has grown is let go. */
  private reuse(buffer: Buffer): void {
    if (!this.grown || buffer.length === BATCH_BYTES) return void this.free.push(buffer);
    this.allocated -= 1;
    keepSpare(buffer);
  }

  /** A buffer to fill (a free one, or a spare or new one while there are fewer than BATCH_BUFFERS), its timer armed. */
  private take(): Buffer | null {
    let buffer = this.free.pop() ?? null;
    if (buffer === null && this.allocated < BATCH_BUFFERS) {
      const size = this.grown ? BATCH_BYTES : FIRST_BATCH_BYTES;
      buffer = spareOf(size).pop() ?? Buffer.allocUnsafeSlow(size);
      this.allocated += 1;
    }
    if (buffer === null) return null;
    this.current = buffer;
    this.timer = setTimeout(() => this.flush(), BATCH_MS);
    return buffer;
  }

  private submit(data: Buffer, done?: () => void): void {
    if (!this.file.write(data, done)) this.full = true;
  }
}
