// Which task source a workspace uses: a file named on the command line, else tasks.command, else
// tasks.file, else the first of tasks.jsonl, prd.json, TODO.md in the workspace.
import { resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import type { LoadedConfig } from '../../config/load.js';
import { commandSource } from './command.js';
import { DEFAULT_TASK_FILES, findTaskFile, openTaskFile } from './open.js';
import type { TaskSourceRef } from '../run-settings.js';
import type { TaskSource } from './source.js';

/** Where the tasks of `workspace` come from; `file` is the FILE argument of the command, if any. Files are absolute. */
export function resolveTaskSourceRef(workspace: string, config: LoadedConfig, file: string | undefined): TaskSourceRef {
  if (file !== undefined) return { type: 'file', path: resolve(workspace, file) };
  const tasks = config.settings.tasks;
  const list = tasks.command;
  if (list !== null) return { type: 'command', list, status: tasks.status_command, timeoutMs: tasks.command_timeout };
  const configured = tasks.file;
  if (configured !== null) return { type: 'file', path: resolve(workspace, configured) };
  const found = findTaskFile(workspace);
  if (found === null) {
    throw new UserError(`no task file in ${workspace}: expected one of ${DEFAULT_TASK_FILES.join(', ')} (or name one, or set tasks.file or tasks.command in ringmaster.yml)`);
  }
  return { type: 'file', path: found };
}

/** Opens a task source; a file is named relative to `workspace` in messages. */
export async function openTaskSourceRef(ref: TaskSourceRef, workspace: string, env: Readonly<Record<string, string | undefined>>): Promise<TaskSource> {
  if (ref.type === 'file') return openTaskFile(ref.path, workspace);
  return commandSource({ list: ref.list, status: ref.status, cwd: workspace, env, timeoutMs: ref.timeoutMs });
}

/** Opens the task source of `workspace`; `file` is the FILE argument of the command, if any. */
export async function resolveTaskSource(workspace: string, config: LoadedConfig, env: Readonly<Record<string, string | undefined>>, file: string | undefined): Promise<TaskSource> {
  return openTaskSourceRef(resolveTaskSourceRef(workspace, config, file), workspace, env);
}
