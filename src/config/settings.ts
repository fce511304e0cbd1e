// Every scalar configuration key: its type, default, flag and how to read it from YAML, env or a flag.
import { parseDuration } from '../core/duration.js';
import { DEFAULT_FAILURE_SIGNAL, DEFAULT_SUCCESS_SIGNALS } from '../core/signals.js';
import { redactUrl } from '../core/url.js';
import { splitCommandLine } from '../agents/command.js';

/** A parsed value, or the problem with the raw one. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** One configuration key. `parse` gets a YAML value, or a string when it came from env or a flag. */
export interface SettingDef<T> {
  key: string;
  default: T;
  /** Long flag of `ringmaster run` that sets it, if any. */
  flag?: string;
  description: string;
  parse(raw: unknown): Parsed<T>;
  format(value: T): string;
}

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = <T>(problem: string): Parsed<T> => ({ ok: false, problem });

function integer(min: number): (raw: unknown) => Parsed<number> {
  return (raw) => {
    const n = typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw;
    if (typeof n !== 'number' || !Number.isInteger(n)) return bad(`expected a whole number, got ${JSON.stringify(raw)}`);
    if (n < min) return bad(`must be at least ${min}, got ${n}`);
    return ok(n);
  };
}

function isNone(raw: unknown): boolean {
  return raw === null || (typeof raw === 'string' && ['none', 'off', 'unlimited'].includes(raw.trim().toLowerCase()));
}

function duration(nullable: boolean): (raw: unknown) => Parsed<number | null> {
  return (raw) => {
    if (nullable && isNone(raw)) return ok(null);
    const ms = typeof raw === 'number' ? Math.round(raw * 1000) : typeof raw === 'string' ? parseDuration(raw) : null;
    if (ms === null || ms < 0 || !Number.isFinite(ms)) {
      return bad(`expected a duration like 90s, 5m or 4h${nullable ? " (or 'none')" : ''}, got ${JSON.stringify(raw)}`);
    }
    if (nullable && ms === 0) return ok(null);
    return ok(ms);
  };
}

function money(raw: unknown): Parsed<number | null> {
  if (isNone(raw)) return ok(null);
  const text = typeof raw === 'string' ? raw.trim().replace(/^\$/, '') : raw;
  const n = typeof text === 'string' && /^\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) return bad(`expected an amount in USD like 20 or 7.50, got ${JSON.stringify(raw)}`);
  return ok(n);
}

function text(raw: unknown): Parsed<string> {
  if (typeof raw !== 'string' || raw.trim() === '') return bad(`expected a non-empty string, got ${JSON.stringify(raw)}`);
  return ok(raw);
}

function postgresUrl(raw: unknown): Parsed<string | null> {
  if (raw === null || raw === '') return ok(null);
  if (typeof raw !== 'string' || !/^postgres(ql)?:\/\/./.test(raw.trim())) return bad('expected a PostgreSQL URL (postgres://user:password@host:5432/database)');
  return ok(raw.trim());
}

function nullableText(raw: unknown): Parsed<string | null> {
  return raw === null || raw === '' ? ok(null) : text(raw);
}

function stringList(splitter: (s: string) => string[]): (raw: unknown) => Parsed<string[]> {
  return (raw) => {
    if (typeof raw === 'string') {
      try {
        return ok(splitter(raw));
      } catch (e) {
        return bad((e as Error).message);
      }
    }
    if (!Array.isArray(raw) || !raw.every((x) => typeof x === 'string')) return bad(`expected a list of strings, got ${JSON.stringify(raw)}`);
    return ok(raw);
  };
}

function nullableArgv(raw: unknown): Parsed<string[] | null> {
  if (raw === null) return ok(null);
  const parsed = stringList(splitCommandLine)(raw);
  if (parsed.ok && parsed.value.length === 0) return bad('expected a command (an argv list like ["my-agent", "--flag"])');
  return parsed;
}

function boolean(raw: unknown): Parsed<boolean> {
  if (typeof raw === 'boolean') return ok(raw);
  if (typeof raw === 'string' && ['true', '1', 'yes'].includes(raw.toLowerCase())) return ok(true);
  if (typeof raw === 'string' && ['false', '0', 'no'].includes(raw.toLowerCase())) return ok(false);
  return bad(`expected true or false, got ${JSON.stringify(raw)}`);
}

function oneOf<T extends string>(values: readonly T[]): (raw: unknown) => Parsed<T> {
  return (raw) => (typeof raw === 'string' && (values as readonly string[]).includes(raw) ? ok(raw as T) : bad(`expected one of ${values.join(', ')}, got ${JSON.stringify(raw)}`));
}

const fmtDuration = (v: number | null): string => (v === null ? 'none' : `${v / 1000}s`.replace(/\.0+s$/, 's'));
const fmtList = (v: readonly string[] | null): string => (v === null ? 'none' : JSON.stringify(v));
const commaList = (s: string): string[] => s.split(',').map((x) => x.trim()).filter((x) => x !== '');

/** Erases a setting's value type so settings of different types share one list. */
function def<T>(d: SettingDef<T>): SettingDef<unknown> {
  return d;
}

/** Every scalar setting, in the order `config show` prints them. */
export const SETTINGS: readonly SettingDef<unknown>[] = [
  def({ key: 'loop.default_max_iterations', default: 5, description: 'iterations when neither --max-iterations, --unlimited nor the procedure says', parse: integer(1), format: String }),
  def({ key: 'loop.failure_threshold', default: 3, flag: '--failure-threshold', description: 'consecutive failed iterations before the run aborts', parse: integer(1), format: String }),
  def({ key: 'loop.max_runtime', default: null, flag: '--max-runtime', description: 'wall-clock budget of the whole run', parse: duration(true), format: fmtDuration }),
  def({ key: 'loop.max_cost', default: null, flag: '--max-cost', description: 'cost budget of the whole run in USD', parse: money, format: (v: number | null) => (v === null ? 'none' : `$${v}`) }),
  def({ key: 'loop.cooldown', default: 0, flag: '--cooldown', description: 'pause between iterations', parse: duration(false), format: fmtDuration }),
  def({ key: 'loop.backoff', default: 1000, description: 'first delay after a failed iteration; doubles per consecutive failure', parse: duration(false), format: fmtDuration }),
  def({ key: 'loop.backoff_max', default: 60_000, description: 'cap of the failure backoff', parse: duration(false), format: fmtDuration }),
  def({ key: 'loop.idle_timeout', default: 1_800_000, flag: '--idle-timeout', description: 'kill an iteration with no output for this long', parse: duration(true), format: fmtDuration }),
  def({ key: 'loop.iteration_timeout', default: null, flag: '--iteration-timeout', description: 'kill an iteration running longer than this', parse: duration(true), format: fmtDuration }),
  def({ key: 'loop.kill_grace', default: 3000, description: 'time between SIGTERM and SIGKILL when stopping an agent', parse: duration(false), format: fmtDuration }),
  def({ key: 'loop.checkpoint_interval', default: 5, flag: '--checkpoint-interval', description: 'git checkpoint every N iterations (0 = off)', parse: integer(0), format: String }),
  def({ key: 'loop.completion_signals', default: [...DEFAULT_SUCCESS_SIGNALS], description: 'texts that end the run with success', parse: stringList(commaList), format: fmtList }),
  def({ key: 'loop.failure_signal', default: DEFAULT_FAILURE_SIGNAL, description: 'text that marks an iteration as failed', parse: text, format: String }),
  def({ key: 'loop.prompt_file', default: 'PROMPT.md', flag: '--prompt-file', description: 'prompt file when no --prompt or --procedure is given', parse: text, format: String }),
  def({ key: 'loop.fresh_context', default: true, description: 'fresh agent session every iteration (false resumes the previous session)', parse: boolean, format: String }),
  def({ key: 'tasks.file', default: null, description: "task file of 'tasks run' when none is named (default: the first of tasks.jsonl, prd.json, TODO.md)", parse: nullableText, format: (v: string | null) => v ?? 'first of tasks.jsonl, prd.json, TODO.md' }),
  def({ key: 'tasks.command', default: null, description: 'a program that prints the task list as JSON (instead of a task file)', parse: nullableArgv, format: fmtList }),
  def({ key: 'tasks.status_command', default: null, description: 'a program told each status change of a command source: <argv> <task id> <status>', parse: nullableArgv, format: fmtList }),
  def({ key: 'tasks.command_timeout', default: 60_000, description: 'time limit of one run of tasks.command or tasks.status_command', parse: duration(false), format: fmtDuration }),
  def({ key: 'tasks.prompt_template', default: null, description: 'file with the task prompt template (default: the built-in one)', parse: nullableText, format: (v: string | null) => v ?? 'built-in' }),
  def({ key: 'tasks.max_iterations_per_task', default: 10, description: 'iterations one task may use before it is blocked', parse: integer(1), format: String }),
  def({ key: 'tasks.max_runtime_per_task', default: 1_800_000, description: 'time one task may use before it is blocked', parse: duration(true), format: fmtDuration }),
  def({ key: 'tasks.max_cost_per_task', default: 5, description: 'cost in USD one task may use before it is blocked', parse: money, format: (v: number | null) => (v === null ? 'none' : `$${v}`) }),
  def({ key: 'tasks.max_tasks', default: 50, description: 'tasks one run may start', parse: integer(1), format: String }),
  def({ key: 'tasks.max_runtime', default: 14_400_000, description: 'wall-clock budget of a task run (unless loop.max_runtime is set)', parse: duration(true), format: fmtDuration }),
  def({ key: 'tasks.max_cost', default: 50, description: 'cost budget of a task run in USD (unless loop.max_cost is set)', parse: money, format: (v: number | null) => (v === null ? 'none' : `$${v}`) }),
  def({ key: 'tasks.on_failure', default: 'continue', description: "after a task is blocked: 'continue' with the next task or 'stop' the run", parse: oneOf(['continue', 'stop'] as const), format: String }),
  def({ key: 'tasks.parallelism', default: 1, description: 'independent tasks at once, each in its own git worktree (not implemented yet: above 1 is a warning)', parse: integer(1), format: String }),
  def({ key: 'tasks.rollback_failed_iterations', default: false, description: "discard a failed iteration's file changes before the next iteration", parse: boolean, format: String }),
  def({ key: 'tasks.check_timeout', default: 600_000, description: 'time limit of a test command or validation script', parse: duration(false), format: fmtDuration }),
  def({ key: 'tasks.hook_timeout', default: 10_000, description: 'time limit of one hook command', parse: duration(false), format: fmtDuration }),
  def({ key: 'agent.name', default: 'claude', flag: '--agent', description: 'agent CLI to run', parse: text, format: String }),
  def({ key: 'agent.command', default: null, flag: '--agent-command', description: 'argv of the command agent', parse: nullableArgv, format: fmtList }),
  def({ key: 'agent.model', default: null, flag: '--model', description: 'model passed to the agent CLI', parse: nullableText, format: (v: string | null) => v ?? 'agent default' }),
  def({ key: 'agent.args', default: [], description: 'extra arguments appended to the agent command line', parse: stringList(splitCommandLine), format: fmtList }),
  def({ key: 'agent.fallback', default: [], description: 'agents to switch to, in order, when the current one hits a usage limit', parse: stringList(commaList), format: fmtList }),
  def({
    key: 'database.url',
    default: null,
    description: 'PostgreSQL store shared by many machines (postgres://user:password@host:5432/db); unset: SQLite in the data directory',
    parse: postgresUrl,
    format: (v: string | null) => (v === null ? 'none (SQLite in the data directory)' : redactUrl(v)),
  }),
  def({ key: 'agent.permission_mode', default: 'bypass', description: "'bypass' lets the agent act without asking (unattended loops); 'default' keeps the CLI's prompts", parse: oneOf(['bypass', 'default'] as const), format: String }),
  def({ key: 'manager.max_concurrent', default: 5, description: "runs 'ringmaster serve' drives at once; more are queued (pending), first in first out", parse: integer(1), format: String }),
  def({ key: 'manager.iteration_threads', default: 2, description: "worker threads that run the agents of 'ringmaster serve' (0: its main thread)", parse: integer(0), format: String }),
  def({ key: 'manager.resume_on_start', default: true, description: "'ringmaster serve' resumes the runs it was driving when it stopped or died; false marks them stopped (interrupted) to resume by hand", parse: boolean, format: String }),
  def({ key: 'manager.defaults.max_iterations', default: 100, description: "iteration limit of runs created through the server when neither the request nor the config sets one (seed 000)", parse: integer(1), format: String }),
  def({ key: 'manager.defaults.max_runtime', default: 4 * 3_600_000, description: 'max runtime of server-created runs unless set (seed 000: 4h)', parse: duration(true), format: fmtDuration }),
  def({ key: 'manager.defaults.max_cost', default: 300, description: 'cost budget of server-created runs unless set (seed 000: $300)', parse: money, format: (v: number | null) => (v === null ? 'none' : `$${v}`) }),
  def({ key: 'manager.defaults.checkpoint_interval', default: 5, description: 'checkpoint interval of server-created runs unless set', parse: integer(0), format: String }),
  def({ key: 'manager.defaults.cooldown', default: 5000, description: 'cooldown of server-created runs unless set (seed 000: 5s)', parse: duration(false), format: fmtDuration }),
  def({ key: 'manager.defaults.failure_threshold', default: 5, description: "circuit breaker of server-created runs unless set (seed 000's circuit_breaker_threshold: 5)", parse: integer(1), format: String }),
  def({ key: 'server.host', default: '127.0.0.1', description: "address 'ringmaster serve' binds; anything but loopback requires a token", parse: text, format: String }),
  def({ key: 'server.port', default: 7420, description: "port of 'ringmaster serve'", parse: integer(0), format: String }),
];

/** The run settings that manager.defaults.* replace (when only their built-in default applies) for server-created runs. */
export const MANAGER_DEFAULTS: ReadonlyArray<{ key: string; from: string }> = [
  { key: 'loop.default_max_iterations', from: 'manager.defaults.max_iterations' },
  { key: 'loop.max_runtime', from: 'manager.defaults.max_runtime' },
  { key: 'loop.max_cost', from: 'manager.defaults.max_cost' },
  { key: 'loop.checkpoint_interval', from: 'manager.defaults.checkpoint_interval' },
  { key: 'loop.cooldown', from: 'manager.defaults.cooldown' },
  { key: 'loop.failure_threshold', from: 'manager.defaults.failure_threshold' },
];

/** The environment variable for a key: RINGMASTER_ + the key upper-cased with dots as underscores. */
export function envName(key: string): string {
  return `RINGMASTER_${key.replace(/\./g, '_').toUpperCase()}`;
}
