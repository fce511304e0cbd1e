// The `hooks:` section of ringmaster.yml: shell commands run at the task loop's lifecycle events.
import { z } from 'zod';

/** The lifecycle events a hook can follow (the task loop's lifecycle hooks, snake_case: docs/tasks.md). */
export const HOOK_EVENTS = ['task_start', 'iteration_start', 'action', 'iteration_end', 'task_end', 'anomaly'] as const;
/** One lifecycle event name. */
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** A hook: a shell command line (run with /bin/sh -c, exactly as written) or an argv list (run directly). */
const hookCommand = z.lazy(() => z.union([z.string().trim().min(1, 'expected a command'), z.array(z.string()).min(1, 'expected an argv list')]));

/** The `hooks:` section as written. */
export const hooksSectionSchema = z.lazy(() => z.strictObject(Object.fromEntries(HOOK_EVENTS.map((e) => [e, hookCommand.optional()])) as Record<HookEventName, z.ZodOptional<typeof hookCommand>>));

/** The hook commands by event, with the file that set each. */
export type HookCommands = Partial<Record<HookEventName, { command: string | string[]; source: string }>>;
