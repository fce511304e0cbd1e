// An agent's output on its way out: redacted as it arrives, written to its capped log with backpressure, delivered
// live with its offset in the log, its last bytes kept in memory for error messages.
import { StringDecoder } from 'node:string_decoder';
import { byteStreamRedactor, redactorOf, type Secret } from '../core/redact.js';
import { ByteTail, CappedLog } from './capped-log.js';

/** Where an agent's output goes and what is known of it once the process has ended. */
export interface AgentOutput {
  /** Pipes one stream of the agent; settles when the stream ends, errs or closes. */
  pipe(stream: NodeJS.ReadableStream, deliver: (text: string, offset: number) => void): Promise<void>;
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
  const log = new CappedLog(options.logPath, options.maxLogBytes, (error) => options.onLogError(error));
  const tail = new ByteTail(options.tailBytes);
  const flushers: Array<(deliverToo: boolean) => void> = [];
  let bytesOut = 0;
  let logBytes = 0;
  /** Writes redacted bytes to the log; returns where they start in it and whether the log wants more now. */
  const toLog = (safe: Buffer): { offset: number; more: boolean } => {
    const offset = logBytes;
    logBytes += safe.length;
    return { offset, more: safe.length === 0 || log.write(safe) };
  };
  const pipe = (stream: NodeJS.ReadableStream, deliver: (text: string, offset: number) => void): Promise<void> =>
    new Promise((resolve) => {
      const decoder = new StringDecoder('utf8');
      const redact = byteStreamRedactor(options.secrets);
      let ended = false;
      const flush = (deliverToo: boolean): void => {
        if (ended) return;
        ended = true;
        const rest = redact.end();
        const { offset } = toLog(rest);
        const text = decoder.write(rest) + decoder.end();
        if (text !== '' && deliverToo) deliver(text, offset);
      };
      flushers.push(flush);
      stream.on('data', (chunk: Buffer) => {
        bytesOut += chunk.length;
        tail.push(chunk);
        options.onActivity();
        const safe = redact.push(chunk);
        const { offset, more } = toLog(safe);
        if (!more) {
          stream.pause();
          log.once('drain', () => stream.resume());
        }
        const text = decoder.write(safe);
        if (text !== '') deliver(text, offset);
      });
      stream.on('end', () => {
        flush(true);
        resolve();
      });
      stream.on('error', () => resolve());
      stream.on('close', () => resolve());
    });
  let close: (swept: Promise<unknown>) => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    close = (swept) => {
      // A stream that never ended (held open by an escaped process): what its redactor held back goes to the log.
      for (const flush of flushers) flush(false);
      void Promise.all([log.end(), swept]).then(() => resolve());
    };
  });
  const redactText = redactorOf(options.secrets);
  return {
    pipe,
    bytesOut: () => bytesOut,
    tail: () => redactText(tail.bytes().toString('utf8')),
    omittedBytes: () => log.omittedBytes,
    closed,
    close: (swept) => close(swept),
  };
}
