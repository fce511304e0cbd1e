// What `ringmaster show` adds for a task run: the tasks it completed and blocked, and the task in hand.
import type { RunRow } from '../../store/rows.js';
import { taskRunSummary } from '../../tasks/run-state.js';

/** The summary lines of a task run (none for other kinds), followed by an empty line. */
export function taskRunLines(run: RunRow): string[] {
  if (run.kind !== 'tasks') return [];
  const tasks = taskRunSummary(run.meta);
  if (tasks === null) return [];
  const list = (ids: string[]): string => (ids.length === 0 ? '-' : ids.join(', '));
  const current = tasks.current === null ? '-' : `${tasks.current.id} (${tasks.current.iterations} iteration${tasks.current.iterations === 1 ? '' : 's'} so far)`;
  return [`tasks done: ${list(tasks.done)}   blocked: ${list(tasks.blocked)}   in hand: ${current}`, ''];
}
