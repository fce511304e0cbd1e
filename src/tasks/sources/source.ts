// Where a task loop's tasks come from and where their status changes go back to.
import { chmod, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { findDependencyCycle } from '../dependency-cycle.js';
import { TaskFileError } from '../errors.js';
import type { Task, TaskStatus } from '../task.js';

/** The formats a task list can have. */
export type TaskSourceKind = 'jsonl' | 'prd' | 'markdown' | 'command';

/** One status change reported back to the tracker. */
export interface StatusChange {
  id: string;
  status: TaskStatus;
  /** Why the task is blocked (status `blocked`), else null. */
  blocker: string | null;
}

/** A task list: read it, write a status change back. */
export interface TaskSource {
  readonly kind: TaskSourceKind;
  /** What to call the source in messages: the file as the user named it, or the command line. */
  readonly name: string;
  /** Absolute path of the tracker file (committed with each task); null for a command source. */
  readonly path: string | null;
  /** Which end of `priority` runs first: tasks.jsonl higher first, prd.json (Ralph's convention) lower first. */
  readonly priorityOrder: 'higher_first' | 'lower_first';
  /** Reads the current tasks (files are re-read every time: the agent may have edited them). */
  load(signal?: AbortSignal): Promise<Task[]>;
  /** Records a status change in the tracker, touching nothing else. */
  setStatus(change: StatusChange, signal?: AbortSignal): Promise<void>;
}

/** What a tracker file format provides: a parser and a status rewriter, both on text. */
export interface TrackerFormat {
  kind: Exclude<TaskSourceKind, 'command'>;
  priorityOrder: TaskSource['priorityOrder'];
  parse(text: string, name: string): Task[];
  /** Returns the text with one status change applied; every other byte as it was. */
  apply(text: string, change: StatusChange, name: string): string;
}

/** A tracker file as a task source: re-read on every load, rewritten through a rename on every change. */
export function fileSource(format: TrackerFormat, path: string, name: string): TaskSource {
  return {
    kind: format.kind,
    name,
    path,
    priorityOrder: format.priorityOrder,
    async load() {
      return format.parse(splitBom(await readTracker(path, name)).body, name);
    },
    async setStatus(change) {
      // A byte order mark (an editor's UTF-8 BOM) is not the format's: read past it, and keep it.
      const { bom, body } = splitBom(await readTracker(path, name));
      // A file the agent broke is reported as such, not edited.
      format.parse(body, name);
      await writeTracker(path, bom + format.apply(body, change, name));
    },
  };
}

/** A text's leading UTF-8 byte order mark (some editors write one) apart from the rest. */
export function splitBom(text: string): { bom: string; body: string } {
  return text.startsWith('\uFEFF') ? { bom: '\uFEFF', body: text.slice(1) } : { bom: '', body: text };
}

/** Throws a TaskFileError for what makes a list unusable as a whole: an id used twice, a dependency cycle. */
export function checkTaskList(tasks: readonly Task[], name: string): void {
  checkUniqueIds(tasks, name);
  const cycle = findDependencyCycle(tasks);
  if (cycle === null) return;
  const first = tasks.find((t) => t.id === cycle[0]);
  const field = first?.line === null || first?.line === undefined ? `[${first?.order ?? 0}].dependsOn` : 'dependsOn';
  throw new TaskFileError(name, first?.line ?? null, field, `dependency cycle: ${cycle.join(' → ')} (${cycle.length === 2 ? 'a task cannot depend on itself' : 'none of them can ever start: remove one of these dependencies'})`);
}

/** Throws a TaskFileError for the first id used twice. */
export function checkUniqueIds(tasks: readonly Task[], name: string): void {
  const seen = new Map<string, Task>();
  for (const task of tasks) {
    const first = seen.get(task.id);
    if (first) {
      const where = first.line === null ? `task ${first.order + 1}` : `line ${first.line}`;
      throw new TaskFileError(name, task.line, task.line === null ? `[${task.order}].id` : 'id', `duplicate task id '${task.id}' (also at ${where})`);
    }
    seen.set(task.id, task);
  }
}

/** Reads a tracker file, turning a missing or unreadable file into a TaskFileError. */
export async function readTracker(path: string, name: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TaskFileError(name, null, null, code === 'ENOENT' ? 'file not found' : `cannot read: ${(error as Error).message}`);
  }
}

/** Replaces a file's content through a temporary file and a rename (a crash leaves the old or the new file, whole). */
export async function writeTracker(path: string, text: string): Promise<void> {
  const temp = `${path}.ringmaster-${process.pid}.tmp`;
  const { mode } = await stat(path);
  await writeFile(temp, text);
  await chmod(temp, mode & 0o7777);
  await rename(temp, path);
}

/** Splits text into lines keeping each line's own end ('\n', '\r\n' or none for the last). */
export function splitLines(text: string): Array<{ body: string; eol: string }> {
  const out: Array<{ body: string; eol: string }> = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) {
      out.push({ body: text.slice(start), eol: '' });
      break;
    }
    const cr = nl > start && text.charCodeAt(nl - 1) === 13;
    out.push({ body: text.slice(start, cr ? nl - 1 : nl), eol: cr ? '\r\n' : '\n' });
    start = nl + 1;
  }
  return out;
}
