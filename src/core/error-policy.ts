// What each kind of iteration error means for the run: the one policy that decide(), the task verdicts and
// anything else judging an iteration share (a copy kept elsewhere drifts: one once lacked write_failed).
import type { ErrorKind } from './types.js';

/** Error kinds that end the run at once: retrying cannot help until the user acts. */
const RUN_FATAL_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(['auth', 'missing_binary', 'spawn_failed', 'write_failed']);
/** Error kinds of an agent stopped because the run reached a limit while it worked: the run ends with that limit. */
const RUN_LIMIT_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(['max_runtime', 'max_cost']);
/** Error kinds that mean "come back later", never a failure (`budget`: the shared budget stopped the agent). */
const WAIT_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(['usage_limit', 'rate_limit', 'overloaded', 'budget']);

/** The run ends at once (fatal_error): not the agent's nor the task's fault, and retrying cannot help. */
export function isRunFatal(kind: ErrorKind): boolean {
  return RUN_FATAL_KINDS.has(kind);
}

/** The agent was stopped by one of the run's own limits while it worked. */
export function isRunLimit(kind: ErrorKind): kind is 'max_runtime' | 'max_cost' {
  return RUN_LIMIT_KINDS.has(kind);
}

/** A usage limit, rate limit, overload or the shared budget: the run waits and tries again; never counted as a failure. */
export function isWait(kind: ErrorKind): kind is 'usage_limit' | 'rate_limit' | 'overloaded' | 'budget' {
  return WAIT_KINDS.has(kind);
}
