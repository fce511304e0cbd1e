// The echo rule for plain-text agents: a signal that the agent's output reproduces from the prompt is not the
// agent's signal. An agent that prints its input back (`cat`, or "You said: ...", or the prompt quoted twice,
// after anything else) would otherwise "complete" every run with the example in your instructions.
//
// The rule, in words: an occurrence of a signal in the output is an echo when the words right around it are
// those around the same signal in the prompt: the (up to) 4 words before it on its line and the (up to) 4 words
// after it on its line, compared without case, punctuation or spacing (so a prefix like `> ` or `You said: "`
// changes nothing). A signal that starts its line in the prompt is told by the last words of the line before.
// The prompt must give at least one such word; a signal alone in the prompt cannot be told from the agent's own.
// Echoed occurrences are blanked; everything else reaches the signal scanners unchanged. Streaming, bounded.
import { signalPattern } from './signals.js';

/** Filters one output stream; `push` returns the text to scan (possibly empty). */
export interface EchoFilter {
  push(chunk: string): string;
  /** Text still held back when the stream ends. */
  end(): string;
}

/** Words compared around a signal, on each side. */
const CONTEXT_WORDS = 4;
/** A line longer than this is passed on without waiting for its end (no prompt line is that long in practice). */
const MAX_LINE_CHARS = 1024 * 1024;
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
 */
export function createEchoFilter(prompt: string, signals: readonly string[]): EchoFilter {
  const contexts = promptContexts(prompt, signals);
  const any = combined(signals, 'i');
  if (contexts.length === 0 || any === null) return { push: (chunk) => chunk, end: () => '' };
  const each = combined(signals, 'gi') ?? any;
  let pending = '';
  // The last words of the last output line that had words (for signals that start their line in the prompt).
  let previous: string[] = [];

  const remember = (text: string): void => {
    const found = words(text.length > HISTORY_CHARS ? text.slice(-HISTORY_CHARS) : text).slice(-CONTEXT_WORDS);
    if (found.length > 0) previous = found;
  };

  const isEcho = (key: string, onLine: string[], after: string[]): boolean =>
    contexts.some((c) => {
      if (c.key !== key || !startsWith(after, c.after)) return false;
      const before = c.beforeFrom === 'line' || onLine.length > 0 ? onLine : previous;
      return endsWith(before, c.before);
    });

  /** One complete line (with its newline, if any): echoed signals blanked. */
  const line = (text: string): string => {
    if (!any.test(text)) {
      remember(text);
      return text;
    }
    let out = '';
    let last = 0;
    for (const m of text.matchAll(each)) {
      const start = m.index;
      const end = start + m[0].length;
      const before = words(text.slice(0, start)).slice(-CONTEXT_WORDS);
      const after = words(text.slice(end)).slice(0, CONTEXT_WORDS);
      if (isEcho(signalKey(m[0]), before, after)) {
        out += `${text.slice(last, start)} `;
        last = end;
      }
    }
    out += text.slice(last);
    remember(text);
    return out;
  };

  /** Complete lines: the common case (no signal anywhere) passes in one test. */
  const block = (text: string): string => {
    if (!any.test(text)) {
      remember(text);
      return text;
    }
    let out = '';
    let from = 0;
    while (from < text.length) {
      const nl = text.indexOf('\n', from);
      const to = nl < 0 ? text.length : nl + 1;
      out += line(text.slice(from, to));
      from = to;
    }
    return out;
  };

  return {
    push(chunk: string): string {
      const nl = chunk.lastIndexOf('\n');
      if (nl < 0) {
        pending += chunk;
        if (pending.length <= MAX_LINE_CHARS) return '';
        const long = pending;
        pending = '';
        return block(long);
      }
      const complete = pending + chunk.slice(0, nl + 1);
      pending = chunk.slice(nl + 1);
      return block(complete);
    },
    end(): string {
      const rest = pending;
      pending = '';
      return rest === '' ? '' : block(rest);
    },
  };
}
