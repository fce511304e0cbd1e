// Dependency cycles of a task list: A depends on C, C on B, B on A (or a task on itself) can never run, and
// nothing else would ever say why. Pure: the first cycle met walking the tasks in file order, as a path.
import type { Task } from './task.js';

/** The first cycle as ids, its first id repeated at the end (`['A', 'C', 'B', 'A']`), or null when there is none. */
export function findDependencyCycle(tasks: readonly Task[]): string[] | null {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const finished = new Set<string>();
  for (const start of tasks) {
    if (finished.has(start.id)) continue;
    // Iterative depth-first walk: the path so far and, for each task on it, the next dependency to follow.
    const path: string[] = [start.id];
    const next: number[] = [0];
    const onPath = new Set(path);
    while (path.length > 0) {
      const id = path[path.length - 1] ?? '';
      const at = next[next.length - 1] ?? 0;
      const deps = byId.get(id)?.dependsOn ?? [];
      if (at >= deps.length) {
        finished.add(id);
        onPath.delete(id);
        path.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] = at + 1;
      const dep = deps[at] ?? '';
      if (onPath.has(dep)) return [...path.slice(path.indexOf(dep)), dep];
      if (finished.has(dep) || !byId.has(dep)) continue;
      path.push(dep);
      next.push(0);
      onPath.add(dep);
    }
  }
  return null;
}
