// A task with every field at its default (what a tasks.jsonl line with only id and title gives), for tests.
import type { Task } from '../../src/tasks/task.js';

/** A pending task `id` with defaults, overridden by `fields`. */
export function makeTask(id: string, fields: Partial<Task> = {}): Task {
  return {
    id,
    title: `title of ${id}`,
    description: '',
    status: 'pending',
    priority: null,
    createdAt: null,
    dependsOn: [],
    completion: { type: 'signal' },
    limits: { maxIterations: null, maxRuntimeMs: null, maxCostUsd: null },
    acceptance: [],
    blocker: null,
    order: 0,
    line: null,
    ...fields,
  };
}
