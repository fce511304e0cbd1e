// prd.json: the `userStories` format of the Ralph tools (`passes: false` until done, `priority` 1 first).
// Ringmaster reads its own optional fields too (status, blocker, dependsOn, completion, limits) and writes
// back only `passes`, `status` and `blocker` of the story that changed.
import { z } from 'zod';
import { TaskFileError, fieldName } from '../errors.js';
import { columnAt, lineAt, nearestNode, parseJson, removeJsonProperty, setJsonProperty } from './json-edit.js';
import { checkTaskList, fileSource, type StatusChange, type TaskSource, type TrackerFormat } from './source.js';
import { TASK_STATUSES, completionSchema, normaliseCompletion, normaliseLimits, taskLimitsSchema, type Task } from '../task.js';

const idSchema = z.union([z.string().trim().min(1, 'expected a non-empty id'), z.number().int()]).transform(String);

const storySchema = z.object({
  id: idSchema,
  title: z.string().trim().min(1, 'expected a non-empty title'),
  description: z.string().optional(),
  acceptanceCriteria: z.array(z.string()).optional(),
  priority: z.number().optional(),
  passes: z.boolean().optional(),
  status: z.enum(TASK_STATUSES).optional(),
  blocker: z.string().optional(),
  dependsOn: z.array(idSchema).optional(),
  dependencies: z.array(idSchema).optional(),
  completion: completionSchema.optional(),
  limits: taskLimitsSchema.optional(),
  notes: z.string().optional(),
});

function fail(text: string, name: string, root: Parameters<typeof nearestNode>[0], path: Array<string | number>, problem: string): never {
  const node = nearestNode(root, path);
  throw new TaskFileError(name, lineAt(text, node.offset), fieldName(path), problem);
}

/** Parses the text of a prd.json file; `name` is used in error messages. */
export function parsePrd(text: string, name: string): Task[] {
  const parsed = parseJson(text);
  if (!parsed.ok) throw new TaskFileError(name, lineAt(text, parsed.offset), null, `${parsed.problem} (column ${columnAt(text, parsed.offset)})`);
  const data = JSON.parse(text) as unknown;
  const stories = (data as { userStories?: unknown } | null)?.userStories;
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !Array.isArray(stories)) {
    fail(text, name, parsed.root, ['userStories'], 'expected an object with a userStories array');
  }
  const tasks: Task[] = stories.map((raw, index) => {
    const at = (path: ReadonlyArray<PropertyKey>): Array<string | number> => ['userStories', index, ...path.map((p) => (typeof p === 'number' ? p : String(p)))];
    const story = storySchema.safeParse(raw);
    if (!story.success) {
      const issue = story.error.issues[0];
      fail(text, name, parsed.root, at(issue?.path ?? []), issue?.message ?? 'invalid user story');
    }
    const s = story.data;
    const completion = normaliseCompletion(s.completion);
    if (!completion.ok) fail(text, name, parsed.root, at(completion.field.split('.')), completion.problem);
    const limits = normaliseLimits(s.limits);
    if (!limits.ok) fail(text, name, parsed.root, at(limits.field.split('.')), limits.problem);
    const status = s.passes === true ? 'done' : s.status === undefined || s.status === 'done' ? 'pending' : s.status;
    return {
      id: s.id,
      title: s.title,
      description: [s.description, s.notes ? `Notes: ${s.notes}` : undefined].filter((x) => x !== undefined && x !== '').join('\n\n'),
      status,
      priority: s.priority ?? null,
      createdAt: null,
      dependsOn: s.dependsOn ?? s.dependencies ?? [],
      completion: completion.value,
      limits: limits.value,
      acceptance: s.acceptanceCriteria ?? [],
      blocker: s.blocker ?? null,
      order: index,
      line: lineAt(text, nearestNode(parsed.root, ['userStories', index]).offset),
    };
  });
  checkTaskList(tasks, name);
  return tasks;
}

/** Rewrites the story of `change.id` in prd.json text: `passes` when done, `status`/`blocker` otherwise. */
export function applyPrdStatus(text: string, change: StatusChange, name: string): string {
  const data = JSON.parse(text) as { userStories: Array<{ id?: string | number }> };
  const index = data.userStories.findIndex((s) => s.id !== undefined && String(s.id) === change.id);
  if (index < 0) throw new TaskFileError(name, null, null, `no user story with id '${change.id}'`);
  const at = ['userStories', index];
  let out = setJsonProperty(text, at, 'passes', change.status === 'done');
  out = change.status === 'done' || change.status === 'pending' ? removeJsonProperty(out, at, 'status') : setJsonProperty(out, at, 'status', change.status);
  return change.blocker === null ? removeJsonProperty(out, at, 'blocker') : setJsonProperty(out, at, 'blocker', change.blocker);
}

/** The prd.json format (Ralph's convention: priority 1 first). */
export const PRD_FORMAT: TrackerFormat = { kind: 'prd', priorityOrder: 'lower_first', parse: parsePrd, apply: applyPrdStatus };

/** A prd.json file as a task source. */
export function prdSource(path: string, name: string): TaskSource {
  return fileSource(PRD_FORMAT, path, name);
}
