// The zod schemas of configuration values: what a YAML file may hold (for the JSON Schema) and what an env
// variable or a flag gives (always a string), turned into the value the runner uses. Every message says
// what was expected and what was given.
import { z } from 'zod';
import { splitCommandLine } from '../agents/command.js';
import { MAX_DURATION_MS, parseDuration } from '../core/duration.js';
import { parseByteSize } from '../core/byte-size.js';

/** An error function for zod: "<expected>, got <the input as JSON>". */
function expected(what: string): (issue: { input?: unknown }) => string {
  return (issue) => (issue.input === undefined ? `missing (${what.replace(/^expected /, 'expected: ')})` : `${what}, got ${JSON.stringify(issue.input)}`);
}

/** Words that mean "no limit" (any case, surrounding spaces ignored). */
const NONE = /^\s*(none|off|unlimited)\s*$/i;
const noneWord = (message: (issue: { input?: unknown }) => string) => z.string().regex(NONE, { error: message }).transform(() => null);

/** A whole number of at least `min`: a YAML integer, or its digits as text. */
export function wholeNumber(min: number) {
  const message = expected('expected a whole number');
  const tooSmall = (issue: { input?: unknown }): string => `must be at least ${min}, got ${JSON.stringify(issue.input)}`;
  return z
    .union([z.int({ error: message }).min(min, { error: tooSmall }), z.string({ error: message }).regex(/^\s*-?\d+\s*$/, { error: message })], { error: message })
    .transform((raw) => Number(raw))
    .pipe(z.number().min(min, { error: tooSmall }));
}

/** A whole number of at least 1, or 'none' (or 0): no cap (null). */
export function optionalCount() {
  const message = expected("expected a whole number (or 'none')");
  return z
    .union([z.null(), noneWord(message), z.int({ error: message }).min(0, { error: message }), z.string({ error: message }).regex(/^\s*\d+\s*$/, { error: message }).transform(Number)], { error: message })
    .transform((v) => (v === 0 ? null : v));
}

const DURATION_TEXT = /^\s*(\d+(\.\d+)?|(\d+(\.\d+)?(ms|s|m|h|d))+)\s*$/;

function durationMs(message: (issue: { input?: unknown }) => string) {
  const tooLong = `longer than the longest duration supported (${MAX_DURATION_MS / 86_400_000} days)`;
  const seconds = z
    .number({ error: message })
    .min(0, { error: message })
    .transform((s) => Math.round(s * 1000));
  const text = z
    .string({ error: message })
    .regex(DURATION_TEXT, { error: message })
    .transform((s) => parseDuration(s) ?? 0);
  return z.union([seconds, text], { error: message }).pipe(z.number().max(MAX_DURATION_MS, { error: tooLong }));
}

/** A duration: a number of seconds, or text like '90s', '5m', '4h', '1h30m', '250ms'; in ms. */
export function duration() {
  return durationMs(expected('expected a duration like 90s, 5m or 4h'));
}

/** A duration, or 'none': no limit (null). A zero duration is refused: it once meant "no limit" silently. */
export function optionalDuration() {
  const message = expected("expected a duration like 90s, 5m or 4h (or 'none')");
  const zero = "a zero duration is no time at all: write 'none' for no limit";
  return z.union([z.null(), noneWord(message), durationMs(message)], { error: message }).pipe(z.number().positive({ error: zero }).nullable());
}

/** An amount in USD (20, 7.50, '$20'), or 'none'. */
export function money() {
  const message = expected('expected an amount in USD like 20 or 7.50');
  return z.union(
    [
      z.null(),
      noneWord(message),
      z.number({ error: message }).min(0, { error: message }),
      z
        .string({ error: message })
        .regex(/^\s*\$?\d+(\.\d+)?\s*$/, { error: message })
        .transform((s) => Number(s.trim().replace(/^\$/, ''))),
    ],
    { error: message },
  );
}

/** A size in bytes: a number of bytes, or text like '100MB', '1.5GiB', '512k'; 'none' or 0 = no cap. */
export function byteSize() {
  const message = expected("expected a size like 100MB, 2GiB or 512KB (or 'none')");
  return z
    .union(
      [
        z.null(),
        noneWord(message),
        z.int({ error: message }).min(0, { error: message }),
        z
          .string({ error: message })
          .refine((s) => parseByteSize(s) !== null, { error: message })
          .transform((s) => parseByteSize(s) ?? 0),
      ],
      { error: message },
    )
    .transform((v) => (v === 0 ? null : v));
}

/** A non-empty string. */
export function text() {
  const message = expected('expected a non-empty string');
  return z.string({ error: message }).refine((s) => s.trim() !== '', { error: message });
}

/** A non-empty string, or nothing (null or ''). */
export function optionalText() {
  const message = expected('expected a non-empty string');
  return z.union([z.null(), z.literal('').transform(() => null), text()], { error: message });
}

function splitText(split: 'comma' | 'shell') {
  return z.string().transform((s, ctx) => {
    if (split === 'comma') return s.split(',').map((x) => x.trim()).filter((x) => x !== '');
    try {
      return splitCommandLine(s);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
      return z.NEVER;
    }
  });
}

/** A list of strings, or one string split by `split` (comma-separated, or like a shell line). */
export function stringList(split: 'comma' | 'shell') {
  const message = expected('expected a list of strings');
  return z.union([z.array(z.string({ error: message }), { error: message }), splitText(split)], { error: message });
}

/** A command as an argv list (or a shell-like line), or null. */
export function optionalArgv() {
  const message = expected('expected a command (an argv list like ["my-agent", "--flag"])');
  return z
    .union([z.null(), z.array(z.string({ error: message }), { error: message }), splitText('shell')], { error: message })
    .refine((v) => v === null || v.length > 0, { error: message });
}

/** true/false, or 'true', 'yes', '1', 'false', 'no', '0' as text (any case). */
export function flag() {
  const message = expected('expected true or false');
  return z.union(
    [
      z.boolean({ error: message }),
      z
        .string({ error: message })
        .regex(/^\s*(true|yes|1|false|no|0)\s*$/i, { error: message })
        .transform((s) => ['true', 'yes', '1'].includes(s.trim().toLowerCase())),
    ],
    { error: message },
  );
}

/** true / false, or a non-empty text meaning something more (e.g. agent.auto_install's package spec). */
export function flagOrText() {
  const message = expected('expected true, false or a non-empty string');
  return z.union([flag(), text()], { error: message });
}

/** One of a fixed set of words. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: expected(`expected one of ${values.join(', ')}`) });
}

/**
 * A PostgreSQL URL (postgres:// or postgresql://), or nothing (null or ''). The message never repeats what was
 * given: a URL holds a password.
 */
export function postgresUrl() {
  const message = 'expected a PostgreSQL URL like postgres://user:password@host:5432/database';
  return z.union(
    [
      z.null(),
      z.literal('').transform(() => null),
      z
        .string({ error: message })
        .regex(/^\s*postgres(ql)?:\/\/\S/, { error: message })
        .transform((s) => s.trim()),
    ],
    { error: message },
  );
}

/** A list of words from a fixed set: a YAML list, or text separated by commas. */
export function wordList<const T extends readonly [string, ...string[]]>(values: T) {
  const message = expected(`expected a list of: ${values.join(', ')}`);
  return stringList('comma').pipe(z.array(z.enum(values, { error: (issue) => `unknown ${JSON.stringify(issue.input)} (expected some of: ${values.join(', ')})` }), { error: message }));
}

/** An http(s) URL, or nothing (null or ''); a trailing slash is dropped. */
export function optionalHttpUrl() {
  const message = expected('expected an http(s) URL like https://ringmaster.example.com');
  return z.union([z.null(), z.literal('').transform(() => null), z.string({ error: message }).refine(isHttpUrl, { error: message }).transform((s) => s.trim().replace(/\/+$/, ''))], { error: message });
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text.trim());
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** How a webhook's body is shaped. */
export const WEBHOOK_FORMATS = ['slack', 'discord', 'ntfy', 'json'] as const;

/** One webhook of `notify.webhooks`. */
export interface Webhook {
  url: string;
  format: (typeof WEBHOOK_FORMATS)[number];
}

// A webhook's URL is a secret: no message repeats what was given.
const WEBHOOKS_MESSAGE = `expected a list of webhooks ({url: https://..., format: ${WEBHOOK_FORMATS.join(' | ')}}), or as text format=URL entries separated by spaces`;
const webhookUrl = z.lazy(() => z.string({ error: 'url: expected an http(s) URL' }).refine(isHttpUrl, { error: 'url: expected an http(s) URL' }).transform((s) => s.trim()));
const webhookFormat = z.lazy(() => z.enum(WEBHOOK_FORMATS, { error: `format: expected one of ${WEBHOOK_FORMATS.join(', ')}` }));
const ENTRY = new RegExp(`^(?:(${WEBHOOK_FORMATS.join('|')})=)?(https?://\\S+)$`);

/** `notify.webhooks`: a YAML list of {url, format}, or text (an env variable) of `format=URL` entries (format json when left out). */
export function webhookList() {
  const item = z.strictObject({ url: webhookUrl, format: webhookFormat.prefault('json') }, { error: WEBHOOKS_MESSAGE });
  const fromText = z.string().transform((s, ctx): Webhook[] => {
    const out: Webhook[] = [];
    for (const entry of s.split(/\s+/).filter((e) => e !== '')) {
      const m = ENTRY.exec(entry);
      if (!m?.[2] || !isHttpUrl(m[2])) {
        ctx.addIssue({ code: 'custom', message: `${WEBHOOKS_MESSAGE} (entry ${out.length + 1} is not one)` });
        return z.NEVER;
      }
      out.push({ url: m[2], format: (m[1] ?? 'json') as Webhook['format'] });
    }
    return out;
  });
  return z.union([z.array(item, { error: WEBHOOKS_MESSAGE }), fromText], { error: WEBHOOKS_MESSAGE });
}
