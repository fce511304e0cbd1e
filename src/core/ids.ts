// Run ids: short, URL-safe and sortable by creation time. Pure: the clock and randomness are passed in.

const TIME_DIGITS = 9; // base36 epoch milliseconds fit in 9 digits until the year 5188
const RANDOM_DIGITS = 4;

/** A run id: 9 base36 digits of `nowMs` followed by 4 random base36 digits, e.g. `mf3k2x9a0q7zb`. */
export function newRunId(nowMs: number, random: () => number): string {
  if (!Number.isSafeInteger(nowMs) || nowMs < 0) throw new RangeError(`newRunId: bad time ${nowMs}`);
  const time = nowMs.toString(36).padStart(TIME_DIGITS, '0');
  let suffix = '';
  for (let i = 0; i < RANDOM_DIGITS; i++) {
    const digit = Math.min(35, Math.floor(random() * 36));
    suffix += digit.toString(36);
  }
  return time + suffix;
}

/** True when `text` has the shape of a run id (or a prefix of one): lowercase base36 only. */
export function looksLikeRunId(text: string): boolean {
  return /^[0-9a-z]{1,32}$/.test(text);
}
