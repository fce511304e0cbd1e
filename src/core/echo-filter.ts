// The echo rule for plain-text agents: a signal that the agent's output reproduces from the prompt is not the
// agent's signal. An agent that prints its input back (`cat`, or "You said: ...", or the prompt quoted twice,
// after anything else) would otherwise "complete" every run with the example in your instructions.
//
// The rule, in words: an occurrence of a signal in the output is an echo when the words right around it are
// those around the same signal in the prompt: the (up to) 4 words before it on its line and the (up to) 4 words
// after it on its line, compared without case, punctuation or spacing (so a prefix like `> ` or `You said: "`
// changes nothing). A signal that starts its line in the prompt is told by the last words of the line before.
// The prompt must give at least one such word; a signal alone in the prompt cannot be told from the agent's own.
// Echoed occurrences are blanked; everything else reaches the signal scanners unchanged. Streaming, and bounded
// whatever the output looks like (a line of 1 GiB without a newline included).
import { signalPattern, signalStarts } from './signals.js';

/** Filters one output stream; `push` returns the text to scan (possibly empty). */
export interface EchoFilter {
  push(chunk: string): string;
  /** What `push` returns, in pieces: a flood of output is passed on without joining it into new big strings. */
  pieces(chunk: string): string[];
  /** Text still held back when the stream ends. */
  end(): string;
  /**
   * The output goes on at a line start after text that was not passed (runner/lazy-text.ts: no signal can start in
   * it): the current line and the words before it are forgotten.
   */
  restart(): void;
}

/** Words compared around a signal, on each side. */
const CONTEXT_WORDS = 4;
/** A line whose undelivered part grows past this is delivered but its last KEEP_CHARS (no prompt line is that long). */
const HOLD_CHARS = 64 * 1024;
/** What a long line keeps back: enough for the words after a signal and for a signal itself. */
const KEEP_CHARS = 4096;
/** Enough text to hold the last CONTEXT_WORDS words of anything but absurdly long words. */
const HISTORY_CHARS = 4096;

const WORD = /[\p{L}\p{N}_]+/gu;

/** The words of a text, lower-cased (punctuation and spacing dropped). */
export function words(text: string): string[] {
  return (text.match(WORD) ?? []).map((w) => w.toLowerCase());
}

/** A signal as found: its text without case or spacing, to tell signals apart. */
function signalKey(match: string): string {
  return match.toLowerCase().replace(/\s+/g, '');
}

/** One signal occurrence in the prompt and the words around it. */
export interface EchoContext {
  key: string;
  /** The words before it on its line, or (when there are none) the last words of the line before. */
  before: string[];
  /** Where `before` comes from. */
  beforeFrom: 'line' | 'previous_line';
  after: string[];
}

/** The start of the line `at` is on. */
function lineStart(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

/** The last words of the last line with words before `at` (a line of only spacing or punctuation is skipped). */
function previousLineWords(text: string, at: number): string[] {
  let end = lineStart(text, at) - 1;
  while (end > 0) {
    const start = lineStart(text, end);
    const found = words(text.slice(start, end)).slice(-CONTEXT_WORDS);
    if (found.length > 0) return found;
    end = start - 1;
  }
  return [];
}

function endsWith(list: readonly string[], tail: readonly string[]): boolean {
  if (tail.length > list.length) return false;
  const offset = list.length - tail.length;
  return tail.every((w, i) => list[offset + i] === w);
}

function startsWith(list: readonly string[], head: readonly string[]): boolean {
  return head.length <= list.length && head.every((w, i) => list[i] === w);
}

/** The last CONTEXT_WORDS words of `text`, after `earlier` (the words before it on its line). */
function lastWords(earlier: readonly string[], text: string): string[] {
  const found = words(text);
  if (found.length >= CONTEXT_WORDS) return found.slice(-CONTEXT_WORDS);
  return [...earlier, ...found].slice(-CONTEXT_WORDS);
}

/** The last words of the last line with words of complete lines `text` (none: []). */
function lastLineWords(text: string): string[] {
  let end = text.length;
  while (end > 0) {
    const start = end >= 2 ? text.lastIndexOf('\n', end - 2) + 1 : 0;
    const found = words(text.slice(Math.max(start, end - HISTORY_CHARS), end)).slice(-CONTEXT_WORDS);
    if (found.length > 0) return found;
    end = start;
  }
  return [];
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** True for a code unit of a word (half a surrogate pair counts: a pair is never cut). */
function wordUnit(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return (code >= 0xd800 && code <= 0xdfff) || WORD_CHAR.test(text.charAt(at));
}

/**
 * Where to cut a long line's undelivered text near `target`: not inside a word (unless it is absurdly long) and
 * never inside a signal (a signal crossing `target` stays with what is kept).
 */
function cutPoint(text: string, target: number, each: RegExp): number {
  let at = target;
  const floor = Math.max(0, target - HISTORY_CHARS);
  while (at > floor && wordUnit(text, at - 1) && wordUnit(text, at)) at -= 1;
  if (at === floor && floor > 0) at = target;
  for (const m of text.matchAll(each)) {
    if (m.index >= at) break;
    if (m.index + m[0].length > at) {
      at = m.index;
      break;
    }
  }
  return at > 0 ? at : target;
}

function combined(signals: readonly string[], flags: string): RegExp | null {
  const sources = signals.filter((s) => s.trim() !== '').map((s) => `(?:${signalPattern(s).source})`);
  return sources.length === 0 ? null : new RegExp(sources.join('|'), flags);
}

/** The signal occurrences of the prompt that have words around them (the only ones an echo can be told by). */
export function promptContexts(prompt: string, signals: readonly string[]): EchoContext[] {
  const pattern = combined(signals, 'gi');
  if (pattern === null) return [];
  const contexts: EchoContext[] = [];
  for (const m of prompt.matchAll(pattern)) {
    const start = m.index;
    const end = start + m[0].length;
    const lineEnd = prompt.indexOf('\n', end);
    const onLine = words(prompt.slice(lineStart(prompt, start), start)).slice(-CONTEXT_WORDS);
    const before = onLine.length > 0 ? onLine : previousLineWords(prompt, start);
    const after = words(prompt.slice(end, lineEnd < 0 ? prompt.length : lineEnd)).slice(0, CONTEXT_WORDS);
    if (before.length + after.length > 0) contexts.push({ key: signalKey(m[0]), before, beforeFrom: onLine.length > 0 ? 'line' : 'previous_line', after });
  }
  return contexts;
}

/**
 * Creates the filter for one iteration's output: `prompt` is what the agent was given, `signals` every signal
 * scanned for (success and failure).
 *
 * What it holds is bounded whatever the output looks like: the part of the current line not delivered yet (at
 * most HOLD_CHARS plus one chunk: a longer line is delivered but its last KEEP_CHARS), the last words of the
 * current line's delivered part and those of the last line with words. Complete lines are delivered as they come.
 */
export function createEchoFilter(prompt: string, signals: readonly string[]): EchoFilter {
  const contexts = promptContexts(prompt, signals);
  const any = combined(signals, 'i');
  if (contexts.length === 0 || any === null) return { push: (chunk) => chunk, pieces: (chunk) => [chunk], end: () => '', restart: () => undefined };
  return new LineEchoFilter(contexts, any, combined(signals, 'gi') ?? any, signalStarts(signals));
}

/** The echo filter of an output with something to compare (see createEchoFilter): its state is the three fields. */
class LineEchoFilter implements EchoFilter {
  /** The current line's text not delivered yet. */
  private held = '';
  /** The last words of the current line's delivered part. */
  private lineWords: string[] = [];
  /** The last words of the last complete output line that had words (for signals that start their line in the prompt). */
  private previous: string[] = [];

  constructor(
    private readonly contexts: readonly EchoContext[],
    private readonly any: RegExp,
    private readonly each: RegExp,
    private readonly mayMatch: (text: string) => boolean,
  ) {}

  push(chunk: string): string {
    return this.pieces(chunk).join('');
  }

  pieces(chunk: string): string[] {
    const out: string[] = [];
    const first = chunk.indexOf('\n');
    let from = 0;
    if (first >= 0) {
      out.push(this.finishLine(this.held + chunk.slice(0, first + 1)));
      this.held = '';
      from = first + 1;
      const last = chunk.lastIndexOf('\n');
      if (last > first) {
        out.push(this.lines(chunk.slice(from, last + 1)));
        from = last + 1;
      }
    }
    this.held += from === 0 ? chunk : chunk.slice(from);
    if (this.held.length > HOLD_CHARS) out.push(this.deliverLong());
    return out;
  }

  restart(): void {
    this.held = '';
    this.lineWords = [];
    this.previous = [];
  }

  end(): string {
    const rest = this.held;
    this.held = '';
    return rest === '' ? '' : this.finishLine(rest);
  }

  private isEcho(key: string, onLine: string[], after: string[]): boolean {
    return this.contexts.some((c) => {
      if (c.key !== key || !startsWith(after, c.after)) return false;
      const before = c.beforeFrom === 'line' || onLine.length > 0 ? onLine : this.previous;
      return endsWith(before, c.before);
    });
  }

  /**
   * A piece of the current line (`lineWords` are the words before it on its line, `rest` what follows it on
   * the line as far as known): its echoed signals blanked.
   */
  private blank(text: string, rest: string): string {
    if (!this.mayMatch(text) || !this.any.test(text)) return text;
    let out = '';
    let last = 0;
    for (const m of text.matchAll(this.each)) {
      const start = m.index;
      const end = start + m[0].length;
      const before = lastWords(this.lineWords, text.slice(Math.max(0, start - HISTORY_CHARS), start));
      const afterText = text.slice(end, end + HISTORY_CHARS);
      const after = words(afterText.length < HISTORY_CHARS ? afterText + rest.slice(0, HISTORY_CHARS - afterText.length) : afterText).slice(0, CONTEXT_WORDS);
      if (this.isEcho(signalKey(m[0]), before, after)) {
        out += `${text.slice(last, start)} `;
        last = end;
      }
    }
    return out + text.slice(last);
  }

  /** The rest of the current line, with its newline (if any): delivered, and the line's words remembered. */
  private finishLine(text: string): string {
    const out = this.blank(text, '');
    const found = lastWords(this.lineWords, text.slice(-HISTORY_CHARS));
    if (found.length > 0) this.previous = found;
    this.lineWords = [];
    return out;
  }

  /** Complete lines: the common case (no signal anywhere) passes in one test. */
  private lines(text: string): string {
    if (!this.mayMatch(text) || !this.any.test(text)) {
      const found = lastLineWords(text);
      if (found.length > 0) this.previous = found;
      return text;
    }
    let out = '';
    for (let from = 0; from < text.length; ) {
      const nl = text.indexOf('\n', from);
      const to = nl < 0 ? text.length : nl + 1;
      out += this.finishLine(text.slice(from, to));
      from = to;
    }
    return out;
  }

  /** A line grown past HOLD_CHARS: delivered but its last KEEP_CHARS (never cutting a word or a signal). */
  private deliverLong(): string {
    const at = cutPoint(this.held, this.held.length - KEEP_CHARS, this.each);
    const part = this.held.slice(0, at);
    this.held = this.held.slice(at);
    const out = this.blank(part, this.held);
    this.lineWords = lastWords(this.lineWords, part.slice(-HISTORY_CHARS));
    return out;
  }
}
