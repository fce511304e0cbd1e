// pickTask: seed 003's order (blocked skipped, in progress first, highest priority, oldest) plus
// dependencies, and the reasons `tasks next` gives for every task.
import { describe, expect, it } from 'vitest';
import { candidates, explainSelection, pickTask } from '../../src/tasks/pick.js';
import type { Task } from '../../src/tasks/task.js';
import { makeTask } from './task-fixture.js';

let order = 0;
const task = (id: string, fields: Partial<Task> = {}): Task => makeTask(id, { order: order++, ...fields });

const higher = { priorityOrder: 'higher_first' } as const;

describe('pickTask', () => {
  it('in progress first, then the highest priority, then the oldest, then file order', () => {
    const tasks = [
      task('old-low', { priority: 1, createdAt: '2025-01-01' }),
      task('new-high', { priority: 5, createdAt: '2025-03-01' }),
      task('old-high', { priority: 5, createdAt: '2025-02-01' }),
      task('undated-high', { priority: 5 }),
      task('none'),
      task('done', { status: 'done', priority: 9 }),
      task('blocked', { status: 'blocked', priority: 9 }),
    ];
    expect(candidates(tasks, higher).map((t) => t.id)).toEqual(['old-high', 'new-high', 'undated-high', 'old-low', 'none']);
    expect(pickTask([...tasks, task('resume', { status: 'in_progress', priority: 0 })], higher)?.id).toBe('resume');
  });

  it('prd.json order: priority 1 runs first', () => {
    const tasks = [task('b', { priority: 2 }), task('a', { priority: 1 }), task('c')];
    expect(candidates(tasks, { priorityOrder: 'lower_first' }).map((t) => t.id)).toEqual(['a', 'b', 'c']);
  });

  it('a task whose dependencies are not all done is not a candidate', () => {
    const tasks = [task('a', { priority: 1 }), task('b', { priority: 9, dependsOn: ['a'] }), task('c', { priority: 5, dependsOn: ['missing'] })];
    expect(pickTask(tasks, higher)?.id).toBe('a');
    tasks[0] = { ...tasks[0]!, status: 'done' };
    expect(pickTask(tasks, higher)?.id).toBe('b');
    expect(pickTask(tasks, { ...higher, exclude: new Set(['b']) })).toBeNull();
  });

  it('nothing to pick from an empty list, a finished one, or a blocked one', () => {
    expect(pickTask([], higher)).toBeNull();
    expect(explainSelection([], higher)).toEqual({ task: null, reason: 'the task list is empty', others: [] });
    expect(explainSelection([task('a', { status: 'done' })], higher).reason).toBe('every task is done');
    expect(explainSelection([task('a', { status: 'blocked' }), task('b', { dependsOn: ['a'] })], higher).reason).toBe('no task can run: every open task is blocked or waits for another');
  });
});

describe('explainSelection', () => {
  it('says why the chosen task runs and why each other one does not', () => {
    const tasks = [
      task('R-1', { status: 'done' }),
      task('R-2', { status: 'blocked', blocker: 'max_iterations: 10 iterations used (limit 10)' }),
      task('R-3', { priority: 3, createdAt: '2025-01-02' }),
      task('R-4', { priority: 1 }),
      task('R-5', { priority: 3, createdAt: '2025-01-05' }),
      task('R-6', { priority: 3 }),
      task('R-7', { priority: 9, dependsOn: ['R-3', 'R-1', 'R-2', 'R-0'] }),
      task('R-8', { priority: 3, createdAt: '2025-01-02' }),
    ];
    const selection = explainSelection(tasks, higher);
    expect(selection.task?.id).toBe('R-3');
    expect(selection.reason).toBe('the oldest of the tasks with priority 3 (created 2025-01-02), first in the file among them');
    expect(explainSelection(tasks.slice(0, 7), higher).reason).toBe('the oldest of the tasks with priority 3 (created 2025-01-02)');
    expect(selection.others.map((o) => `${o.task.id}: ${o.reason}`)).toEqual([
      'R-1: done',
      'R-2: blocked: max_iterations: 10 iterations used (limit 10)',
      'R-4: priority 1, R-3 has priority 3 (higher priority runs first)',
      'R-5: created 2025-01-05, after R-3 (2025-01-02)',
      'R-6: no creation date, R-3 was created 2025-01-02',
      'R-7: waits for R-3 (pending), R-2 (blocked), R-0 (not in the task list)',
      'R-8: same priority and date as R-3, which comes first in the file',
    ]);
  });

  it('names the rule that decided: in progress, priority, or the only candidate', () => {
    const a = task('A', { priority: 1 });
    const b = task('B', { priority: 2 });
    expect(explainSelection([a, { ...b, status: 'in_progress' }], higher)).toMatchObject({ reason: 'in progress: resumes first', others: [{ reason: 'B is in progress and resumes first' }] });
    expect(explainSelection([a, b], higher).reason).toBe('priority 2: the highest of the tasks that can run');
    expect(explainSelection([a, b], { priorityOrder: 'lower_first' }).others[0]?.reason).toBe('priority 2, A has priority 1 (lower priority number runs first)');
    expect(explainSelection([a], higher).reason).toBe('the only task that can run');
    expect(explainSelection([task('x'), task('y')], higher).reason).toBe('first in the file among the tasks with no priority');
  });
});
