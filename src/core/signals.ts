// Streaming detection of promise signals in the agent's own text, tolerant of whitespace, case and chunk splits.

/** Success signals used when none are configured (the OODA procedures' promises and the manager's platform signal). */
export const DEFAULT_SUCCESS_SIGNALS: readonly string[] = ['<promise>COMPLETE</promise>', '<promise>SUCCESS</promise>', '<ringmaster>COMPLETE</ringmaster>'];
/** Failure signal used when none is configured. */
export const DEFAULT_FAILURE_SIGNAL = '<promise>FAILURE</promise>';

/** How many characters of the previous chunk are kept so a signal split across chunks still matches. */
const CARRY = 512;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Builds the regex for one signal. `<tag>BODY</tag>` allows whitespace anywhere inside the tags and around
 * the body, any case; any other text matches literally, any case, with runs of whitespace equivalent.
 */
export function signalPattern(signal: string): RegExp {
  const tagged = /^<\s*([A-Za-z][\w-]*)\s*>([\s\S]*?)<\s*\/\s*\1\s*>$/.exec(signal.trim());
  if (tagged) {
    const tag = escapeRegExp(tagged[1] ?? '');
    const body = (tagged[2] ?? '').trim().split(/\s+/).map(escapeRegExp).join('\\s+');
    return new RegExp(`<\\s*${tag}\\s*>\\s*${body}\\s*<\\s*/\\s*${tag}\\s*>`, 'i');
  }
  const literal = signal.trim().split(/\s+/).map(escapeRegExp).join('\\s+');
  return new RegExp(literal, 'i');
}

/**
 * A quick test that is false only when no signal can occur in a text: none of the characters a signal can start
 * with is in it (one `indexOf` per character, far faster than the regex on output without them).
 */
export function signalStarts(signals: readonly string[]): (text: string) => boolean {
  const firsts = new Set<string>();
  for (const signal of signals) {
    const first = signal.trim().charAt(0);
    if (first === '') continue;
    // Case-insensitive: both cases of an ASCII letter; anything else (case folding of other scripts) is not tried.
    if (first.charCodeAt(0) >= 128) return () => true;
    firsts.add(first.toLowerCase()).add(first.toUpperCase());
  }
  const list = [...firsts];
  return (text) => list.some((c) => text.includes(c));
}

/** Reports whether any of the signals occurs in a complete text. */
export function containsSignal(text: string, signals: readonly string[]): boolean {
  return signals.some((s) => s.trim() !== '' && signalPattern(s).test(text));
}

/** Incremental scanner: feed it chunks in order; `found` turns true once any signal has appeared. */
export interface SignalScanner {
  feed(chunk: string): boolean;
  readonly found: boolean;
  /** Told that the output has ended (a rule about the end of the output can only be judged then); returns `found`. */
  end?(): boolean;
}

/** A scanner's compiled signals: one regex for all (no `g` flag: no state, shared by every scanner of the same signals). */
interface CompiledSignals {
  pattern: RegExp | null;
  mayMatch: (text: string) => boolean;
}

/** Compiled signal lists, by their text: a loop builds the same scanners every iteration. Small and bounded. */
const compiledSignals = new Map<string, CompiledSignals>();

function compileSignals(signals: readonly string[]): CompiledSignals {
  const key = signals.join('\0');
  let compiled = compiledSignals.get(key);
  if (compiled === undefined) {
    const sources = signals.filter((s) => s.trim() !== '').map((s) => `(?:${signalPattern(s).source})`);
    // One regex for all signals: one pass per chunk whatever the number of signals.
    compiled = { pattern: sources.length === 0 ? null : new RegExp(sources.join('|'), 'i'), mayMatch: signalStarts(signals) };
    if (compiledSignals.size >= 64) compiledSignals.clear();
    compiledSignals.set(key, compiled);
  }
  return compiled;
}

/** Creates a scanner for the given signals that holds at most a small carry-over in memory. */
export function createSignalScanner(signals: readonly string[]): SignalScanner {
  const { pattern, mayMatch } = compileSignals(signals);
  let carry = '';
  let found = false;
  return {
    feed(chunk: string): boolean {
      if (found || pattern === null || chunk === '') return found;
      if (chunk.length >= CARRY) {
        // Test the seam (a signal split across chunks) and the chunk itself, without building carry + chunk.
        found = pattern.test(carry + chunk.slice(0, CARRY)) || (mayMatch(chunk) && pattern.test(chunk));
        carry = chunk.slice(chunk.length - CARRY);
      } else {
        const window = carry + chunk;
        found = pattern.test(window);
        carry = window.length > CARRY ? window.slice(window.length - CARRY) : window;
      }
      if (found) carry = '';
      return found;
    },
    get found() {
      return found;
    },
  };
}
