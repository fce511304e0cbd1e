// An iteration's log read back as agent activity (GET /api/runs/:id/activity), a page at a time: a page covers at
// most `maxBytes` of the log from `offset`, cut after a whole line (a longer line is read whole, up to the line
// cap), so an answer stays bounded however large the log. Structured agents' lines go through their adapter's
// parser (a fresh one per page) and are numbered from `index` like the live activity was; plain-text output comes
// in chunks placed by their log offset. So a page that loads the past and then follows live activity shows
// everything once.
import { open } from 'node:fs/promises';
import { getAdapter } from '../agents/registry.js';
import type { InvocationOptions } from '../agents/types.js';
import { activityOf } from '../runner/activity.js';
import type { AgentActivity } from '../runner/events.js';
import { MAX_LINE_CHARS } from '../runner/line-splitter.js';

/** Where to read and how to parse it. */
export interface LogActivityRequest {
  agent: string;
  command: string[] | null;
  logPath: string;
  iteration: number;
  /** Time given to activity read back (the log keeps none): the iteration's start. */
  time: number;
  cwd: string;
  model: string | null;
  /** At most this many activities in the page. */
  limit: number;
  /** Byte offset in the log where the page starts (0, or a previous page's nextOffset). */
  offset?: number;
  /** Number of the page's first structured activity (0, or a previous page's nextIndex). */
  index?: number;
  /** Bytes of log a page covers at most (default LOG_PAGE_BYTES). */
  maxBytes?: number;
}

/** A page of activity. */
export interface LogActivityPage {
  activity: AgentActivity[];
  /** True when the log goes on after nextOffset (ask for the next page). */
  truncated: boolean;
  nextOffset: number;
  nextIndex: number;
}

/** Bytes of log one page covers at most (1 MiB). */
export const LOG_PAGE_BYTES = 1024 * 1024;
const TEXT_CHUNK = 64 * 1024;

/** One page of the iteration's activity, oldest first. */
export async function readLogActivity(request: LogActivityRequest): Promise<LogActivityPage> {
  const offset = request.offset ?? 0;
  const index = request.index ?? 0;
  const adapter = getAdapter({ name: request.agent, command: request.command });
  const page = await readPage(request.logPath, offset, request.maxBytes ?? LOG_PAGE_BYTES, adapter.format === 'text' ? 'utf8' : 'line');
  if (page === null) return { activity: [], truncated: false, nextOffset: offset, nextIndex: index };
  const base = { iteration: request.iteration, time: request.time };
  const activity: AgentActivity[] = [];
  if (adapter.format === 'text') {
    let at = 0;
    while (at < page.bytes.length && activity.length < request.limit) {
      const rest = page.bytes.subarray(at, at + TEXT_CHUNK);
      const piece = rest.subarray(0, completeUtf8(rest));
      const text = piece.toString('utf8');
      if (text !== '') activity.push({ kind: 'output', ...base, stream: 'stdout', offset: offset + at, text });
      at += piece.length;
    }
    return { activity, truncated: !page.atEnd || at < page.bytes.length, nextOffset: offset + at, nextIndex: index };
  }
  const options: InvocationOptions = { prompt: '', cwd: request.cwd, model: request.model, extraArgs: [], permissionMode: 'bypass', resumeSessionId: null, env: {} };
  const parser = adapter.createParser(options);
  let next = index;
  const take = (events: ReturnType<typeof parser.line>): void => {
    for (const event of events) {
      const body = activityOf(event, next);
      if (body === null) continue;
      next += 1;
      activity.push({ ...body, ...base });
    }
  };
  let at = 0;
  while (at < page.bytes.length && activity.length < request.limit) {
    const nl = page.bytes.indexOf(10, at);
    const end = nl < 0 ? page.bytes.length : nl;
    const line = page.bytes.subarray(at, end).toString('utf8');
    if (line.length <= MAX_LINE_CHARS) take(parser.line(line.endsWith('\r') ? line.slice(0, -1) : line));
    at = nl < 0 ? page.bytes.length : nl + 1;
  }
  const done = page.atEnd && at >= page.bytes.length;
  if (done) take(parser.end());
  return { activity, truncated: !done, nextOffset: offset + at, nextIndex: next };
}

/** Length of `bytes` without an incomplete UTF-8 character at its end (its full length if that leaves nothing). */
function completeUtf8(bytes: Buffer): number {
  let start = bytes.length - 1;
  while (start > 0 && start > bytes.length - 4 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start -= 1;
  const lead = bytes[start] ?? 0;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start + length > bytes.length && start > 0 ? start : bytes.length;
}

/**
 * Up to `maxBytes` from `offset`: cut between UTF-8 characters (`utf8`), or after the last whole line (`line`; a
 * first line longer than `maxBytes` is read whole, up to the line cap in bytes).
 */
async function readPage(path: string, offset: number, maxBytes: number, cut: 'utf8' | 'line'): Promise<{ bytes: Buffer; atEnd: boolean } | null> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const size = (await handle.stat()).size;
    if (offset >= size) return { bytes: Buffer.alloc(0), atEnd: true };
    let want = Math.min(maxBytes, size - offset);
    for (;;) {
      const bytes = Buffer.alloc(want);
      const { bytesRead } = await handle.read(bytes, 0, want, offset);
      const read = bytes.subarray(0, bytesRead);
      if (offset + bytesRead >= size) return { bytes: read, atEnd: true };
      if (cut === 'utf8') return { bytes: read.subarray(0, completeUtf8(read)), atEnd: false };
      const nl = read.lastIndexOf(10);
      if (nl >= 0) return { bytes: read.subarray(0, nl + 1), atEnd: false };
      // No line end yet: a longer line, read whole up to the line cap (then cut where the cap is).
      if (want >= MAX_LINE_CHARS) return { bytes: read, atEnd: false };
      want = Math.min(want * 4, MAX_LINE_CHARS, size - offset);
    }
  } finally {
    await handle.close();
  }
}
