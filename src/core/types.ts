// Domain vocabulary shared by every module: runs, iterations, statuses, stop reasons, results.
// Pure data only: no I/O here.

/** Every run status, in lifecycle order. */
export const RUN_STATUSES = ['pending', 'running', 'waiting', 'paused', 'completed', 'stopped', 'failed'] as const;

/** Lifecycle status of a run (docs/architecture.md#vocabulary). `waiting` = sleeping until a usage limit resets. */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** All stop reasons, for validation and documentation. */
export const STOP_REASONS = [
  'success_signal',
  'max_iterations',
  'max_runtime',
  'max_cost',
  'failure_threshold',
  'stalled',
  /** `--no-progress-after N`: the last N iterations changed no file (core/no-progress.ts). */
  'no_progress',
  'user_stop',
  'interrupted',
  'fatal_error',
] as const;

/** Why a run ended: a closed union, the same names in logs, JSON, database and docs. */
export type StopReason = (typeof STOP_REASONS)[number];

/** Agent name of runs driven by Claude Code's Stop hook (`ringmaster loop start`): no owner process between hook calls. */
export const HOOK_AGENT = 'claude-hook';

/** Outcome of one iteration in the outcome matrix (success, failure, complete). `waiting` = usage/rate limit, not a failure. */
export type IterationOutcome = 'success' | 'failure' | 'complete' | 'waiting' | 'interrupted';

/**
 * What went wrong in an iteration, as far as the runner or the agent adapter can tell.
 * `none` for a clean run. The kinds after `exit_nonzero` come from the agent adapters' classifiers.
 */
export const ERROR_KINDS = [
  'none',
  'exit_nonzero',
  'failure_signal',
  'idle_timeout',
  'iteration_timeout',
  'max_runtime',
  /** The run's cost budget was spent while the agent worked: it was stopped. */
  'max_cost',
  /** The store's shared budget (`ringmaster budget`) was reached while the agent worked: it was stopped; the run waits. */
  'budget',
  'spawn_failed',
  'interrupted',
  'missing_binary',
  'auth',
  'usage_limit',
  'rate_limit',
  'overloaded',
  'agent_error',
  /** A claimed completion that a check rejected: a task's (tests, validation script) or the run's verify command. */
  'verify_failed',
  /** Ringmaster could not write what the iteration produced (its log: disk full, read-only...): the run ends. */
  'write_failed',
] as const;

/** What went wrong in an iteration (see ERROR_KINDS). */
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** Token counts of one iteration (or a run). */
export interface Usage {
  tokensIn: number;
  tokensOut: number;
  cacheRead: number;
  cacheWrite: number;
}

/** The zero usage value. */
export const ZERO_USAGE: Usage = Object.freeze({ tokensIn: 0, tokensOut: 0, cacheRead: 0, cacheWrite: 0 });

/** Adds two usage values. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    tokensIn: a.tokensIn + b.tokensIn,
    tokensOut: a.tokensOut + b.tokensOut,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  };
}

/** Everything the runner learned from one agent process. Failures are values, not exceptions. */
export interface IterationResult {
  /** Exit code of the agent, null when it was killed by a signal or never started. */
  exitCode: number | null;
  /** Signal that ended the agent, if any (e.g. SIGKILL after a timeout). */
  exitSignal: string | null;
  /** A success signal was found in the agent's own output. */
  successSignal: boolean;
  /** The failure signal was found in the agent's own output. */
  failureSignal: boolean;
  durationMs: number;
  /** Token usage when the agent reported it, null when unknown. */
  usage: Usage | null;
  /** Cost in USD of this iteration alone; null when unknown (never silently 0). */
  costUsd: number | null;
  /** Agent session id when the CLI reported one (for resume / fresh_context: false). */
  sessionId: string | null;
  /** Model reported by the agent, if any. */
  model: string | null;
  errorKind: ErrorKind;
  errorMessage: string | null;
  /** For usage/rate limits: epoch ms when the limit resets, when the agent said so. */
  resetAtMs: number | null;
  /** With an error: the agent's last output lines (at most 10, each cut at 300 characters), for the error record. */
  lastOutput?: string[];
}

/** Limits and pacing of a run, resolved from configuration. Durations in ms; null = no limit. */
export interface Limits {
  maxIterations: number | null;
  maxRuntimeMs: number | null;
  maxCostUsd: number | null;
  failureThreshold: number;
  cooldownMs: number;
  /** First backoff delay after a failure; doubles per consecutive failure. */
  backoffBaseMs: number;
  /** Cap of the exponential backoff. */
  backoffMaxMs: number;
  /** Overloaded answers (HTTP 5xx, 529) retried in a row before the next one is a failure; absent = 10. */
  overloadRetries?: number;
}

/** The counters a decision needs. Iterations are counted from 0 (completed ones); display is 1-based. */
export interface LoopState {
  /** Number of iterations finished so far in this run (including interrupted ones). */
  iteration: number;
  /** Iterations that ended in a usage/rate limit or overload: they do not use up max_iterations. */
  waitedIterations: number;
  consecutiveFailures: number;
  /** Consecutive usage/rate-limit or overload answers without a reset time (drives their backoff). */
  consecutiveWaits: number;
  /** Runtime already used by the run before the current process started (resume), ms. */
  priorRuntimeMs: number;
  /** Epoch ms when the current process started driving the run. */
  startedAtMs: number;
  totalCostUsd: number;
  /** True when at least one iteration's cost was unknown. */
  costUnknown: boolean;
  totalUsage: Usage;
}

/** What the runner does next. */
export type Decision =
  | { kind: 'continue'; delayMs: number }
  | { kind: 'wait'; untilMs: number; reason: 'usage_limit' | 'rate_limit' | 'overloaded' }
  | { kind: 'stop'; reason: StopReason; status: RunStatus };
