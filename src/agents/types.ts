// The adapter seam: every agent CLI turns into argv + env + stdin, and its output into AgentEvents.
import type { ErrorKind, Usage } from '../core/types.js';

/** One typed event parsed from an agent's output stream. Discriminated on `type`. */
export type AgentEvent =
  /** Text the agent itself wrote (assistant text or final result): the only place signals are searched. */
  | { type: 'text'; text: string }
  | { type: 'tool_call'; name: string; input: unknown }
  | { type: 'tool_result'; name: string | null; output: string; isError: boolean }
  /** Token usage. `cumulative` = totals so far for the iteration (replace), otherwise an increment (add). */
  | { type: 'usage'; usage: Usage; model: string | null; cumulative: boolean }
  /** Cost in USD as the CLI reported it. `cumulative` = session total (replace), otherwise an increment. */
  | { type: 'cost'; usd: number; cumulative: boolean }
  | { type: 'session'; id: string; model: string | null }
  /** A classified error the agent reported (auth, overload, ...). */
  | { type: 'error'; kind: ErrorKind; message: string; status: number | null }
  /** A usage or rate limit; `resetAtMs` when the agent said when it resets. */
  | { type: 'limit'; kind: 'usage_limit' | 'rate_limit'; resetAtMs: number | null; message: string }
  /** The final result line of a headless run, when the CLI prints one. */
  | { type: 'result'; isError: boolean; text: string | null }
  /** A line that could not be parsed: counted and logged, never fatal. */
  | { type: 'malformed'; line: string; reason: string };

/** Parses one agent's stdout into events. Stateful per iteration; created fresh for each. */
export interface StreamParser {
  /** Feeds one complete line (without its newline) for line-based formats. */
  line(line: string): AgentEvent[];
  /** Called once when the stream ends. */
  end(): AgentEvent[];
}

/** Options every adapter understands when building an invocation. */
export interface InvocationOptions {
  prompt: string;
  cwd: string;
  model: string | null;
  /** Extra argv appended as-is (from config `agent.args`). */
  extraArgs: readonly string[];
  /** Permission mode / auto-approve; adapters map this to their own flags. */
  permissionMode: 'bypass' | 'default';
  /** Session to resume (fresh_context: false), or null for a fresh session. */
  resumeSessionId: string | null;
  /** The environment the child inherits (adapters add to it, never print it). */
  env: Readonly<Record<string, string | undefined>>;
}

/** How to start the agent process. The prompt goes on stdin unless `stdin` is null. */
export interface Invocation {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  /** Text written to stdin before it is closed; null writes nothing (stdin is still closed). */
  stdin: string | null;
}

/** One agent CLI. `format: 'text'` adapters stream raw stdout as assistant text (no line parsing). */
export interface AgentAdapter {
  readonly name: string;
  /** Human label for messages. */
  readonly displayName: string;
  readonly format: 'text' | 'jsonl';
  /** Can resume a previous session (a workflow's fresh_context: false). */
  readonly supportsResume: boolean;
  buildInvocation(options: InvocationOptions): Invocation;
  /**
   * A fresh parser for one iteration's stdout (only used for `jsonl` adapters), given the same options the
   * iteration's invocation was built from (e.g. the model, or where the CLI keeps its session files).
   */
  createParser(options: InvocationOptions): StreamParser;
  /**
   * Classifies a finished process that did not report a classified error itself,
   * from its exit code and the tail of stderr/stdout. Returns null to keep the runner's default.
   */
  classifyExit(exitCode: number | null, outputTail: string): { kind: ErrorKind; message: string } | null;
}
