// When to try again after the WebSocket closed: exponential backoff with jitter, capped, reset by a
// connection that stayed up. Pure: the random number is passed in.

/** First retry delay (ms). */
export const FIRST_DELAY_MS = 500;

/** Longest delay between two attempts (ms): a restarted server is found within this. */
export const MAX_DELAY_MS = 10_000;

/** Delay before attempt number `attempt` (0 = the first retry); `random` in [0, 1) spreads clients apart. */
export function retryDelay(attempt: number, random: number): number {
  const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, attempt));
  return Math.round(base / 2 + (base / 2) * random);
}
