// Human formatting of the history commands: aligned tables, times, durations, money.

/** Column alignment of a table. */
export type Align = 'left' | 'right';

/** Renders rows under headers as aligned columns (two spaces apart, no trailing spaces). */
export function table(headers: string[], rows: string[][], align: Align[] = []): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (align[i] === 'right' ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

/** Local time as `YYYY-MM-DD HH:MM:SS`, or '-' for null. */
export function localTime(ms: number | null): string {
  if (ms === null) return '-';
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A duration as `850ms`, `12.3s`, `4m05s` or `2h03m`; '-' for null. */
export function duration(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const totalSeconds = Math.floor(ms / 1000);
  if (totalSeconds < 3600) return `${Math.floor(totalSeconds / 60)}m${String(totalSeconds % 60).padStart(2, '0')}s`;
  const minutes = Math.floor(totalSeconds / 60);
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** USD with 4 decimals; `>=` marks a total that misses unknown costs; '?' for an unknown cost (or a total of only unknown costs). */
export function usd(value: number | null, unknownPart = false): string {
  if (value === null || (unknownPart && value === 0)) return '?';
  return `${unknownPart ? '>=' : ''}$${value.toFixed(4)}`;
}

/** A count or '-' for null. */
export function count(value: number | null): string {
  return value === null ? '-' : String(value);
}
