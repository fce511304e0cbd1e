// Shared helpers for JSON-lines agent streams: validate each line against a schema at the boundary, and
// turn a bad line into a `malformed` event (counted and logged by the runner), never an exception.
import { z } from 'zod';
import type { AgentEvent, StreamParser } from './types.js';

/** Result of reading one line: the validated value, nothing (blank line), or a malformed event. */
export type LineRead<T> = { ok: true; value: T } | { ok: false; event: AgentEvent | null };

/** Longest line kept verbatim in a malformed event (the full line is in the log file). */
const MAX_MALFORMED_LINE = 2_000;

/** Parses and validates one JSON line; blank lines are skipped, anything else bad is a malformed event. */
export function readJsonLine<T>(line: string, schema: z.ZodType<T>): LineRead<T> {
  const trimmed = line.trim();
  if (trimmed === '') return { ok: false, event: null };
  const kept = trimmed.length > MAX_MALFORMED_LINE ? `${trimmed.slice(0, MAX_MALFORMED_LINE)}…` : trimmed;
  let raw: unknown;
  try {
    raw = JSON.parse(trimmed);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, event: { type: 'malformed', line: kept, reason: `not JSON: ${reason}` } };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    return { ok: false, event: { type: 'malformed', line: kept, reason: `unexpected shape: ${where}${issue?.message ?? 'invalid'}` } };
  }
  return { ok: true, value: parsed.data };
}

/** Builds a StreamParser from a line schema and a handler of validated lines (plus an optional end hook). */
export function jsonlParser<T>(
  schema: z.ZodType<T>,
  handle: (value: T) => AgentEvent[],
  end: () => AgentEvent[] = () => [],
): StreamParser {
  return {
    line(line) {
      const read = readJsonLine(line, schema);
      if (read.ok) return handle(read.value);
      return read.event ? [read.event] : [];
    },
    end,
  };
}

/**
 * A usage or cost figure as an agent printed it: any number, even an odd one (fractional, negative, huge or
 * non-finite: JSON's 1e999 is Infinity), goes through as it is, to be normalised and reported by the runner
 * (usage-guard.ts); anything that is not a number counts as absent, and never makes the whole line malformed
 * (which would lose the line's cost with it).
 */
export function figure() {
  return z.unknown().transform((value): number | null => (typeof value === 'number' ? value : null)).optional();
}

/** A figure or 0: token fields are sometimes missing or null in agent output. Odd numbers are kept for the runner to judge. */
export function count(value: number | null | undefined): number {
  return typeof value === 'number' ? value : 0;
}

/** Text of a tool result's content, which agents send as a string or as a list of text blocks. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((block: unknown) =>
        typeof block === 'object' && block !== null && 'text' in block && typeof block.text === 'string' ? block.text : '',
      )
      .join('');
  }
  if (content === null || content === undefined) return '';
  return JSON.stringify(content);
}
