// A command source: any program that prints the task list as JSON (an array of tasks in the tasks.jsonl
// schema, an object with a `tasks` array, or one task object per line), e.g. a script around `gh issue list`.
// Status changes go to a second program as `<status command...> <task id> <status>`, with the change as JSON
// on stdin. Both commands are argv lists: a string is split like agent.command (quotes group words, a
// backslash escapes, nothing is expanded); no shell runs unless the command itself is `sh -c '...'`.
import { quoteArgv } from '../../agents/command.js';
import { TaskCommandError, TaskFileError, fieldName } from '../errors.js';
import { execBounded, failureText } from '../../os/exec.js';
import { parseTasksJsonl } from './jsonl.js';
import { checkTaskList, splitBom, type StatusChange, type TaskSource } from './source.js';
import { taskFromObject, type Task } from '../task.js';

/** The commands of a command source and how to run them. */
export interface CommandSourceOptions {
  list: readonly string[];
  /** Receives status changes; null: changes are kept in Ringmaster's own records only. */
  status: readonly string[] | null;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Per command run. */
  timeoutMs: number;
}

const MAX_LIST_BYTES = 16 * 1024 * 1024;

/** Parses what a list command printed. */
export function parseTaskListOutput(output: string, name: string): Task[] {
  const text = splitBom(output).body;
  const trimmed = text.trim();
  if (trimmed === '') return [];
  let data: unknown;
  try {
    data = JSON.parse(trimmed);
  } catch {
    // Not one JSON value: one task per line, then.
    return parseTasksJsonl(text, name);
  }
  const list = Array.isArray(data) ? data : (data as { tasks?: unknown } | null)?.tasks;
  if (!Array.isArray(list)) {
    if (typeof data === 'object' && data !== null && 'id' in data) return parseTasksJsonl(text, name);
    throw new TaskFileError(name, null, null, 'expected a JSON array of tasks (or an object with a "tasks" array)');
  }
  const tasks = list.map((raw, index) => {
    const result = taskFromObject(raw, index, null);
    if (!result.ok) throw new TaskFileError(name, null, fieldName([index, ...result.problem.path]), result.problem.problem);
    return result.task;
  });
  checkTaskList(tasks, name);
  return tasks;
}

/** A pair of commands as a task source. */
export function commandSource(options: CommandSourceOptions): TaskSource {
  const name = `output of '${quoteArgv(options.list)}'`;
  return {
    kind: 'command',
    name: quoteArgv(options.list),
    path: null,
    priorityOrder: 'higher_first',
    async load(signal) {
      const result = await execBounded({ argv: options.list, cwd: options.cwd, env: options.env, timeoutMs: options.timeoutMs, signal, stdoutBytes: MAX_LIST_BYTES });
      if (result.reason !== 'exited' || result.exitCode !== 0) {
        throw new TaskCommandError(failureText(`task command '${quoteArgv(options.list)}'`, result, options.timeoutMs));
      }
      return parseTaskListOutput(result.stdout, name);
    },
    async setStatus(change: StatusChange, signal) {
      if (options.status === null) return;
      const argv = [...options.status, change.id, change.status];
      const result = await execBounded({
        argv,
        cwd: options.cwd,
        env: { ...options.env, RINGMASTER_TASK_ID: change.id, RINGMASTER_TASK_STATUS: change.status },
        stdin: `${JSON.stringify({ id: change.id, status: change.status, blocker: change.blocker })}\n`,
        timeoutMs: options.timeoutMs,
        signal,
      });
      if (result.reason !== 'exited' || result.exitCode !== 0) {
        throw new TaskCommandError(failureText(`task status command '${quoteArgv(argv)}'`, result, options.timeoutMs));
      }
    },
  };
}
