// The run page's output: agent activity turned into rows a virtualised list shows. Assistant text becomes
// a markdown block, a tool call and its result one collapsible row (with the time between them), raw
// output one row per line (ANSI colours kept for the renderer, carriage-return rewrites applied). Bounded:
// past `maxItems` rows the oldest are dropped (and counted), and over-long lines and blocks are cut.
import type { AgentActivity } from '../api/api-types.js';

/** One row of the output view. `id` is unique and increasing for the life of the log. */
export type OutputItem =
  | { kind: 'iteration'; id: number; iteration: number; time: number }
  | { kind: 'text'; id: number; iteration: number; time: number; text: string }
  | { kind: 'tool'; id: number; iteration: number; time: number; name: string; input: string; output: string | null; isError: boolean; endTime: number | null }
  | { kind: 'line'; id: number; iteration: number; time: number; stream: 'stdout' | 'stderr'; text: string };

/** Rows kept by default: a run page stays responsive with this many rows, and memory stays bounded. */
export const DEFAULT_MAX_ITEMS = 200_000;

/** Longest raw line kept (characters); the rest is cut with a marker. */
export const MAX_LINE = 16_384;

/** Longest markdown block or tool input/output kept (characters). */
export const MAX_BLOCK = 262_144;

const CUT = ' … [cut]';

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) + CUT : text;
}

/**
 * What a terminal shows for a line with carriage returns: the text after the last one that was followed by
 * more text. A trailing one is kept, so that the next chunk rewrites the line (renderers do not show it).
 */
export function applyCarriageReturns(line: string): string {
  if (line.length < 2) return line;
  const at = line.lastIndexOf('\r', line.length - 2);
  return at === -1 ? line : line.slice(at + 1);
}

/** Bytes of `text` in UTF-8 (what log offsets count). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The part of a raw output chunk at or after byte `from` of its iteration's log (stored and live chunks overlap
 * where a page that loaded the log then follows the live output); null when it has nothing new.
 */
export function unseenPart(chunk: Extract<AgentActivity, { kind: 'output' }>, from: number): Extract<AgentActivity, { kind: 'output' }> | null {
  const end = chunk.offset + utf8Length(chunk.text);
  if (end <= from) return null;
  if (chunk.offset >= from) return chunk;
  const bytes = new TextEncoder().encode(chunk.text).subarray(from - chunk.offset);
  return { ...chunk, offset: from, text: new TextDecoder().decode(bytes) };
}

/**
 * An append-mostly list of output rows. Mutable on purpose (a 100,000-line run must not copy its rows on
 * every chunk); `version` changes on every change, for React's useSyncExternalStore.
 */
export class OutputLog {
  readonly maxItems: number;
  #items: OutputItem[] = [];
  #nextId = 0;
  #dropped = 0;
  #version = 0;
  #lastIteration: number | null = null;
  /** id of the unfinished last line per `${iteration}:${stream}`. */
  readonly #openLines = new Map<string, number>();
  /** ids of tool calls still waiting for their result, oldest first. */
  #openTools: number[] = [];
  /** Per iteration, the `index` the next piece of structured activity must have (pieces below it were seen). */
  readonly #nextIndex = new Map<number, number>();
  /** Per iteration, the log offset raw output has reached (bytes before it were seen). */
  readonly #nextOffset = new Map<number, number>();
  readonly #listeners = new Set<() => void>();

  constructor(maxItems = DEFAULT_MAX_ITEMS) {
    this.maxItems = maxItems;
  }

  /** The rows, oldest first (do not mutate). */
  get items(): readonly OutputItem[] {
    return this.#items;
  }

  /** Rows dropped from the front to stay under `maxItems`. */
  get dropped(): number {
    return this.#dropped;
  }

  /** The last iteration any row came from (null while empty). */
  get lastIteration(): number | null {
    return this.#lastIteration;
  }

  /** Changes on every change. */
  get version(): number {
    return this.#version;
  }

  /** Calls `listener` after each change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Adds a batch of activity; returns how many rows were added (rows updated in place do not count). */
  append(batch: readonly AgentActivity[]): number {
    const before = this.#nextId;
    for (const piece of batch) {
      // Stored activity (loaded when the page opened) and the live stream overlap: each index, each byte once.
      let activity: AgentActivity | null = piece;
      if (piece.kind === 'output') {
        activity = unseenPart(piece, this.#nextOffset.get(piece.iteration) ?? 0);
        if (activity === null) continue;
        this.#nextOffset.set(piece.iteration, activity.offset + utf8Length(activity.text));
      } else {
        if (piece.index < (this.#nextIndex.get(piece.iteration) ?? 0)) continue;
        this.#nextIndex.set(piece.iteration, piece.index + 1);
      }
      this.#add(activity);
    }
    const added = this.#nextId - before;
    this.#trim();
    if (batch.length > 0) {
      this.#version++;
      for (const listener of this.#listeners) listener();
    }
    return added;
  }

  /**
   * Puts the rows of earlier iterations' activity (all before any row here) in front, numbered below the first
   * row's id; returns how many rows were added, or null when they would take the log past `maxItems` (nothing added).
   */
  prepend(batch: readonly AgentActivity[]): number | null {
    const earlier = new OutputLog(Number.MAX_SAFE_INTEGER);
    earlier.append(batch);
    const rows = earlier.items;
    if (rows.length === 0) return 0;
    if (rows.length + this.#items.length > this.maxItems) return null;
    const base = (this.#items[0]?.id ?? this.#nextId) - rows.length;
    const renumbered = rows.map((row, i) => ({ ...row, id: base + i }));
    this.#items = [...renumbered, ...this.#items];
    this.#version++;
    for (const listener of this.#listeners) listener();
    return rows.length;
  }

  /** Forgets every row (before loading another iteration, say). */
  clear(): void {
    this.#items = [];
    this.#dropped = 0;
    this.#lastIteration = null;
    this.#openLines.clear();
    this.#openTools = [];
    this.#nextIndex.clear();
    this.#nextOffset.clear();
    this.#version++;
    for (const listener of this.#listeners) listener();
  }

  /** Index of the row with this id, or -1 when it was dropped or never existed. */
  indexOf(id: number): number {
    const first = this.#items[0]?.id ?? 0;
    const index = id - first;
    return this.#items[index]?.id === id ? index : -1;
  }

  /** Indexes of the rows whose text contains `query` (ignoring case), in order. */
  search(query: string): number[] {
    const needle = query.trim().toLowerCase();
    if (needle === '') return [];
    const out: number[] = [];
    this.#items.forEach((item, index) => {
      if (searchableText(item).toLowerCase().includes(needle)) out.push(index);
    });
    return out;
  }

  #push(item: OutputItem): void {
    this.#items.push(item);
    this.#nextId = item.id + 1;
  }

  #replace(id: number, item: OutputItem): void {
    const index = this.indexOf(id);
    if (index !== -1) this.#items[index] = item;
  }

  #add(activity: AgentActivity): void {
    if (activity.iteration !== this.#lastIteration) {
      this.#lastIteration = activity.iteration;
      this.#openLines.clear();
      this.#openTools = [];
      this.#push({ kind: 'iteration', id: this.#nextId, iteration: activity.iteration, time: activity.time });
    }
    switch (activity.kind) {
      case 'text':
        this.#closeLines();
        this.#push({ kind: 'text', id: this.#nextId, iteration: activity.iteration, time: activity.time, text: clip(activity.text, MAX_BLOCK) });
        return;
      case 'tool_call':
        this.#closeLines();
        this.#openTools.push(this.#nextId);
        this.#push({ kind: 'tool', id: this.#nextId, iteration: activity.iteration, time: activity.time, name: activity.name, input: clip(activity.input, MAX_BLOCK), output: null, isError: false, endTime: null });
        return;
      case 'tool_result':
        this.#toolResult(activity);
        return;
      case 'output':
        this.#output(activity);
    }
  }

  #closeLines(): void {
    this.#openLines.clear();
  }

  #toolResult(activity: Extract<AgentActivity, { kind: 'tool_result' }>): void {
    const open = this.#openTools.map((id) => this.#items[this.indexOf(id)]).filter((i): i is Extract<OutputItem, { kind: 'tool' }> => i?.kind === 'tool');
    const call = (activity.name === null ? undefined : open.find((i) => i.name === activity.name)) ?? open[0];
    const output = clip(activity.output, MAX_BLOCK);
    if (call === undefined) {
      this.#push({ kind: 'tool', id: this.#nextId, iteration: activity.iteration, time: activity.time, name: activity.name ?? 'tool', input: '', output, isError: activity.is_error, endTime: activity.time });
      return;
    }
    this.#openTools = this.#openTools.filter((id) => id !== call.id);
    this.#replace(call.id, { ...call, output, isError: activity.is_error, endTime: activity.time });
  }

  #output(activity: Extract<AgentActivity, { kind: 'output' }>): void {
    const key = `${activity.iteration}:${activity.stream}`;
    const pieces = activity.text.replace(/\r\n/g, '\n').split('\n');
    const ends = pieces.length > 1;
    pieces.forEach((piece, i) => {
      const last = i === pieces.length - 1;
      if (last && piece === '' && ends) {
        this.#openLines.delete(key);
        return;
      }
      const openId = i === 0 ? this.#openLines.get(key) : undefined;
      const open = openId === undefined ? undefined : this.#items[this.indexOf(openId)];
      if (open?.kind === 'line') {
        this.#replace(open.id, { ...open, text: clip(applyCarriageReturns(open.text + piece), MAX_LINE) });
      } else {
        const id = this.#nextId;
        this.#push({ kind: 'line', id, iteration: activity.iteration, time: activity.time, stream: activity.stream, text: clip(applyCarriageReturns(piece), MAX_LINE) });
        this.#openLines.set(key, id);
      }
      if (!last) this.#openLines.delete(key);
    });
  }

  #trim(): void {
    const excess = this.#items.length - this.maxItems;
    if (excess <= 0) return;
    // Drop a tenth more than needed so trimming (an O(n) splice) happens once per many appends.
    const drop = Math.min(this.#items.length, excess + Math.floor(this.maxItems / 10));
    this.#items.splice(0, drop);
    this.#dropped += drop;
  }
}

/** The text a search looks in. */
export function searchableText(item: OutputItem): string {
  switch (item.kind) {
    case 'iteration':
      return `iteration ${item.iteration}`;
    case 'text':
    case 'line':
      return item.text;
    case 'tool':
      return `${item.name} ${item.input} ${item.output ?? ''}`;
  }
}

/** One-line summary of a tool call's input (its first meaningful line, shortened). */
export function toolSummary(input: string, max = 120): string {
  let text = input.trim();
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const values = Object.values(parsed as Record<string, unknown>);
      const first = values.find((v) => typeof v === 'string') ?? values[0];
      if (first !== undefined) text = typeof first === 'string' ? first : JSON.stringify(first);
    }
  } catch {
    // Not JSON: the input is already a summary.
  }
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
