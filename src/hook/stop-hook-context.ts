// What `ringmaster hook stop` gets and gives (context, outcome), where its project is, and a hand check of the
// Stop event that lets a project without a loop be answered before the event's schema is loaded.
import type { HookDecision } from '../core/hook-decision.js';
import type { VerifyRecord } from '../store/rows.js';
import type { FileLockOptions } from './file-lock.js';
import type { StopHookInput } from './hook-input.js';
import type { PendingVerify } from './stop-verify.js';

/** What the hook process needs from its surroundings. */
export interface StopHookContext {
  env: Readonly<Record<string, string | undefined>>;
  /** The hook process's working directory (fallback for the project directory). */
  cwd: string;
  now: () => Date;
  lock?: FileLockOptions;
  /** Told when a verify check starts, with its time limit (the hook's own deadline moves past it). */
  onVerify?: (timeoutMs: number) => void;
}

/** What one decision under the tracker's lock came to. */
export interface LockedOutcome {
  decision: HookDecision;
  stdout: string;
  /** The decision log's reason: an allow reason, `continue`, `verify_failed` or `verify_timeout`. */
  reason: string;
  iteration: number | null;
  maxIterations: number | null;
  warning: string | null;
  /** The loop's run in the store, when the loop was active and has one. */
  runId: string | null;
  /** Blocks before this decision. */
  blocksBefore: number;
  /** A claimed completion whose verify check must run before it is settled (outside the lock). */
  pending: PendingVerify | null;
  /** The verify check's evidence, when one ran. */
  verify: VerifyRecord | null;
}

/** The hook's answer: `stdout` is what Claude Code reads (empty = allow). */
export interface StopHookOutcome {
  stdout: string;
  decision: 'allow' | 'block';
  reason: string;
  /** Set when the hook failed open; printed on stderr. */
  warning: string | null;
}

/** The project whose tracker a Stop event refers to: CLAUDE_PROJECT_DIR, else the event's cwd, else ours. */
export function projectDirOf(input: StopHookInput | null, ctx: StopHookContext): string {
  const fromEnv = ctx.env.CLAUDE_PROJECT_DIR;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (input?.cwd) return input.cwd;
  return ctx.cwd;
}

const optional = (value: unknown, type: 'string' | 'boolean', nullable: boolean): boolean =>
  value === undefined || typeof value === type || (nullable && value === null);

/**
 * The event when it plainly passes stopHookInputSchema (the same rules, checked by hand), else null (the schema
 * then says what is wrong). Only used to find out whether the project has a loop at all.
 */
export function plainStopHookInput(raw: unknown): StopHookInput | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const r = raw as Record<string, unknown>;
  if (typeof r.session_id !== 'string' || r.session_id === '') return null;
  const fine =
    optional(r.transcript_path, 'string', true) &&
    optional(r.cwd, 'string', true) &&
    optional(r.hook_event_name, 'string', false) &&
    optional(r.stop_hook_active, 'boolean', false) &&
    optional(r.last_assistant_message, 'string', true);
  return fine ? { ...r, session_id: r.session_id, stop_hook_active: r.stop_hook_active === true } : null;
}
