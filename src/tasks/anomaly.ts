// Anomalies of a task iteration (docs/tasks.md "Anomalies"): it changed no file (stalled), or the agent said
// exactly what it said in the previous iteration (repeated output). Reported, never fatal.
import { createHash } from 'node:crypto';
import type { Anomaly } from './hooks.js';

/** What is compared between iterations: a digest of the agent's text and the workspace's files tree after it. */
export interface IterationTrace {
  textDigest: string | null;
  filesTree: string | null;
}

/** Digest of an agent's text, whitespace-insensitive; null for an empty text. */
export function textDigest(text: string): string | null {
  const normal = text.replace(/\s+/g, ' ').trim();
  return normal === '' ? null : createHash('sha256').update(normal).digest('hex');
}

/**
 * The anomalies of iteration `iteration` of a task: `filesBefore` is the files tree when it started, `current`
 * its trace, `previous` the trace of the task's previous iteration (null on the first).
 */
export function detectAnomalies(iteration: number, filesBefore: string | null, current: IterationTrace, previous: IterationTrace | null): Anomaly[] {
  const found: Anomaly[] = [];
  if (filesBefore !== null && current.filesTree !== null && filesBefore === current.filesTree) {
    found.push({ kind: 'stalled', message: `iteration ${iteration} changed no file in the workspace` });
  }
  if (previous && current.textDigest !== null && current.textDigest === previous.textDigest) {
    found.push({ kind: 'repeated_output', message: `iteration ${iteration} printed the same text as the iteration before it` });
  }
  return found;
}
