// The full prompt of one task iteration, read fresh from the workspace: the template (built in or
// tasks.prompt_template), the run's instructions, the task's progress notes and the learnings so far.
import { join, resolve } from 'node:path';
import { composePrompt } from '../prompt/compose.js';
import type { RunSpec } from '../spec/run-spec.js';
import { LEARNING_FILE, PROGRESS_FILE, learningEntrySchema, learningNotes, progressEntrySchema, progressNotes, readEntries, type ProgressEntry } from './journal.js';
import { DEFAULT_TASK_TEMPLATE, readTemplate, renderTaskPrompt } from './prompt.js';
import type { Task } from './task.js';

/** What one task iteration's prompt is made from. */
export interface TaskPromptRequest {
  spec: RunSpec;
  /** Template file (relative to the workspace) or null for the built-in one. */
  template: string | null;
  /** The tracker's name as the user knows it. */
  tracker: string;
  task: Task;
  iteration: number;
  maxIterations: number | null;
  /** What the last failed check said ('' for nothing). */
  feedback: string;
  /** Progress lines of the task not in progress.jsonl yet (a parallel task's, written when it ends). */
  pendingProgress?: readonly ProgressEntry[];
}

/** The run's own prompt (--prompt, --prompt-file, --procedure, --context) as the task prompt's instructions. */
export function taskInstructions(spec: RunSpec): string {
  if (spec.prompt.kind === 'text' && spec.prompt.text.trim() === '') return spec.context ?? '';
  return composePrompt(spec.prompt, spec.context);
}

/** Composes the prompt of one task iteration. */
export async function composeTaskPrompt(r: TaskPromptRequest): Promise<string> {
  const workspace = r.spec.workspace;
  const [progress, learning] = await Promise.all([readEntries(join(workspace, PROGRESS_FILE), progressEntrySchema), readEntries(join(workspace, LEARNING_FILE), learningEntrySchema)]);
  const template = r.template === null ? DEFAULT_TASK_TEMPLATE : await readTemplate(resolve(workspace, r.template));
  return renderTaskPrompt(
    template,
    {
      task: r.task,
      iteration: r.iteration,
      maxIterations: r.maxIterations,
      tracker: r.tracker,
      instructions: taskInstructions(r.spec),
      progress: progressNotes(r.pendingProgress ? [...progress.entries, ...r.pendingProgress] : progress.entries, r.task.id),
      learnings: learningNotes(learning.entries),
      feedback: r.feedback,
      signal: r.spec.successSignals[0] ?? '<promise>COMPLETE</promise>',
    },
    r.template ?? undefined,
  );
}
