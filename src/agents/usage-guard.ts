// The runner's check of the usage and cost figures an agent reports: fractional, negative, huge or non-finite
// numbers are normalised here (and reported), so the iteration's row is always written with them; an odd
// figure used to make the store reject the whole completed iteration (its cost lost from the totals).
import type { Usage } from '../core/types.js';

/** Most tokens one iteration can plausibly report (a trillion); above it a figure is nonsense. */
export const MAX_TOKENS = 1e12;
/** Most USD one iteration can plausibly cost; above it a figure is nonsense. */
export const MAX_COST_USD = 1e9;

const FIELDS: ReadonlyArray<[keyof Usage, string]> = [
  ['tokensIn', 'input tokens'],
  ['tokensOut', 'output tokens'],
  ['cacheRead', 'cache read tokens'],
  ['cacheWrite', 'cache write tokens'],
];

/** A usage value the store accepts (whole, non-negative, plausible numbers), and what had to change. */
export function normaliseUsage(usage: Usage): { usage: Usage; problems: string[] } {
  const problems: string[] = [];
  const out: Usage = { ...usage };
  for (const [key, label] of FIELDS) {
    const value = usage[key];
    if (!Number.isFinite(value) || value > MAX_TOKENS) {
      problems.push(`${label} ${String(value)} is not a plausible count: recorded as 0`);
      out[key] = 0;
    } else if (value < 0) {
      problems.push(`${label} ${value} is negative: recorded as 0`);
      out[key] = 0;
    } else if (!Number.isInteger(value)) {
      out[key] = Math.round(value);
      problems.push(`${label} ${value} is not a whole number: recorded as ${out[key]}`);
    }
  }
  return { usage: out, problems };
}

/** A cost the store accepts, or null (unknown) for a figure that cannot be a cost, and what was wrong. */
export function normaliseCost(usd: number): { usd: number | null; problem: string | null } {
  if (!Number.isFinite(usd) || usd > MAX_COST_USD) return { usd: null, problem: `cost ${String(usd)} USD is not a plausible cost: recorded as unknown` };
  if (usd < 0) return { usd: null, problem: `cost ${usd} USD is negative: recorded as unknown` };
  return { usd, problem: null };
}
