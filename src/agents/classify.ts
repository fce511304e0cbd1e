// Classifies an agent's failure from its words and HTTP status: auth, usage/rate limit, overload, missing
// binary. Shared by every adapter's parser and classifyExit. Pure: the clock is passed in.
import type { ErrorKind } from '../core/types.js';
import type { AgentEvent } from './types.js';
import { parseResetTime, type ResetClock } from './reset-time.js';

/** A classified failure; `resetAtMs` only for limits. */
export interface Classified {
  kind: ErrorKind;
  resetAtMs: number | null;
}

const MISSING_BINARY = /^\S*:? ?command not found|: command not found|\bspawn \S+ ENOENT\b|is not recognized as an internal or external command/im;
const AUTH =
  /\b401\b|\b403\b|unauthori[sz]ed|authentication[_ ](?:failed|error|required)|invalid (?:x-)?api[ -_]?key|api key (?:is )?(?:invalid|missing|not (?:set|found))|missing api key|not logged in|please (?:run )?\/?login|please log ?in|login required|oauth token (?:has )?expired|invalid_api_key|no credentials|not authenticated/i;
const USAGE_LIMIT =
  /usage[_ ]limit|hit your (?:[a-z-]+ ){0,3}limit|(?<!rate )limit reached|exhausted (?:your )?(?:daily |monthly )?quota|quota exceeded|insufficient_quota|out of (?:credits|extra usage)|credit balance is too low|insufficient (?:credit|balance|funds)|spending limit/i;
const RATE_LIMIT = /\b429\b|rate[_ ]limit|too many requests|resource[_ ]exhausted/i;
const OVERLOADED =
  /\b529\b|\b50[0234]\b|overloaded|server[_ ]error|internal server error|service unavailable|bad gateway|gateway timeout|temporarily unavailable|high demand|upstream connect error|ECONNRESET|ECONNREFUSED|socket hang up|stream disconnected/i;

/** Classifies from an HTTP status alone (null when the status says nothing specific). */
export function classifyStatus(status: number | null): ErrorKind | null {
  if (status === null) return null;
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status === 529 || (status >= 500 && status <= 599)) return 'overloaded';
  return null;
}

/**
 * Classifies an error message (optionally with its HTTP status). Usage limits win over rate limits (a 429
 * that says "usage limit" is a usage limit), and both carry a reset time when the text gives one.
 */
export function classifyText(text: string, status: number | null, clock: ResetClock): Classified | null {
  if (USAGE_LIMIT.test(text)) return { kind: 'usage_limit', resetAtMs: parseResetTime(text, clock) };
  const byStatus = classifyStatus(status);
  if (byStatus === 'auth' || (byStatus === null && AUTH.test(text))) return { kind: 'auth', resetAtMs: null };
  if (byStatus === 'rate_limit' || (byStatus === null && RATE_LIMIT.test(text))) {
    return { kind: 'rate_limit', resetAtMs: parseResetTime(text, clock) };
  }
  if (byStatus === 'overloaded' || (byStatus === null && OVERLOADED.test(text))) return { kind: 'overloaded', resetAtMs: null };
  return null;
}

/** Classifies the tail of a finished process's output: missing binary first, then the text classes. */
export function classifyOutputTail(exitCode: number | null, tail: string, clock: ResetClock): Classified | null {
  if (exitCode === 127 || (exitCode !== 0 && MISSING_BINARY.test(tail))) return { kind: 'missing_binary', resetAtMs: null };
  if (exitCode === 0) return null;
  return classifyText(tail, null, clock);
}

/** Turns a classification into the AgentEvent the runner understands (`limit` for limits, else `error`). */
export function classifiedEvent(c: Classified, message: string, status: number | null): AgentEvent {
  if (c.kind === 'usage_limit' || c.kind === 'rate_limit') {
    return { type: 'limit', kind: c.kind, resetAtMs: c.resetAtMs, message };
  }
  return { type: 'error', kind: c.kind, message, status };
}

/** An error event for a message that matched no class: a plain agent error. */
export function errorEvent(message: string, status: number | null, clock: ResetClock): AgentEvent {
  const c = classifyText(message, status, clock) ?? { kind: 'agent_error' as const, resetAtMs: null };
  return classifiedEvent(c, message, status);
}

/** The message of an error body: `{"error":{"message":...}}`, `{"message":...}`, a stream line's `result`. */
function messageOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return null;
  const o = value as Record<string, unknown>;
  for (const key of ['error', 'message', 'result', 'detail']) {
    const found = messageOf(o[key]);
    if (found !== null && found.trim() !== '') return found;
  }
  return null;
}

/**
 * An agent's error in its own words: a JSON body in it (`API Error: 500 {"type":"error","error":{"message":
 * "Internal server error"}}`, or a whole stream-json line) is replaced by the message it carries.
 */
export function readableError(text: string): string {
  const start = text.indexOf('{');
  if (start < 0 || !text.trimEnd().endsWith('}')) return text;
  let body: unknown;
  try {
    body = JSON.parse(text.slice(start));
  } catch {
    return text;
  }
  const message = messageOf(body);
  if (message === null) return text;
  const before = text.slice(0, start).trim();
  // The message may carry a body of its own (a stream line's `result`: "API Error: 500 {...}").
  const inner = readableError(message);
  return before === '' ? inner : `${before} ${inner}`;
}

/** Cuts a message to a printable length (error messages end up in one-line status output); JSON bodies read. */
export function shortMessage(text: string, max = 500): string {
  const oneLine = readableError(text.trim()).replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}
