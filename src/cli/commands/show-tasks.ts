// What `ringmaster show` adds for a task run: the tasks it completed and blocked, and the tasks in hand.
import type { RunRow } from '../../store/rows.js';
import { taskRunSummary } from '../../tasks/run-state.js';

/** The summary lines of a task run (none for other kinds), followed by an empty line. */
export function taskRunLines(run: RunRow): string[] {
  if (run.kind !== 'tasks') return [];
  const tasks = taskRunSummary(run.meta);
  if (tasks === null) return [];
  const list = (ids: string[]): string => (ids.length === 0 ? '-' : ids.join(', '));
  const inHand = tasks.inHand.length === 0 ? '-' : tasks.inHand.map((t) => `${t.id} (${t.iterations} iteration${t.iterations === 1 ? '' : 's'} so far)`).join(', ');
  return [`tasks done: ${list(tasks.done)}   blocked: ${list(tasks.blocked)}   in hand: ${inHand}`, ''];
}
