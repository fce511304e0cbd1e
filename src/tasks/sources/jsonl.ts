// tasks.jsonl (docs/tasks.md): one task object per line. Blank lines are allowed; a status change rewrites only
// the `status` (and `blocker`) value of the task's own line.
import { TaskFileError, fieldName } from '../errors.js';
import { columnAt, parseJson, removeJsonProperty, setJsonProperty } from './json-edit.js';
import { checkTaskList, fileSource, splitLines, type StatusChange, type TaskSource, type TrackerFormat } from './source.js';
import { taskFromObject, type Task } from '../task.js';

/** Parses the text of a tasks.jsonl file; `name` is used in error messages. */
export function parseTasksJsonl(text: string, name: string): Task[] {
  const tasks: Task[] = [];
  splitLines(text).forEach(({ body }, index) => {
    if (body.trim() === '') return;
    const line = index + 1;
    const parsed = parseJson(body);
    if (!parsed.ok) throw new TaskFileError(name, line, null, `${parsed.problem} (column ${columnAt(body, parsed.offset)})`);
    if (parsed.root.type !== 'object') throw new TaskFileError(name, line, null, 'expected a JSON object (one task per line)');
    const result = taskFromObject(JSON.parse(body), tasks.length, line);
    if (!result.ok) throw new TaskFileError(name, line, fieldName(result.problem.path), result.problem.problem);
    tasks.push(result.task);
  });
  checkTaskList(tasks, name);
  return tasks;
}

/** Rewrites the status of task `change.id` in tasks.jsonl text; every other byte stays as it was. */
export function applyJsonlStatus(text: string, change: StatusChange, name: string): string {
  const lines = splitLines(text);
  for (const [index, { body, eol }] of lines.entries()) {
    if (body.trim() === '') continue;
    const parsed = parseJson(body);
    if (!parsed.ok || parsed.root.type !== 'object') continue;
    const { id } = JSON.parse(body) as { id?: string | number };
    if (id === undefined || String(id) !== change.id) continue;
    let edited = setJsonProperty(body, [], 'status', change.status);
    edited = change.blocker === null ? removeJsonProperty(edited, [], 'blocker') : setJsonProperty(edited, [], 'blocker', change.blocker);
    lines[index] = { body: edited, eol };
    return lines.map((l) => l.body + l.eol).join('');
  }
  throw new TaskFileError(name, null, null, `no task with id '${change.id}'`);
}

/** The tasks.jsonl format (higher priority first). */
export const JSONL_FORMAT: TrackerFormat = { kind: 'jsonl', priorityOrder: 'higher_first', parse: parseTasksJsonl, apply: applyJsonlStatus };

/** A tasks.jsonl file as a task source. */
export function jsonlSource(path: string, name: string): TaskSource {
  return fileSource(JSONL_FORMAT, path, name);
}
