// A plain-text agent's output decoded only where it can matter (issue 22), when nobody watches it live: bytes in
// which no signal can start are held (copied into one buffer of our own), and of a long run of them only the last
// lines are ever decoded and scanned. Decoding every byte of a flood of output into strings was most of the CPU left
// per chunk and all of the garbage collection it cost.
//
// What is skipped cannot change any answer: it has no byte a signal starts with (so no signal, nor an echo of one,
// begins in it); what is kept after it starts at a line start, its first line has a word (so the echo rule's words
// of the line before a signal come from kept text) and it is at least 192 KiB (>= 64 Ki characters: the agent's own
// text that an iteration keeps). Nothing is skipped until the line of the last signal start has ended and 2 KiB more
// were passed on: a signal (or the words after it) that goes on past its chunk is scanned whole, and the scanners'
// carried seams hold no signal start at a skip. The caller is told of each skip, to forget the current line.
import { StringDecoder } from 'node:string_decoder';

/** Bytes held without a signal start before the oldest are skipped. */
const HOLD_BYTES = 1024 * 1024;
/** At most this much is kept at a skip... */
const KEEP_BYTES = 256 * 1024;
/** ...and at least this much: decoded, at least 64 Ki UTF-16 units (a unit takes 1 to 3 bytes). */
const MIN_KEEP_BYTES = 192 * 1024;
/** Bytes passed on after the last signal start (and its line's end) before anything is skipped. */
const GUARD_BYTES = 2048;
/** The first kept line must have a word (an ASCII letter, digit or _) and end within this many bytes. */
const LINE_SCAN_BYTES = 4096;
/** The held buffer's first size; it doubles as needed. */
const FIRST_BYTES = 64 * 1024;

/** Bytes in, text out (see the header). */
export interface LazyText {
  /** The next bytes of the stream (copied: the caller may reuse them once this returns). */
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
  let held = Buffer.alloc(0);
  let size = 0;
  /** Output is passed on without skips until the line of the last signal start has ended and GUARD_BYTES followed. */
  let eager = false;
  let afterStart = GUARD_BYTES;
  let lineEnded = true;
  const flush = (): void => {
    if (size === 0) return;
    const out = decoder.write(held.subarray(0, size));
    size = 0;
    if (out !== '') text(out);
  };
  const hold = (bytes: Buffer): void => {
    if (size + bytes.length > held.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(FIRST_BYTES, held.length * 2, size + bytes.length));
      held.copy(grown, 0, 0, size);
      held = grown;
    }
    size += bytes.copy(held, size);
  };
  const skip = (): void => {
    const at = skipPoint(held.subarray(0, size));
    if (at === null) return flush();
    held.copy(held, 0, at, size);
    size -= at;
    decoder = new StringDecoder('utf8');
    skipped();
  };
  return {
    push(bytes) {
      if (bytes.length === 0) return;
      // A chunk that ends the eager stretch is passed on too: it holds the end of the signal's line, or the guard.
      const passOn = eager;
      let lastStart = -1;
      for (const b of startBytes) lastStart = Math.max(lastStart, bytes.lastIndexOf(b));
      if (lastStart >= 0) {
        afterStart = bytes.length - lastStart - 1;
        lineEnded = bytes.indexOf(0x0a, lastStart) >= 0;
      } else if (eager) {
        afterStart += bytes.length;
        lineEnded ||= bytes.includes(0x0a);
      }
      eager = !lineEnded || afterStart < GUARD_BYTES;
      hold(bytes);
      if (lastStart >= 0 || eager || passOn) flush();
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
function skipPoint(held: Buffer): number | null {
  const nl = held.indexOf(0x0a, held.length - KEEP_BYTES);
  if (nl < 0 || held.length - (nl + 1) < MIN_KEEP_BYTES || !lineWithWord(held, nl + 1)) return null;
  return nl + 1;
}

/** True when the line starting at `start` ends within LINE_SCAN_BYTES and has an ASCII word byte. */
function lineWithWord(held: Buffer, start: number): boolean {
  const end = held.indexOf(0x0a, start);
  if (end < 0 || end - start > LINE_SCAN_BYTES) return false;
  for (let i = start; i < end; i++) {
    const b = held[i] as number;
    if ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f) return true;
  }
  return false;
}
