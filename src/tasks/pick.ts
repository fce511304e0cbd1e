// Task selection, as docs/tasks.md says, plus dependencies: blocked tasks are skipped, in-progress tasks resume
// first, then the highest priority, then the oldest (then file order). A task whose `dependsOn` tasks are
// not all done is not a candidate. Pure: the same list always gives the same answer and the same reasons.
import type { Task } from './task.js';

/** Which end of `priority` runs first (tasks.jsonl: higher first; prd.json: 1 first). */
export type PriorityOrder = 'higher_first' | 'lower_first';

/** Options of a selection. */
export interface PickOptions {
  priorityOrder: PriorityOrder;
  /** Ids that are not candidates whatever their status (e.g. running in another worktree). */
  exclude?: ReadonlySet<string>;
}

/** Why a task would or would not run next. */
export interface TaskVerdict {
  task: Task;
  reason: string;
}

/** The answer of `tasks next`: the task that would run, why, and why each other task would not. */
export interface Selection {
  task: Task | null;
  reason: string;
  others: TaskVerdict[];
}

function unmetDependencies(task: Task, byId: ReadonlyMap<string, Task>): string[] {
  return task.dependsOn.filter((id) => byId.get(id)?.status !== 'done');
}

function time(task: Task): number | null {
  if (task.createdAt === null) return null;
  const ms = Date.parse(task.createdAt);
  return Number.isNaN(ms) ? null : ms;
}

function nullsLast(a: number | null, b: number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a - b;
}

/** The keys candidates are ordered by, most significant first; each returns <0 when `a` runs before `b`. */
function keys(order: PriorityOrder): Array<(a: Task, b: Task) => number> {
  const sign = order === 'higher_first' ? -1 : 1;
  return [
    (a, b) => (a.status === 'in_progress' ? 0 : 1) - (b.status === 'in_progress' ? 0 : 1),
    (a, b) => nullsLast(a.priority === null ? null : sign * a.priority, b.priority === null ? null : sign * b.priority),
    (a, b) => nullsLast(time(a), time(b)),
    (a, b) => a.order - b.order,
  ];
}

/** Orders candidates: the first one runs next. */
export function compareTasks(order: PriorityOrder): (a: Task, b: Task) => number {
  const list = keys(order);
  return (a, b) => {
    for (const key of list) {
      const d = key(a, b);
      if (d !== 0) return d;
    }
    return 0;
  };
}

/** The tasks that may run now, in the order they would. */
export function candidates(tasks: readonly Task[], options: PickOptions): Task[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  return tasks
    .filter((t) => (t.status === 'pending' || t.status === 'in_progress') && !options.exclude?.has(t.id))
    .filter((t) => unmetDependencies(t, byId).length === 0)
    .sort(compareTasks(options.priorityOrder));
}

/** The task to run next, or null when none may run. */
export function pickTask(tasks: readonly Task[], options: PickOptions): Task | null {
  return candidates(tasks, options)[0] ?? null;
}

function describePriority(task: Task): string {
  return task.priority === null ? 'no priority' : `priority ${task.priority}`;
}

/** In words: why `winner` runs before `other` (the first key that tells them apart). */
function whyBefore(winner: Task, other: Task, order: PriorityOrder): string {
  const [status, priority, created] = keys(order);
  if (status && status(winner, other) !== 0) return `${winner.id} is in progress and resumes first`;
  if (priority && priority(winner, other) !== 0) {
    const rule = order === 'higher_first' ? 'higher priority runs first' : 'lower priority number runs first';
    return `${describePriority(other)}, ${winner.id} has ${describePriority(winner)} (${rule})`;
  }
  if (created && created(winner, other) !== 0) {
    return other.createdAt === null ? `no creation date, ${winner.id} was created ${winner.createdAt ?? ''}` : `created ${other.createdAt}, after ${winner.id} (${winner.createdAt ?? ''})`;
  }
  return `same priority and date as ${winner.id}, which comes first in the file`;
}

/** Why a task is not a candidate at all, or null when it is one. */
function whyNotCandidate(task: Task, byId: ReadonlyMap<string, Task>, exclude: ReadonlySet<string> | undefined): string | null {
  if (task.status === 'done') return 'done';
  if (task.status === 'blocked') return task.blocker ? `blocked: ${task.blocker}` : 'blocked';
  if (exclude?.has(task.id)) return 'already running';
  const unmet = unmetDependencies(task, byId);
  if (unmet.length === 0) return null;
  const states = unmet.map((id) => {
    const dep = byId.get(id);
    return dep ? `${id} (${dep.status.replace('_', ' ')})` : `${id} (not in the task list)`;
  });
  return `waits for ${states.join(', ')}`;
}

/** The selection with a reason for every task: what `ringmaster tasks next` prints. */
export function explainSelection(tasks: readonly Task[], options: PickOptions): Selection {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const ordered = candidates(tasks, options);
  const chosen = ordered[0] ?? null;
  const others: TaskVerdict[] = [];
  for (const task of tasks) {
    if (task === chosen) continue;
    const not = whyNotCandidate(task, byId, options.exclude);
    others.push({ task, reason: not ?? (chosen ? whyBefore(chosen, task, options.priorityOrder) : 'not a candidate') });
  }
  if (!chosen) {
    const open = tasks.filter((t) => t.status !== 'done');
    const reason = tasks.length === 0 ? 'the task list is empty' : open.length === 0 ? 'every task is done' : 'no task can run: every open task is blocked or waits for another';
    return { task: null, reason, others };
  }
  const runnerUp = ordered[1];
  let reason: string;
  if (!runnerUp) reason = 'the only task that can run';
  else if (chosen.status === 'in_progress') reason = 'in progress: resumes first';
  else {
    const [, priority, created] = keys(options.priorityOrder);
    if (priority && priority(chosen, runnerUp) !== 0) reason = `${describePriority(chosen)}: the highest of the tasks that can run`;
    else if (created && created(chosen, runnerUp) !== 0) reason = `the oldest of the tasks with ${describePriority(chosen)} (created ${chosen.createdAt ?? ''})`;
    else if (chosen.createdAt !== null) reason = `the oldest of the tasks with ${describePriority(chosen)} (created ${chosen.createdAt}), first in the file among them`;
    else reason = `first in the file among the tasks with ${describePriority(chosen)}`;
  }
  return { task: chosen, reason, others };
}
