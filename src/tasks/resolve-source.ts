// Which task source a workspace uses: a file named on the command line, else tasks.command, else
// tasks.file, else the first of tasks.jsonl, prd.json, TODO.md in the workspace.
import { UserError } from '../core/errors.js';
import type { LoadedConfig } from '../config/load.js';
import { commandSource } from './command-source.js';
import { DEFAULT_TASK_FILES, findTaskFile, openTaskFile } from './open-source.js';
import type { TaskSource } from './source.js';

function setting<T>(config: LoadedConfig, key: string): T {
  return config.values.get(key)?.value as T;
}

/** Opens the task source of `workspace`; `file` is the FILE argument of the command, if any. */
export async function resolveTaskSource(workspace: string, config: LoadedConfig, env: Readonly<Record<string, string | undefined>>, file: string | undefined): Promise<TaskSource> {
  if (file !== undefined) return openTaskFile(file, workspace);
  const list = setting<string[] | null>(config, 'tasks.command');
  if (list !== null) {
    return commandSource({ list, status: setting<string[] | null>(config, 'tasks.status_command'), cwd: workspace, env, timeoutMs: setting<number>(config, 'tasks.command_timeout') });
  }
  const configured = setting<string | null>(config, 'tasks.file');
  if (configured !== null) return openTaskFile(configured, workspace);
  const found = findTaskFile(workspace);
  if (found === null) {
    throw new UserError(`no task file in ${workspace}: expected one of ${DEFAULT_TASK_FILES.join(', ')} (or name one, or set tasks.file or tasks.command in ringmaster.yml)`);
  }
  return openTaskFile(found, workspace);
}
