// Raw agent output with ANSI escape codes -> styled segments for React (never HTML strings). Parsing is
// anser's; the 16 standard colours become class names (so each theme picks readable shades), 256-colour
// and true-colour codes an inline rgb colour.
import Anser from 'anser';

/** One run of text with one style. */
export interface AnsiSegment {
  text: string;
  /** Class names: `ansi-red`, `ansi-bright-blue-bg`, `ansi-bold`, ... */
  classes: string[];
  /** Inline colours for 256-colour and true-colour codes (`rgb(r, g, b)`). */
  color: string | null;
  background: string | null;
}

const NAMED = /^ansi-(bright-)?(black|red|green|yellow|blue|magenta|cyan|white)$/;
const ESC = '\u001b';

/** True when the text contains an escape character (most lines do not: they skip parsing). */
export function hasAnsi(text: string): boolean {
  return text.includes(ESC);
}

/** Splits one line into styled segments; a line without escape codes is one plain segment. */
export function ansiSegments(line: string): AnsiSegment[] {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (!hasAnsi(text)) return text === '' ? [] : [{ text, classes: [], color: null, background: null }];
  const named = Anser.ansiToJson(text, { json: true, use_classes: true, remove_empty: true });
  const rgb = Anser.ansiToJson(text, { json: true, use_classes: false, remove_empty: true });
  return named.map((entry, i) => {
    const plain = rgb[i];
    const classes: string[] = [];
    let color: string | null = null;
    let background: string | null = null;
    if (entry.fg && NAMED.test(entry.fg)) classes.push(entry.fg);
    else if (plain?.fg) color = `rgb(${plain.fg})`;
    if (entry.bg && NAMED.test(entry.bg)) classes.push(`${entry.bg}-bg`);
    else if (plain?.bg) background = `rgb(${plain.bg})`;
    for (const decoration of entry.decorations) classes.push(`ansi-${decoration}`);
    return { text: entry.content, classes, color, background };
  });
}
