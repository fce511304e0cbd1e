// Events a run emits, in order: rendered by the CLI (human lines or JSON lines), stored, broadcast.
import type { ErrorKind, IterationOutcome, RunStatus, StopReason } from '../core/types.js';

/** One run event. Field names are snake_case because they are printed as JSON and stored as-is. */
export type RunEvent =
  | { type: 'run_started'; time: number; run_id: string; label: string; max_iterations: number | null; workspace: string; agent: string }
  | { type: 'iteration_started'; time: number; iteration: number; max_iterations: number | null; agent: string; log_path: string }
  | { type: 'agent_output'; time: number; iteration: number; stream: 'stdout' | 'stderr'; text: string }
  | {
      type: 'iteration_completed';
      time: number;
      iteration: number;
      max_iterations: number | null;
      outcome: IterationOutcome;
      duration_ms: number;
      exit_code: number | null;
      exit_signal: string | null;
      consecutive_failures: number;
      failure_threshold: number;
      completion_signal_found: boolean;
      failure_signal_found: boolean;
      error_kind: ErrorKind;
      error_message: string | null;
      tokens_in: number | null;
      tokens_out: number | null;
      cache_read: number | null;
      cache_write: number | null;
      cost_usd: number | null;
      session_id: string | null;
      model: string | null;
      malformed_lines: number;
      agent: string;
    }
  | { type: 'waiting'; time: number; iteration: number; until: number; reason: 'usage_limit' | 'rate_limit' | 'overloaded' }
  | { type: 'agent_switched'; time: number; from: string; to: string; reason: string }
  | { type: 'warning'; time: number; message: string }
  | {
      type: 'run_finished';
      time: number;
      run_id: string;
      status: RunStatus;
      stop_reason: StopReason;
      iterations: number;
      total_ms: number;
      cost_usd: number;
      cost_unknown: boolean;
      tokens_in: number;
      tokens_out: number;
      consecutive_failures: number;
      failure_threshold: number;
      max_iterations: number | null;
      message: string | null;
    };

/** Receives run events. Must not throw; slow consumers slow the run. */
export type RunEventSink = (event: RunEvent) => void;
