// The prompt of one task iteration: a template (built in, or a file of the user's) filled with the task's
// fields, its acceptance criteria, the progress notes of its earlier iterations, the learnings so far and the
// feedback of the last failed check. Template syntax: {{name}} inserts a value; {{#name}}...{{/name}} keeps
// its content only when the value is not empty. An unknown name is an error naming the template.
import { readFile } from 'node:fs/promises';
import { UserError } from '../core/errors.js';
import { RESULT_TAG } from './result.js';
import { describeCompletion, type Task } from './task.js';

/** Everything a task prompt can show. */
export interface TaskPromptInput {
  task: Task;
  /** The task's own iteration number (1-based) and its limit (null: none). */
  iteration: number;
  maxIterations: number | null;
  /** The tracker as the user named it (e.g. tasks.jsonl), or the task command. */
  tracker: string;
  /** The run's own prompt (--prompt, --prompt-file, --context), shown as instructions; '' when none. */
  instructions: string;
  /** Notes of the task's earlier iterations ('' on the first). */
  progress: string;
  /** Learnings recorded by earlier tasks (''). */
  learnings: string;
  /** What the last check or the verify gate said ('' when nothing failed). */
  feedback: string;
  /** The completion signal the agent may print. */
  signal: string;
}

/** The built-in task prompt template. */
export const DEFAULT_TASK_TEMPLATE = `# Task {{task.id}}: {{task.title}}

You are working on one task from the task list {{tracker}} (iteration {{task.iteration}}{{#task.max_iterations}} of at most {{task.max_iterations}}{{/task.max_iterations}} on this task).
Work on this task only. Earlier iterations' work is already in the files of this workspace: look at it first.
Do not edit {{tracker}}: Ringmaster updates it and commits your work when the task is complete.
{{#instructions}}

## Instructions
{{instructions}}
{{/instructions}}
{{#task.description}}

## Description
{{task.description}}
{{/task.description}}
{{#acceptance}}

## Acceptance criteria
{{acceptance}}
{{/acceptance}}

## How completion is checked
Complete when {{task.completion}}.
{{#feedback}}

## The last check failed
{{feedback}}
{{/feedback}}
{{#progress}}

## Progress so far on this task
{{progress}}
{{/progress}}
{{#learnings}}

## Learnings from earlier tasks
{{learnings}}
{{/learnings}}

## When you stop
End your answer with one result block, JSON inside the tag (status is one of complete, continue, blocked, failed):
<{{result_tag}}>{"status": "complete | continue | blocked | failed", "artifacts": ["files you made (complete)"], "reason": "what is left (continue)", "blocker": "what you need (blocked)", "error": "what went wrong (failed)", "learnings": ["anything the next tasks should know"]}</{{result_tag}}>
Or, when the task is complete, print {{signal}}.
`;

function values(input: TaskPromptInput): Record<string, string> {
  const { task } = input;
  return {
    'task.id': task.id,
    'task.title': task.title,
    'task.description': task.description,
    'task.status': task.status,
    'task.priority': task.priority === null ? '' : String(task.priority),
    'task.completion': describeCompletion(task.completion),
    'task.iteration': String(input.iteration),
    'task.max_iterations': input.maxIterations === null ? '' : String(input.maxIterations),
    'task.depends_on': task.dependsOn.join(', '),
    acceptance: task.acceptance.map((a) => `- ${a}`).join('\n'),
    tracker: input.tracker,
    instructions: input.instructions.trim(),
    progress: input.progress,
    learnings: input.learnings,
    feedback: input.feedback.trim(),
    signal: input.signal,
    result_tag: RESULT_TAG,
  };
}

/** The names a template may use. */
export const TEMPLATE_NAMES: readonly string[] = Object.keys(values({ task: { id: '', title: '', description: '', status: 'pending', priority: null, createdAt: null, dependsOn: [], completion: { type: 'signal' }, limits: { maxIterations: null, maxRuntimeMs: null, maxCostUsd: null }, acceptance: [], blocker: null, order: 0, line: null }, iteration: 1, maxIterations: null, tracker: '', instructions: '', progress: '', learnings: '', feedback: '', signal: '' }));

const SECTION = /\{\{#\s*([\w.]+)\s*\}\}([\s\S]*?)\{\{\/\s*\1\s*\}\}/g;
/** A section tag alone on its line: the line (and its line end) disappears with it, as in mustache. */
const STANDALONE = /^[ \t]*(\{\{[#/]\s*[\w.]+\s*\}\})[ \t]*\r?\n/gm;
const VARIABLE = /\{\{\s*([\w.]+)\s*\}\}/g;

/** Fills a template; `name` (the template file, or 'built-in template') is used in errors. */
export function renderTaskPrompt(template: string, input: TaskPromptInput, name = 'built-in template'): string {
  const vars = values(input);
  const check = (key: string): string => {
    const value = vars[key];
    if (value === undefined) throw new UserError(`${name}: unknown placeholder {{${key}}} (known: ${Object.keys(vars).join(', ')})`);
    return value;
  };
  const sections = template.replace(STANDALONE, '$1').replace(SECTION, (_all, key: string, body: string) => (check(key) === '' ? '' : body));
  if (/\{\{[#/]/.test(sections)) throw new UserError(`${name}: a {{#section}} is not closed by its {{/section}}`);
  // Values are inserted in one pass: a placeholder inside a value (e.g. in the agent's notes) stays text.
  return sections.replace(VARIABLE, (_all, key: string) => check(key));
}

/** Reads a template file; a missing one is the user's error. */
export async function readTemplate(path: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).replace(/^\uFEFF/, ''); // an editor's byte order mark is not the template's
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(code === 'ENOENT' ? `task prompt template not found: ${path}` : `cannot read task prompt template ${path}: ${(error as Error).message}`);
  }
}
