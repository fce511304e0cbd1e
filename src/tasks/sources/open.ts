// Finds a workspace's task file and recognises its format from its content (the name is only a hint).
import { existsSync } from 'node:fs';
import { extname, isAbsolute, join, relative, resolve } from 'node:path';
import { TaskFileError } from '../errors.js';
import { jsonlSource } from './jsonl.js';
import { checklistSource } from './markdown.js';
import { prdSource } from './prd.js';
import { readTracker, splitBom, type TaskSource, type TaskSourceKind } from './source.js';

/** The files `tasks run` looks for, in this order, when none is named. */
export const DEFAULT_TASK_FILES: readonly string[] = ['tasks.jsonl', 'prd.json', 'TODO.md'];

/** The first default task file present in `workspace`, or null. */
export function findTaskFile(workspace: string): string | null {
  for (const name of DEFAULT_TASK_FILES) {
    const path = join(workspace, name);
    if (existsSync(path)) return path;
  }
  return null;
}

const CHECKBOX = /^\s*([-*+]|\d+[.)])\s+\[[ xX/!]\]\s/m;

/** Recognises the format of a task file from its content; the extension decides only between equals. */
export function detectFormat(path: string, text: string): Exclude<TaskSourceKind, 'command'> | null {
  const ext = extname(path).toLowerCase();
  if (ext === '.md' || ext === '.markdown') return 'markdown';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      const data = JSON.parse(text) as unknown;
      if (typeof data === 'object' && data !== null && 'userStories' in data) return 'prd';
      // One object on one line is a tasks.jsonl of one task.
      return ext === '.json' && text.trim().includes('\n') ? 'prd' : 'jsonl';
    } catch {
      return 'jsonl';
    }
  }
  if (CHECKBOX.test(text)) return 'markdown';
  if (trimmed === '') return ext === '.json' ? 'prd' : 'jsonl';
  return null;
}

/** Opens a task file as a source; `name` is how messages call it (default: the path relative to `base`). */
export async function openTaskFile(path: string, base: string): Promise<TaskSource> {
  const abs = isAbsolute(path) ? path : resolve(base, path);
  const rel = relative(base, abs);
  const name = rel !== '' && !rel.startsWith('..') ? rel : abs;
  const { body: text } = splitBom(await readTracker(abs, name));
  switch (detectFormat(abs, text)) {
    case 'jsonl':
      return jsonlSource(abs, name);
    case 'prd':
      return prdSource(abs, name);
    case 'markdown':
      return checklistSource(abs, name);
    case null:
      throw new TaskFileError(name, null, null, 'not a task file: expected tasks.jsonl lines (one JSON task per line), a prd.json with "userStories", or a markdown checklist ("- [ ] task")');
  }
}
