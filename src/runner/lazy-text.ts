// A plain-text agent's output decoded only where it can matter (issue 22): chunks in which no signal can start are
// held as bytes, and of a long run of them only the last lines are ever decoded and scanned. Decoding every byte of
// a flood of output into strings was most of the CPU and all of the garbage collection it cost.
//
// What is skipped cannot change any answer: it has no byte a signal starts with (so no signal, nor an echo of one,
// begins in it); what is kept after it starts at a line start, holds a whole line with a word (so the echo rule's
// words before a signal come from kept text) and at least 192 KiB (>= 64 Ki characters: the agent's own text that
// an iteration keeps). Nothing is skipped until the line of the last signal start has ended and 2 KiB more were
// scanned: a signal (or the words after it) that goes on past its chunk is scanned whole, and the scanners' seams
// hold no signal start at a skip. The caller is told of each skip, to forget the current line.
import { StringDecoder } from 'node:string_decoder';

/** Bytes held without a signal start before the oldest are skipped. */
const HOLD_BYTES = 512 * 1024;
/** At most this much is kept at a skip... */
const KEEP_BYTES = 256 * 1024;
/** ...and at least this much: decoded, at least 64 Ki UTF-16 units (a unit takes 1 to 3 bytes). */
const MIN_KEEP_BYTES = 192 * 1024;
/** Bytes scanned after the last signal start (and its line's end) before anything is skipped. */
const GUARD_BYTES = 2048;
/** The line after a skip must have a word (an ASCII letter, digit or _) within this many bytes. */
const LINE_SCAN_BYTES = 4096;

/** Bytes in, text out (see the header). */
export interface LazyText {
  push(bytes: Buffer): void;
  /** The stream has ended: what is held is decoded and passed on. */
  end(): void;
}

/**
 * `startBytes`: every byte a signal can start with (ASCII); `text(t)` receives the text in order (with gaps where
 * output was skipped); `skipped()` is called before the text that follows a skip.
 */
export function lazyText(startBytes: readonly number[], text: (t: string) => void, skipped: () => void): LazyText {
  let decoder = new StringDecoder('utf8');
  let held: Buffer[] = [];
  let size = 0;
  /** Scanning goes on without skips until the line of the last signal start has ended and GUARD_BYTES followed. */
  let eager = false;
  let afterStart = GUARD_BYTES;
  let lineEnded = true;
  const flush = (): void => {
    if (size === 0) return;
    const data = held.length === 1 ? (held[0] as Buffer) : Buffer.concat(held, size);
    held = [];
    size = 0;
    const out = decoder.write(data);
    if (out !== '') text(out);
  };
  const skip = (): void => {
    const at = skipPoint(held, size);
    if (at === null) return flush();
    held = [(held[at.chunk] as Buffer).subarray(at.offset), ...held.slice(at.chunk + 1)];
    size = held.reduce((n, b) => n + b.length, 0);
    decoder = new StringDecoder('utf8');
    skipped();
  };
  return {
    push(bytes) {
      if (bytes.length === 0) return;
      held.push(bytes);
      size += bytes.length;
      const lastStart = startBytes.reduce((at, b) => Math.max(at, bytes.lastIndexOf(b)), -1);
      if (lastStart >= 0) {
        afterStart = bytes.length - lastStart - 1;
        lineEnded = bytes.indexOf(0x0a, lastStart) >= 0;
      } else if (eager) {
        afterStart += bytes.length;
        lineEnded ||= bytes.includes(0x0a);
      }
      eager = !lineEnded || afterStart < GUARD_BYTES;
      if (lastStart >= 0 || eager) flush();
      else if (size > HOLD_BYTES) skip();
    },
    end() {
      flush();
      const rest = decoder.end();
      if (rest !== '') text(rest);
    },
  };
}

/** Where the kept bytes start (just after a newline), or null when no place qualifies (then everything is decoded). */
function skipPoint(held: readonly Buffer[], size: number): { chunk: number; offset: number } | null {
  let base = 0;
  for (let i = 0; i < held.length; i++) {
    const chunk = held[i] as Buffer;
    const from = size - KEEP_BYTES - base;
    if (from < chunk.length) {
      const nl = chunk.indexOf(0x0a, Math.max(0, from));
      if (nl < 0) return null;
      // Too little kept, or the line after the newline has no word in sight (or goes on in the next chunk).
      if (size - (base + nl + 1) < MIN_KEEP_BYTES || !lineWithWord(chunk, nl + 1)) return null;
      return { chunk: i, offset: nl + 1 };
    }
    base += chunk.length;
  }
  return null;
}

/** True when the line starting at `start` ends in `chunk` within LINE_SCAN_BYTES and has an ASCII word byte. */
function lineWithWord(chunk: Buffer, start: number): boolean {
  const end = chunk.indexOf(0x0a, start);
  if (end < 0 || end - start > LINE_SCAN_BYTES) return false;
  for (let i = start; i < end; i++) {
    const b = chunk[i] as number;
    if ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f) return true;
  }
  return false;
}
