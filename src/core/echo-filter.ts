// Drops a verbatim echo of the prompt at the start of a plain-text agent's output, so that a signal quoted
// in the prompt's instructions never counts as the agent's own (an agent like `cat` would otherwise
// "complete" every run). Streaming and bounded: at most the prompt's length is held back.

/** Filters one output stream; `push` returns the text to scan (possibly empty). */
export interface EchoFilter {
  push(chunk: string): string;
  /** Text still held back when the stream ends (a partial echo of the prompt is the agent's text after all). */
  end(): string;
}

/** Creates a filter that removes `prompt` if the output starts with exactly it (leading whitespace ignored). */
export function createEchoFilter(prompt: string): EchoFilter {
  const echo = prompt.trim();
  let state: 'leading' | 'matching' | 'done' = echo === '' ? 'done' : 'leading';
  let matched = 0;
  let held = '';
  return {
    push(chunk: string): string {
      if (state === 'done') return chunk;
      let text = chunk;
      if (state === 'leading') {
        const start = text.search(/\S/);
        if (start < 0) {
          held += text;
          return '';
        }
        held += text.slice(0, start);
        text = text.slice(start);
        state = 'matching';
      }
      const want = echo.slice(matched, matched + text.length);
      const n = Math.min(text.length, want.length);
      if (text.slice(0, n) === want.slice(0, n) && n === want.length) {
        matched += n;
        if (matched === echo.length) {
          state = 'done';
          held = '';
          return text.slice(n);
        }
        held += text;
        return '';
      }
      state = 'done';
      const out = held + text;
      held = '';
      return out;
    },
    end(): string {
      const out = state === 'done' ? '' : held;
      held = '';
      state = 'done';
      return out;
    },
  };
}
