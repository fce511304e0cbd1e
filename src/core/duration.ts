// Durations as users write them ('90s', '5m', '4h', '1h30m', '250ms') and as the CLI prints them ('2m16s').

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Longest configurable duration (100 years): longer ones are typos, and stay exact integers of ms. */
export const MAX_DURATION_MS = 36_500 * 86_400_000;

/** Parses a duration like '90s', '5m', '4h', '1h30m', '1.5s', '250ms' or a bare number of seconds; null if invalid. */
export function parseDuration(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(trimmed)) !== null) {
    total += Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? 0);
    matched += m[0].length;
  }
  if (matched !== trimmed.length) return null;
  return Math.round(total);
}

/** Formats elapsed time the way the progress lines do: '45.2s', '2m16s', '1h02m03s'. */
export function formatElapsed(ms: number): string {
  if (ms < 60_000) return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
  const totalSeconds = Math.floor(ms / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m${String(s).padStart(2, '0')}s`;
  return `${m}m${String(s).padStart(2, '0')}s`;
}

/** Formats a configured duration back to the short form ('5m', '90s', '250ms'). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  for (const [unit, size] of [['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
