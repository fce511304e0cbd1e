// Turns schema issues into problems a user can act on: the file's line of the key concerned, the key, and
// a reason in words (unknown keys name the keys allowed there and the closest one).
import { isMap, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import type { z } from 'zod';
import { KNOWN_KEYS } from './schema.js';
import type { WorkflowProblem } from './types.js';

type Path = ReadonlyArray<PropertyKey>;

/** Offset of the key (or list item) at `path`, or of its nearest existing ancestor. */
function offsetOf(doc: Document, path: Path): number {
  if (path.length === 0) return firstContentOffset(doc);
  const parent = path.length === 1 ? doc.contents : (doc.getIn(path.slice(0, -1) as unknown[], true) as Node | undefined);
  const last = path[path.length - 1];
  if (isMap(parent)) {
    const pair = parent.items.find((p) => (p.key as { value?: unknown } | null)?.value === last);
    const start = (pair?.key as Node | null | undefined)?.range?.[0];
    if (start !== undefined) return start;
  } else if (isSeq(parent) && typeof last === 'number') {
    const start = (parent.items[last] as Node | undefined)?.range?.[0];
    if (start !== undefined) return start;
  }
  return offsetOf(doc, path.slice(0, -1));
}

function firstContentOffset(doc: Document): number {
  return doc.contents?.range?.[0] ?? 0;
}

/** 1-based line of the key (or list item) at `path` in the document. */
export function lineOf(doc: Document, counter: LineCounter, path: Path): number {
  return counter.linePos(offsetOf(doc, path)).line;
}

/** A path as users read it: `steps.2.loop.until` (steps numbered from 1, as in progress lines). */
export function keyOf(path: Path): string {
  return path.map((part) => (typeof part === 'number' ? String(part + 1) : String(part))).join('.');
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] ?? 0;
      row[j] = Math.min(current + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] ?? 0;
}

/** The keys allowed in the mapping at `path`. */
function allowedKeys(path: Path): readonly string[] {
  const last = path[path.length - 1];
  if (path.length === 0) return KNOWN_KEYS.workflow;
  if (last === 'loop') return KNOWN_KEYS.loop;
  return KNOWN_KEYS.step;
}

/** Words for one unknown key: other tools' `provider` is Ringmaster's `agent`; else the closest allowed key. */
function unknownKeyMessage(key: string, allowed: readonly string[]): string {
  if (key === 'provider' && allowed.includes('agent')) return "unknown key 'provider': Ringmaster calls it 'agent'";
  const closest = [...allowed].sort((a, b) => distance(key, a) - distance(key, b))[0];
  const hint = closest !== undefined && distance(key, closest) <= Math.max(1, Math.floor(key.length / 3)) ? ` (did you mean '${closest}'?)` : '';
  return `unknown key '${key}'${hint}; allowed here: ${allowed.join(', ')}`;
}

/** Every zod issue as problems with lines (an unknown-keys issue becomes one problem per key). */
export function issuesToProblems(issues: readonly z.core.$ZodIssue[], doc: Document, counter: LineCounter, file: string): WorkflowProblem[] {
  const problems: WorkflowProblem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = [...issue.path, key];
        problems.push({ file, line: lineOf(doc, counter, path), key: keyOf(path), message: unknownKeyMessage(key, allowedKeys(issue.path)) });
      }
      continue;
    }
    problems.push({ file, line: lineOf(doc, counter, issue.path), key: keyOf(issue.path), message: issue.message });
  }
  return problems;
}

/** Problems in file order; one problem per line and key. */
export function sortProblems(problems: readonly WorkflowProblem[]): WorkflowProblem[] {
  const seen = new Set<string>();
  return [...problems]
    .sort((a, b) => a.line - b.line || a.key.localeCompare(b.key))
    .filter((p) => {
      const id = `${p.line}\u0000${p.key}\u0000${p.message}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
}

/** `file:line: key: reason`, the way compilers print, so editors can jump to it. */
export function formatProblem(problem: WorkflowProblem): string {
  return `${problem.file}:${problem.line}: ${problem.key === '' ? '' : `${problem.key}: `}${problem.message}`;
}
