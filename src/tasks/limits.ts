// Per-task limits (10 iterations, 30 minutes, $5 by default; a task's own `limits` win) and the
// check of a task's use against them. Pure.
import { formatDuration } from '../core/duration.js';
import type { TaskLimits } from './task.js';

/** The limits that apply to a task: its own, else the task loop's defaults. null = no limit. */
export function effectiveLimits(own: TaskLimits, defaults: TaskLimits): TaskLimits {
  return {
    maxIterations: own.maxIterations ?? defaults.maxIterations,
    maxRuntimeMs: own.maxRuntimeMs ?? defaults.maxRuntimeMs,
    maxCostUsd: own.maxCostUsd ?? defaults.maxCostUsd,
  };
}

/** What a task has used so far. */
export interface TaskUsage {
  iterations: number;
  runtimeMs: number;
  costUsd: number;
}

/** The per-task limit reached, in words ('max_iterations: 10 iterations used'), or null. */
export function taskLimitReached(usage: TaskUsage, limits: TaskLimits): string | null {
  if (limits.maxIterations !== null && usage.iterations >= limits.maxIterations) return `max_iterations: ${usage.iterations} iterations used (limit ${limits.maxIterations})`;
  if (limits.maxCostUsd !== null && usage.costUsd >= limits.maxCostUsd) return `max_cost: $${usage.costUsd.toFixed(4)} spent (limit $${limits.maxCostUsd})`;
  if (limits.maxRuntimeMs !== null && usage.runtimeMs >= limits.maxRuntimeMs) return `max_runtime: ${formatDuration(Math.round(usage.runtimeMs / 1000) * 1000)} used (limit ${formatDuration(limits.maxRuntimeMs)})`;
  return null;
}

/** Limits in words for `tasks show`: '10 iterations, 30m, $5'. */
export function describeLimits(limits: TaskLimits): string {
  return [
    limits.maxIterations === null ? 'no iteration limit' : `${limits.maxIterations} iterations`,
    limits.maxRuntimeMs === null ? 'no time limit' : formatDuration(limits.maxRuntimeMs),
    limits.maxCostUsd === null ? 'no cost limit' : `$${limits.maxCostUsd}`,
  ].join(', ');
}
