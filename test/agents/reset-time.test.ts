import { describe, expect, it } from 'vitest';
import { parseResetTime, resetAtFromEpochSeconds, zonedTimeToEpochMs } from '../../src/agents/reset-time.js';

// 2026-11-22 13:00:00 UTC = 14:00 in Paris (CET, UTC+1), 08:00 in New York (EST, UTC-5).
const NOW = Date.UTC(2026, 10, 22, 13, 0, 0);
const paris = { nowMs: NOW, timeZone: 'Europe/Paris' };
const utc = { nowMs: NOW, timeZone: 'UTC' };

describe('parseResetTime', () => {
  it('reads "resets 5pm (Europe/Paris)" in the named zone, later today', () => {
    expect(parseResetTime("You've hit your limit · resets 5pm (Europe/Paris)", utc)).toBe(Date.UTC(2026, 10, 22, 16, 0));
  });
  it('reads "resets 5pm" in the local zone', () => {
    expect(parseResetTime('resets 5pm', paris)).toBe(Date.UTC(2026, 10, 22, 16, 0));
    expect(parseResetTime('resets 5pm', utc)).toBe(Date.UTC(2026, 10, 22, 17, 0));
  });
  it('a time already past today means tomorrow', () => {
    expect(parseResetTime("You've hit your usage limit. Try again at 9:45 AM.", utc)).toBe(Date.UTC(2026, 10, 23, 9, 45));
    expect(parseResetTime('try again at 9:45 AM', { nowMs: NOW, timeZone: 'America/New_York' })).toBe(
      Date.UTC(2026, 10, 22, 14, 45),
    );
  });
  it('a time within the last few minutes means now, not tomorrow (minute precision)', () => {
    // Codex prints "try again at 1:00 PM" for a reset at 13:00:40; read at 13:00:05 that is not a day away.
    const justAfter = { nowMs: NOW + 5_000, timeZone: 'UTC' };
    expect(parseResetTime("You've hit your usage limit. Try again at 1:00 PM.", justAfter)).toBe(NOW + 5_000);
    expect(parseResetTime('try again at 12:56 PM', utc)).toBe(NOW);
    expect(parseResetTime('resets 1pm', { nowMs: NOW + 5 * 60_000, timeZone: 'UTC' })).toBe(NOW + 5 * 60_000);
    expect(parseResetTime('try again at 12:54 PM', utc)).toBe(Date.UTC(2026, 10, 23, 12, 54));
    expect(parseResetTime('resets Nov 22, 12:58pm', utc)).toBe(NOW);
  });
  it('reads Codex\'s other-day form with ordinal and year', () => {
    expect(parseResetTime("You've hit your usage limit. Try again at Nov 23rd, 2026 9:45 AM.", utc)).toBe(Date.UTC(2026, 10, 23, 9, 45));
    expect(parseResetTime('try again at Dec 1st, 2026 12:05 AM', paris)).toBe(Date.UTC(2026, 10, 30, 23, 5));
    expect(parseResetTime('try again at Nov 22nd, 2026 12:57 PM', utc)).toBe(NOW);
  });
  it('reads 12am/12pm and 24-hour times with minutes', () => {
    expect(parseResetTime('resets 12am', utc)).toBe(Date.UTC(2026, 10, 23, 0, 0));
    expect(parseResetTime('resets 12pm', utc)).toBe(Date.UTC(2026, 10, 23, 12, 0));
    expect(parseResetTime('resets at 17:30', utc)).toBe(Date.UTC(2026, 10, 22, 17, 30));
  });
  it('reads a month and day', () => {
    expect(parseResetTime('resets Nov 24, 5pm (Europe/Paris)', utc)).toBe(Date.UTC(2026, 10, 24, 16, 0));
    expect(parseResetTime('resets Jan 2 at 9am', utc)).toBe(Date.UTC(2027, 0, 2, 9, 0));
  });
  it('reads relative times', () => {
    expect(parseResetTime('Please try again in 2 hours', utc)).toBe(NOW + 2 * 3_600_000);
    expect(parseResetTime('retry in 30 minutes', utc)).toBe(NOW + 30 * 60_000);
    expect(parseResetTime('resets in 1h 30m', utc)).toBe(NOW + 90 * 60_000);
  });
  it('reads ISO timestamps', () => {
    expect(parseResetTime('limit resets at 2026-11-23T01:02:03Z', utc)).toBe(Date.UTC(2026, 10, 23, 1, 2, 3));
  });
  it('returns null when no time is given', () => {
    expect(parseResetTime('rate limit exceeded', utc)).toBeNull();
    expect(parseResetTime('try again at 5', utc)).toBeNull();
    expect(parseResetTime('resets 25pm', utc)).toBeNull();
  });
  it('falls back to the local zone for an unknown zone name', () => {
    expect(parseResetTime('resets 5pm (Mars/Olympus)', utc)).toBe(Date.UTC(2026, 10, 22, 17, 0));
  });
});

describe('resetAtFromEpochSeconds', () => {
  it('converts seconds to ms and rejects junk', () => {
    expect(resetAtFromEpochSeconds(1_795_000_000)).toBe(1_795_000_000_000);
    expect(resetAtFromEpochSeconds(1_795_000_000_000)).toBe(1_795_000_000_000);
    expect(resetAtFromEpochSeconds('soon')).toBeNull();
    expect(resetAtFromEpochSeconds(0)).toBeNull();
  });
});

describe('zonedTimeToEpochMs', () => {
  it('handles daylight saving time', () => {
    expect(zonedTimeToEpochMs({ year: 2026, month: 7, day: 1, hour: 17, minute: 0 }, 'Europe/Paris')).toBe(Date.UTC(2026, 6, 1, 15, 0));
  });
});
