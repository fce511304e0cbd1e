// A markdown checklist (TODO.md): each `- [ ] item` is a task, in file order. Marks: `[ ]` pending,
// `[/]` in progress, `[!]` blocked, `[x]` done. Lines indented under an item are its description; checkbox
// lines indented under it are its acceptance criteria. An id may lead the item (`- [ ] RALPH-001: title`);
// otherwise the id is made from the title. A blocked item carries its reason in an HTML comment at the end
// of its line, which renderers hide. A status change rewrites the mark (and that comment) and nothing else.
import { TaskFileError } from '../errors.js';
import { checkTaskList, fileSource, splitLines, type StatusChange, type TaskSource, type TrackerFormat } from './source.js';
import type { Task, TaskStatus } from '../task.js';

const ITEM = /^(\s*)([-*+]|\d+[.)])(\s+)\[([ xX/!])\](\s+)(.*)$/;
const FENCE = /^\s*(```|~~~)/;
const BLOCKER = /\s*<!--\s*ringmaster:\s*blocked:\s*([\s\S]*?)\s*-->\s*$/;
const LEADING_ID = /^([A-Za-z][A-Za-z0-9_]*-\d+)(?::\s+|\s+[-–—]\s+|\s+)(\S.*)$/;

const STATUS_OF: Record<string, TaskStatus> = { ' ': 'pending', x: 'done', X: 'done', '/': 'in_progress', '!': 'blocked' };
const MARK_OF: Record<TaskStatus, string> = { pending: ' ', done: 'x', in_progress: '/', blocked: '!' };

/** A checkbox line, split so that its mark and trailing comment can be rewritten. */
interface Item {
  indent: number;
  /** Everything before the mark: indentation, bullet, spaces and `[`. */
  head: string;
  mark: string;
  /** `]` and the spaces after it. */
  close: string;
  text: string;
}

function item(body: string): Item | null {
  const m = ITEM.exec(body);
  if (!m) return null;
  const [, indent = '', bullet = '', gap = '', mark = ' ', space = '', text = ''] = m;
  return { indent: indent.length, head: `${indent}${bullet}${gap}[`, mark, close: `]${space}`, text };
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 48).replace(/-$/, '') || 'task';
}

/** Each task item's line index (0-based), skipping fenced code blocks. */
function taskLines(lines: ReadonlyArray<{ body: string }>): Array<{ index: number; item: Item; children: number[] }> {
  const found: Array<{ index: number; item: Item; children: number[] }> = [];
  let fenced = false;
  let current: { index: number; item: Item; children: number[] } | null = null;
  lines.forEach(({ body }, index) => {
    if (FENCE.test(body)) {
      fenced = !fenced;
      current = null;
      return;
    }
    if (fenced) return;
    const parsed = item(body);
    const indent = body.length - body.trimStart().length;
    if (current && body.trim() !== '' && indent > current.item.indent) {
      current.children.push(index);
      return;
    }
    if (parsed) {
      current = { index, item: parsed, children: [] };
      found.push(current);
    } else if (body.trim() !== '') {
      current = null;
    }
  });
  return found;
}

/** Parses a markdown checklist; `name` is used in error messages. */
export function parseChecklist(text: string, name: string): Task[] {
  const lines = splitLines(text);
  const used = new Map<string, number>();
  const tasks = taskLines(lines).map(({ index, item: it, children }, order): Task => {
    const blocker = BLOCKER.exec(it.text);
    const text = blocker ? it.text.slice(0, blocker.index) : it.text;
    const lead = LEADING_ID.exec(text.trim());
    let id = lead?.[1] ?? slug(text);
    const title = (lead?.[2] ?? text).trim();
    if (title === '') throw new TaskFileError(name, index + 1, 'title', 'a checklist item needs a text');
    if (!lead) {
      const n = (used.get(id) ?? 0) + 1;
      used.set(id, n);
      if (n > 1) id = `${id}-${n}`;
    }
    const acceptance: string[] = [];
    const description: string[] = [];
    for (const child of children) {
      const body = lines[child]?.body ?? '';
      const sub = item(body);
      if (sub) acceptance.push(sub.text.trim());
      else description.push(body.trim());
    }
    return {
      id,
      title,
      description: description.join('\n'),
      status: STATUS_OF[it.mark] ?? 'pending',
      priority: null,
      createdAt: null,
      dependsOn: [],
      completion: { type: 'signal' },
      limits: { maxIterations: null, maxRuntimeMs: null, maxCostUsd: null },
      acceptance,
      blocker: blocker ? (blocker[1] ?? '') : null,
      order,
      line: index + 1,
    };
  });
  checkTaskList(tasks, name);
  return tasks;
}

/** Rewrites the mark (and blocker comment) of task `change.id` in checklist text. */
export function applyChecklistStatus(text: string, change: StatusChange, name: string): string {
  const lines = splitLines(text);
  const tasks = parseChecklist(text, name);
  const task = tasks.find((t) => t.id === change.id);
  const line = task?.line === undefined || task.line === null ? undefined : lines[task.line - 1];
  const it = line ? item(line.body) : null;
  if (!task || !line || !it) throw new TaskFileError(name, null, null, `no checklist item with id '${change.id}'`);
  const comment = BLOCKER.exec(it.text);
  const textPart = comment ? it.text.slice(0, comment.index) : it.text;
  const reason = change.blocker?.replace(/\s+/g, ' ').replace(/--+/g, '-').trim();
  const suffix = change.status === 'blocked' && reason ? ` <!-- ringmaster: blocked: ${reason} -->` : '';
  line.body = `${it.head}${MARK_OF[change.status]}${it.close}${textPart}${suffix}`;
  return lines.map((l) => l.body + l.eol).join('');
}

/** The markdown checklist format (file order). */
export const CHECKLIST_FORMAT: TrackerFormat = { kind: 'markdown', priorityOrder: 'higher_first', parse: parseChecklist, apply: applyChecklistStatus };

/** A markdown checklist file as a task source. */
export function checklistSource(path: string, name: string): TaskSource {
  return fileSource(CHECKLIST_FORMAT, path, name);
}
