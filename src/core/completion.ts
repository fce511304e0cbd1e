// Completion detection of workflow loops (docs/workflows.md): `<promise>SIGNAL</promise>` anywhere (whitespace inside
// the tags, any case), or the plain SIGNAL (exact case) standing on its own line or at the end of the output.
// Streaming: chunks may split anywhere; memory is bounded by the signal's length, not by the output's.
import { createSignalScanner, type SignalScanner } from './signals.js';

/** Decoration allowed around a plain signal on its line: markdown emphasis and code marks. */
const DECORATION = '*_`';
/** What may follow a plain signal besides decoration: a full stop or an exclamation mark. */
const TRAILING = `${DECORATION}.!`;
/** Room for decoration around the signal before a line stops being a candidate. */
const SLACK = 16;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function charClass(chars: string): string {
  return `[${chars.replace(/[\]\\^-]/g, '\\$&')}]`;
}

/**
 * The signal's body: `COMPLETE` for both `COMPLETE` and `<promise>COMPLETE</promise>`, its whitespace runs
 * collapsed to one space (the matchers treat any run of whitespace inside the signal alike).
 */
export function signalBody(signal: string): string {
  const tagged = /^<\s*promise\s*>([\s\S]*?)<\s*\/\s*promise\s*>$/i.exec(signal.trim());
  return (tagged ? (tagged[1] ?? '') : signal).trim().split(/\s+/).join(' ');
}

/** Streaming detector of one workflow completion signal in the agent's own text. */
export interface CompletionScanner {
  /** Feeds the next chunk of the agent's text; returns whether the signal was found so far. */
  feed(chunk: string): boolean;
  /** Declares the output finished (enables the end-of-output rule); returns the final verdict. */
  end(): boolean;
  /** Found so far (the end-of-output rule only counts after end()). */
  readonly found: boolean;
}

/** Creates a scanner for `signal` (a word such as COMPLETE, or `<promise>COMPLETE</promise>`). */
export function createCompletionScanner(signal: string): CompletionScanner {
  const body = signalBody(signal);
  if (body === '') throw new Error('a completion signal cannot be empty');
  const bodyPattern = body.split(' ').map(escapeRegExp).join(' ');
  const promise: SignalScanner = createSignalScanner([`<promise>${body}</promise>`]);
  // The current line and the tail are kept with every whitespace run collapsed to one space.
  const ownLine = new RegExp(`^ ?${charClass(DECORATION)}*${bodyPattern}${charClass(TRAILING)}* ?$`);
  const signalAtEnd = `${charClass(DECORATION)}*${bodyPattern}${charClass(TRAILING)}* ?$`;
  const atEnd = new RegExp(`(?:^|[^\\p{L}\\p{N}_])${signalAtEnd}`, 'u');
  const atEndAfter = new RegExp(`[^\\p{L}\\p{N}_]${signalAtEnd}`, 'u');
  const lineCap = body.length + SLACK;
  const tailCap = body.length + SLACK + 1;
  let line = '';
  let lineDead = false;
  let tail = '';
  let tailCut = false;
  let found = false;
  let ended = false;

  const closeLine = (): void => {
    if (!lineDead && ownLine.test(line)) found = true;
    line = '';
    lineDead = false;
  };

  return {
    feed(chunk: string): boolean {
      if (found || ended || chunk === '') return found;
      if (promise.feed(chunk)) {
        found = true;
        return found;
      }
      const parts = chunk.split('\n');
      parts.forEach((part, index) => {
        if (index > 0) closeLine();
        if (lineDead) return;
        line = joinCollapsed(line, part);
        if (line.length > lineCap) {
          lineDead = true;
          line = '';
        }
      });
      const joined = joinCollapsed(tail, chunk);
      if (joined.length > tailCap) {
        tailCut = true;
        tail = joined.slice(joined.length - tailCap);
      } else {
        tail = joined;
      }
      return found;
    },
    end(): boolean {
      if (ended) return found;
      ended = true;
      if (found) return found;
      closeLine();
      // A tail cut at its cap lost its start: the signal then needs a kept character before it.
      if ((tailCut ? atEndAfter : atEnd).test(tail)) found = true;
      return found;
    },
    get found() {
      return found;
    },
  };
}

/** Appends `text` to an already collapsed string, collapsing every whitespace run to one space. */
function joinCollapsed(collapsed: string, text: string): string {
  const next = text.replace(/\s+/g, ' ');
  return collapsed.endsWith(' ') && next.startsWith(' ') ? collapsed + next.slice(1) : collapsed + next;
}

/** Whole-text convenience: does `text` (the agent's complete output) carry the completion signal? */
export function detectCompletion(text: string, signal: string): boolean {
  const scanner = createCompletionScanner(signal);
  scanner.feed(text);
  return scanner.end();
}
