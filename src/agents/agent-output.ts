// An agent's output on its way out: redacted as it arrives, written to its capped log with backpressure, delivered
// live with its offset in the log, its last bytes kept in memory for error messages.
import type { Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { byteStreamRedactor, redactorOf, type Secret } from '../core/redact.js';
import { readerSocketPair } from '../os/reader-socket.js';
import { ByteTail, CappedLog } from './capped-log.js';

/** Where an agent's output goes and what is known of it once the process has ended. */
export interface AgentOutput {
  /** Pipes one stream of the agent; settles when the stream ends, errs or closes. */
  pipe(stream: NodeJS.ReadableStream, to: Deliver): Promise<void>;
  /**
   * Reads one stream of the agent through a socket pair of its own (os/reader-socket.ts: one reused read buffer):
   * `childEnd` is for `spawn`'s stdio (then destroyed), `done` settles when the stream ends, errs or closes. Null
   * when the pair cannot be made (then `pipe` the child's own stream).
   */
  socket(to: Deliver): Promise<SocketOutput | null>;
  /** Bytes the agent wrote (before redaction). */
  bytesOut(): number;
  /** Last bytes of output (streams interleaved), redacted. */
  tail(): string;
  /** Bytes of output left out of the log by its cap. */
  omittedBytes(): number;
  /** Settles once the log file is flushed and closed. */
  closed: Promise<void>;
  /** Flushes what the redactors held back of streams that never ended, and closes the log once `swept` settles. */
  close(swept: Promise<unknown>): void;
}

/**
 * Where a stream's output goes: decoded text, in order (a function), or the log's bytes as they are (`{ bytes }`:
 * a view valid during the call only, the read buffer being reused).
 */
export type Deliver = ((text: string, offset: number) => void) | { bytes(bytes: Buffer, offset: number): void };

/** A stream of the agent read through a socket pair (see AgentOutput.socket). */
export interface SocketOutput {
  childEnd: Socket;
  reader: Socket;
  done: Promise<void>;
}

/** One stream's way in: `take` a chunk (false: wait for the log's drain), `end` once it ended. */
interface StreamSink {
  take: (chunk: Buffer) => boolean;
  end: () => void;
}

/** The reused buffer a socket-read stream lands in (a read takes what the socket holds, up to this). */
const READ_BUFFER_BYTES = 64 * 1024;
/** Read buffers of closed streams kept for the next ones (a fresh one per iteration made V8 collect more often). */
const SPARE_READ_BUFFERS = 8;
const spareReadBuffers: Buffer[] = [];

/** Settings of an agent's output. */
export interface AgentOutputOptions {
  logPath: string;
  maxLogBytes: number | null;
  tailBytes: number;
  /** Secrets of the agent's environment and command line: they never reach the log nor the live output. */
  secrets: readonly Secret[];
  /** Called on every chunk (the idle timer). */
  onActivity(): void;
  /** The log could not be written. */
  onLogError(error: NodeJS.ErrnoException): void;
}

/**
 * Opens the log (asynchronously: the agent starts while the file is created, writes are buffered until then).
 * Each stream is redacted as it arrives, even a secret split across chunks, and what is delivered is what the log
 * holds (so a live chunk's offset is its place in the log).
 */
export function agentOutput(options: AgentOutputOptions): AgentOutput {
  const shared = new SharedOutput(options);
  const pipe = (stream: NodeJS.ReadableStream, to: Deliver): Promise<void> =>
    new Promise((resolve) => {
      const { take, end } = shared.sink(to);
      stream.on('data', (chunk: Buffer) => {
        if (take(chunk)) return;
        stream.pause();
        shared.log.once('drain', () => stream.resume());
      });
      stream.on('end', () => {
        end();
        resolve();
      });
      stream.on('error', () => resolve());
      stream.on('close', () => resolve());
    });
  let close: (swept: Promise<unknown>) => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    close = (swept) => {
      // A stream that never ended (held open by an escaped process): what its redactor held back goes to the log.
      for (const flush of shared.flushers) flush(false);
      void Promise.all([shared.log.end(), swept]).then(() => resolve());
    };
  });
  const redactText = redactorOf(options.secrets);
  return {
    pipe,
    socket: (to) => socketOutput(shared, to),
    bytesOut: () => shared.bytesOut,
    tail: () => redactText(shared.tail.bytes().toString('utf8')),
    omittedBytes: () => shared.log.omittedBytes,
    closed,
    close: (swept) => close(swept),
  };
}

/** What the streams of one agent share: the log and its offsets, the tail, the count of bytes. */
class SharedOutput {
  readonly log: CappedLog;
  readonly tail: ByteTail;
  /** Each stream's flush of what its redactor held back (`deliverToo`: pass it on too). */
  readonly flushers: Array<(deliverToo: boolean) => void> = [];
  bytesOut = 0;
  private logBytes = 0;

  constructor(private readonly options: AgentOutputOptions) {
    this.log = new CappedLog(options.logPath, options.maxLogBytes, (error) => options.onLogError(error));
    this.tail = new ByteTail(options.tailBytes);
  }

  /** Writes redacted bytes to the log; returns where they start in it and whether the log wants more now. */
  toLog(safe: Buffer): { offset: number; more: boolean } {
    const offset = this.logBytes;
    this.logBytes += safe.length;
    return { offset, more: safe.length === 0 || this.log.write(safe) };
  }

  /** Takes one stream's chunks: each is redacted, logged and delivered (a chunk is not kept past the call). */
  sink(to: Deliver): StreamSink {
    const deliver = deliverer(to);
    const redact = byteStreamRedactor(this.options.secrets);
    let ended = false;
    const flush = (deliverToo: boolean): void => {
      if (ended) return;
      ended = true;
      const rest = redact.end();
      const { offset } = this.toLog(rest);
      if (deliverToo) deliver(rest, offset, true);
    };
    this.flushers.push(flush);
    const take = (chunk: Buffer): boolean => {
      this.bytesOut += chunk.length;
      this.tail.push(chunk);
      this.options.onActivity();
      const safe = redact.push(chunk);
      const { offset, more } = this.toLog(safe);
      deliver(safe, offset, false);
      return more;
    };
    return { take, end: () => flush(true) };
  }
}

/** Passes a stream's redacted bytes on: decoded in order (a function), or as they are (`{ bytes }`). */
function deliverer(to: Deliver): (bytes: Buffer, offset: number, last: boolean) => void {
  if (typeof to !== 'function') {
    return (bytes, offset) => {
      if (bytes.length > 0) to.bytes(bytes, offset);
    };
  }
  const decoder = new StringDecoder('utf8');
  return (bytes, offset, last) => {
    const text = decoder.write(bytes) + (last ? decoder.end() : '');
    if (text !== '') to(text, offset);
  };
}

/** A stream read through a socket pair of its own (see AgentOutput.socket). */
async function socketOutput(shared: SharedOutput, to: Deliver): Promise<SocketOutput | null> {
  // Nothing is read before the child is spawned, which is after the pair is made.
  let take: (chunk: Buffer) => boolean = () => true;
  const buffer = spareReadBuffers.pop() ?? Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);
  const pair = await readerSocketPair(buffer, (chunk) => {
    if (take(chunk)) return true;
    shared.log.once('drain', () => pair?.reader.resume());
    return false;
  });
  const release = (): void => {
    if (spareReadBuffers.length < SPARE_READ_BUFFERS) spareReadBuffers.push(buffer);
  };
  if (pair === null) {
    release();
    return null;
  }
  const sink = shared.sink(to);
  take = sink.take;
  const { reader, childEnd } = pair;
  const done = new Promise<void>((resolve) => {
    reader.on('end', () => {
      sink.end();
      resolve();
    });
    reader.on('error', () => resolve());
    reader.on('close', () => {
      // Closed: nothing is read into the buffer any more.
      release();
      resolve();
    });
  });
  return { childEnd, reader, done };
}
