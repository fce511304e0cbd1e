// Parses when a usage or rate limit resets, from the agents' own wording. Pure: the clock and the local
// time zone are passed in. "resets 5pm (Europe/Paris)", "try again at 9:45 AM", "in 2 hours", resetsAt.

/** The clock and zone a reset time is read against. `timeZone` is an IANA name (the user's local zone). */
export interface ResetClock {
  nowMs: number;
  timeZone: string;
}

/**
 * How long after a named clock time it still means "now". Clock texts have minute precision (Codex prints
 * "try again at 3:07 PM" for 15:07:40) and arrive a little late, so a time just past is not tomorrow.
 */
const RECENT_PAST_MS = 5 * 60_000;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

const UNIT_MS: Record<string, number> = {
  s: 1_000,
  sec: 1_000,
  second: 1_000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hour: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
};

/** Converts a `resetsAt` value in epoch seconds (as Claude's rate_limit_event sends it) to epoch ms. */
export function resetAtFromEpochSeconds(value: unknown): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return null;
  // Tolerate a value already in milliseconds (anything past the year 33658 in seconds is ms).
  return value > 1e12 ? Math.round(value) : Math.round(value * 1000);
}

/** True when `zone` is an IANA time zone this runtime knows. */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

interface WallClock {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallClockAt(ms: number, timeZone: string): WallClock {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(ms));
  const get = (type: Intl.DateTimeFormatPartTypes): number =>
    Number(parts.find((p) => p.type === type)?.value ?? '0');
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
}

function offsetMs(ms: number, timeZone: string): number {
  const w = wallClockAt(ms, timeZone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(ms / 1000) * 1000;
}

/** Epoch ms of a wall-clock time in `timeZone` (DST-aware; `day` may overflow into the next month). */
export function zonedTimeToEpochMs(w: Omit<WallClock, 'second'>, timeZone: string): number {
  const guess = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, 0);
  const first = guess - offsetMs(guess, timeZone);
  const second = guess - offsetMs(first, timeZone);
  return second;
}

function to24h(hour: number, meridiem: string | undefined): number | null {
  if (meridiem === undefined || meridiem === '') return hour >= 0 && hour <= 23 ? hour : null;
  if (hour < 1 || hour > 12) return null;
  const pm = meridiem.toLowerCase().startsWith('p');
  return (hour % 12) + (pm ? 12 : 0);
}

function relativeReset(text: string, nowMs: number): number | null {
  const match = /\bin\s+((?:\d+(?:\.\d+)?\s*(?:seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)\b[\s,and]*)+)/i.exec(text);
  if (!match?.[1]) return null;
  let total = 0;
  for (const part of match[1].matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) {
    const unit = (part[2] ?? '').toLowerCase().replace(/s$/, '');
    const size = UNIT_MS[unit] ?? UNIT_MS[(part[2] ?? '').toLowerCase()];
    if (size === undefined) continue;
    total += Number(part[1]) * size;
  }
  return total > 0 ? nowMs + Math.round(total) : null;
}

// A named clock time as the next reset: itself when ahead, now when just past, else the next occurrence.
function upcoming(candidate: number, nowMs: number, next: () => number): number {
  if (candidate > nowMs) return candidate;
  if (nowMs - candidate <= RECENT_PAST_MS) return nowMs;
  return next();
}

/**
 * Finds a reset time in an agent's message and returns it as epoch ms, or null when the text names none.
 * A clock time already past today (in the named or local zone) means tomorrow, except one within the last
 * few minutes, which means now (the text's minute precision, not a day's wait).
 */
export function parseResetTime(text: string, clock: ResetClock): number | null {
  const iso = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))\b/.exec(text);
  if (iso?.[1]) {
    const ms = Date.parse(iso[1]);
    if (Number.isFinite(ms)) return ms;
  }
  const relative = relativeReset(text, clock.nowMs);
  if (relative !== null) return relative;

  // "resets 5pm", "resets at 5:30 pm", "resets Nov 12, 5pm", "try again at 9:45 AM", "resets 17:00",
  // "try again at Nov 23rd, 2026 9:45 AM" (Codex, for a reset on another day).
  const clockRe =
    /\b(?:resets?|reset at|try again(?: at| after)?|available again at|until)\s+(?:at\s+|on\s+)?(?:([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:(\d{4}),?\s+)?(?:at\s+)?)?(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?(?:\s*\(([A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)*)\))?/i;
  const m = clockRe.exec(text);
  if (!m) return null;
  const [, monthName, dayText, yearText, hourText, minuteText, meridiemRaw, zoneText] = m;
  const meridiem = meridiemRaw?.replace(/\./g, '');
  if (minuteText === undefined && meridiem === undefined) return null; // a bare number is not a time
  const hour = to24h(Number(hourText), meridiem);
  const minute = minuteText === undefined ? 0 : Number(minuteText);
  if (hour === null || minute > 59) return null;
  const zone = zoneText !== undefined && isValidTimeZone(zoneText) ? zoneText : clock.timeZone;
  const today = wallClockAt(clock.nowMs, zone);

  if (monthName !== undefined && dayText !== undefined) {
    const monthIndex = MONTHS.indexOf(monthName.slice(0, 3).toLowerCase());
    if (monthIndex >= 0) {
      const month = monthIndex + 1;
      const day = Number(dayText);
      const year = yearText === undefined ? today.year : Number(yearText);
      const candidate = zonedTimeToEpochMs({ year, month, day, hour, minute }, zone);
      // An explicit year is taken as written; without one, a date well past means next year.
      if (yearText !== undefined) return upcoming(candidate, clock.nowMs, () => candidate);
      return upcoming(candidate, clock.nowMs, () => zonedTimeToEpochMs({ year: year + 1, month, day, hour, minute }, zone));
    }
  }
  const sameDay = zonedTimeToEpochMs({ year: today.year, month: today.month, day: today.day, hour, minute }, zone);
  return upcoming(sameDay, clock.nowMs, () =>
    zonedTimeToEpochMs({ year: today.year, month: today.month, day: today.day + 1, hour, minute }, zone),
  );
}
