// progress.jsonl (execution history: one line per task iteration and per task start/end) and learning.jsonl
// (one line per finished task: iterations needed, cost, failure reasons, failed checks, the agent's
// learnings), kept in the workspace and committed with each task. Fields: docs/tasks.md#progress-and-learning.
import { appendFile, readFile } from 'node:fs/promises';
import { z } from 'zod';

/** The file names in the workspace. */
export const PROGRESS_FILE = 'progress.jsonl';
/** The file names in the workspace. */
export const LEARNING_FILE = 'learning.jsonl';

const checkSchema = z.object({ type: z.string(), passed: z.boolean(), summary: z.string() });
/** A completion check's verdict as recorded. */
export type CheckRecord = z.infer<typeof checkSchema>;

const base = {
  time: z.string(),
  run_id: z.string(),
  task_id: z.string(),
};

/** One line of progress.jsonl. */
export const progressEntrySchema = z.discriminatedUnion('event', [
  z.object({ ...base, event: z.literal('task_started'), title: z.string(), attempt_base: z.string().nullable() }),
  z.object({
    ...base,
    event: z.literal('iteration'),
    /** The task's own iteration number (1-based). */
    iteration: z.number().int(),
    run_iteration: z.number().int(),
    /** success | failure | complete | waiting | interrupted, as the loop judged it (after the verify gate). */
    outcome: z.string(),
    /** The structured result or signal in words ('complete: a.ts', 'continue: ...'), or null. */
    result: z.string().nullable(),
    /** What the next iteration should know: a failed check, an error, the agent's reason to continue. */
    note: z.string().nullable(),
    duration_ms: z.number(),
    cost_usd: z.number().nullable(),
    check: checkSchema.nullable(),
  }),
  z.object({ ...base, event: z.literal('task_completed'), iterations: z.number().int(), cost_usd: z.number().nullable(), duration_ms: z.number() }),
  z.object({
    ...base,
    event: z.literal('task_blocked'),
    reason: z.string(),
    iterations: z.number().int(),
    cost_usd: z.number().nullable(),
    duration_ms: z.number(),
    failed_branch: z.string().nullable(),
  }),
]);
/** One line of progress.jsonl. */
export type ProgressEntry = z.infer<typeof progressEntrySchema>;

/** One line of learning.jsonl. */
export const learningEntrySchema = z.object({
  ...base,
  title: z.string(),
  /** done or blocked. */
  status: z.enum(['done', 'blocked']),
  iterations: z.number().int(),
  cost_usd: z.number().nullable(),
  /** True when at least one iteration's cost was unknown (cost_usd is then a lower bound). */
  cost_unknown: z.boolean(),
  duration_ms: z.number(),
  failure_reasons: z.array(z.string()),
  failed_checks: z.array(checkSchema),
  learnings: z.array(z.string()),
});
/** One line of learning.jsonl. */
export type LearningEntry = z.infer<typeof learningEntrySchema>;

/** Appends entries to a JSONL file (created when missing), one line each. */
export async function appendEntries(path: string, entries: readonly object[]): Promise<void> {
  if (entries.length === 0) return;
  let prefix = '';
  try {
    const text = await readFile(path, 'utf8');
    if (text !== '' && !text.endsWith('\n')) prefix = '\n';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await appendFile(path, prefix + entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
}

/** Reads a JSONL file's valid entries; lines that do not match (hand edits, other tools) are counted, not fatal. */
export async function readEntries<T>(path: string, schema: z.ZodType<T>): Promise<{ entries: T[]; skipped: number }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], skipped: 0 };
    throw error;
  }
  const entries: T[] = [];
  let skipped = 0;
  for (const line of text.replace(/^\uFEFF/, '').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed = schema.safeParse(JSON.parse(line));
      if (parsed.success) entries.push(parsed.data);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { entries, skipped };
}

/** Cuts a note to `max` characters (notes end up in every later prompt). */
export function clip(text: string, max = 500): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** Per-task totals from progress entries: iterations and cost, for `ringmaster tasks`. */
export interface TaskTotals {
  iterations: number;
  costUsd: number;
  costUnknown: boolean;
}

/** Sums the iteration entries of progress.jsonl per task id. */
export function totalsByTask(entries: readonly ProgressEntry[]): Map<string, TaskTotals> {
  const totals = new Map<string, TaskTotals>();
  for (const e of entries) {
    if (e.event !== 'iteration') continue;
    const t = totals.get(e.task_id) ?? { iterations: 0, costUsd: 0, costUnknown: false };
    t.iterations += 1;
    if (e.cost_usd === null) t.costUnknown = true;
    else t.costUsd += e.cost_usd;
    totals.set(e.task_id, t);
  }
  return totals;
}

/** One iteration in words without repeating itself: 'continue: 2 tests left — test command exited 1'. */
function iterationNote(e: Extract<ProgressEntry, { event: 'iteration' }>): string {
  const result = e.result ?? '';
  const head = result === '' ? e.outcome : result === e.outcome || result.startsWith(`${e.outcome}:`) ? result : `${e.outcome} — ${result}`;
  // The note often starts with the reason the result already gave ('2 tests left; test command exited 1').
  const reason = result.replace(/^\w+: /, '');
  let note = e.note ?? '';
  if (reason !== '' && note.startsWith(reason)) note = note.slice(reason.length).replace(/^;\s*/, '');
  return note === '' || note === result ? head : `${head} — ${note}`;
}

/** The progress notes of a task's earlier iterations, for its prompt (the last `max`, one line each). */
export function progressNotes(entries: readonly ProgressEntry[], taskId: string, max = 20): string {
  const lines: string[] = [];
  for (const e of entries) {
    if (e.task_id !== taskId) continue;
    if (e.event === 'iteration') lines.push(`- iteration ${e.iteration}: ${clip(iterationNote(e))}`);
    else if (e.event === 'task_blocked') {
      lines.push(`- an earlier attempt was blocked and rolled back: ${e.reason}${e.failed_branch ? ` (its work is on branch ${e.failed_branch})` : ''}`);
    }
  }
  const shown = lines.slice(-max);
  return (lines.length > shown.length ? [`- (${lines.length - shown.length} earlier notes not shown)`, ...shown] : shown).join('\n');
}

/** The learnings recorded so far, for every task's prompt (the last `max` tasks, one line each). */
export function learningNotes(entries: readonly LearningEntry[], max = 20): string {
  return entries
    .slice(-max)
    .map((e) => {
      const how = e.status === 'done' ? `done in ${e.iterations} iteration${e.iterations === 1 ? '' : 's'}` : `blocked after ${e.iterations} iteration${e.iterations === 1 ? '' : 's'}`;
      const extra = [
        e.failed_checks.length > 0 ? `failed checks: ${e.failed_checks.map((c) => c.summary).join('; ')}` : null,
        e.failure_reasons.length > 0 ? `failures: ${e.failure_reasons.join('; ')}` : null,
        e.learnings.length > 0 ? `learned: ${e.learnings.join('; ')}` : null,
      ].filter((x): x is string => x !== null);
      return `- ${clip(`${e.task_id} (${e.title}): ${how}${extra.length > 0 ? `. ${extra.join('. ')}` : ''}`)}`;
    })
    .join('\n');
}
