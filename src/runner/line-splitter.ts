// Splits streamed text into lines with bounded memory: a line longer than the cap is dropped and counted.

/** Longest line kept (8 MiB): JSON events of agent CLIs are far smaller. */
export const MAX_LINE_CHARS = 8 * 1024 * 1024;

/** A streaming line splitter. */
export interface LineSplitter {
  push(text: string): void;
  end(): void;
  /** Lines dropped for exceeding the cap. */
  readonly oversized: number;
}

/** Creates a splitter that calls `onLine` for every complete line (without the newline, \r stripped). */
export function createLineSplitter(onLine: (line: string) => void, maxChars = MAX_LINE_CHARS): LineSplitter {
  let pending = '';
  let skipping = false;
  let oversized = 0;
  const emit = (line: string) => onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  return {
    push(text: string): void {
      let start = 0;
      for (;;) {
        const nl = text.indexOf('\n', start);
        if (nl < 0) break;
        if (skipping) skipping = false;
        else emit(pending + text.slice(start, nl));
        pending = '';
        start = nl + 1;
      }
      if (skipping) return;
      pending += text.slice(start);
      if (pending.length > maxChars) {
        pending = '';
        skipping = true;
        oversized += 1;
      }
    },
    end(): void {
      if (!skipping && pending !== '') emit(pending);
      pending = '';
      skipping = false;
    },
    get oversized() {
      return oversized;
    },
  };
}
