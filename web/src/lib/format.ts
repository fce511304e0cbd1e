// How the dashboard writes money, durations, counts and countdowns (the same forms as the CLI's tables).
import { formatElapsed } from '../../../src/core/duration.js';

/** Dollars with 2 decimals, 4 below one dollar ('$12.34', '$0.0123'); '?' when unknown, '+?' marks a partly known sum. */
export function usd(value: number | null, partlyUnknown = false): string {
  if (value === null) return '?';
  const text = `$${value.toFixed(value !== 0 && Math.abs(value) < 1 ? 4 : 2)}`;
  return partlyUnknown ? `${text}+?` : text;
}

/**
 * A run's or iteration's cost in words: 'cost unknown' when the agent reports none, 'at least $x' when part of it
 * is unknown (an agent without cost reporting, an iteration cut short), else the amount.
 */
export function costText(value: number | null, unknown: boolean): string {
  if (value === null || (unknown && value === 0)) return 'cost unknown';
  return unknown ? `at least ${usd(value)}` : usd(value);
}

/** Why a cost is not fully known (a tooltip). */
export const COST_UNKNOWN_WHY = 'the agent does not report what it spends (a plain command), or an iteration was cut short before it did';

/** Elapsed time as the CLI prints it ('45.2s', '2m16s', '1h02m03s'); '-' when unknown. */
export function elapsed(ms: number | null): string {
  return ms === null ? '-' : formatElapsed(ms);
}

/** A count with thousands separators ('18,211'); '-' when unknown. */
export function count(n: number | null): string {
  return n === null ? '-' : n.toLocaleString('en-US');
}

/** Time left until `until` as a countdown ('1h 02m 03s', '4m 05s', '9s'); 'now' once it has passed. */
export function countdown(until: number, now: number): string {
  const left = Math.ceil((until - now) / 1000);
  if (left <= 0) return 'now';
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = left % 60;
  const pad = (n: number): string => String(n).padStart(2, '0');
  if (h > 0) return `${h}h ${pad(m)}m ${pad(s)}s`;
  if (m > 0) return `${m}m ${pad(s)}s`;
  return `${s}s`;
}

/** Milliseconds until the countdown's text next changes (for a timer that ticks exactly when needed). */
export function nextTick(until: number, now: number): number {
  const left = until - now;
  if (left <= 0) return Infinity;
  const rest = left % 1000;
  return rest === 0 ? 1000 : rest;
}

/** The first line of a prompt label or text, shortened to `max` characters with an ellipsis. */
export function title(text: string, max = 80): string {
  const line = text.split('\n', 1)[0]?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
