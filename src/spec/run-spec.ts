// The fully resolved description of a run: what the runner needs, nothing read from argv or files later.
import { UserError } from '../core/errors.js';
import { redactArgv, redactDeep, redactorOf, restoreArgv, restoreDeep, type Redactor } from '../core/redact.js';
import type { Limits } from '../core/types.js';
import type { PriceTable } from '../agents/pricing.js';
import type { PromptSource } from '../prompt/compose.js';
import type { NotifyEvent } from '../core/notify-events.js';
import type { SandboxPolicy } from '../sandbox/policy.js';

/** The gate's settings (RunSpec.verify). */
export interface VerifySettings {
  /** The command line as the user wrote it (split without a shell). */
  command: string;
  timeoutMs: number;
  /** Run the check after every iteration, not only when the agent claims completion. */
  each: boolean;
}

/** The agent part of a run spec. */
export interface AgentSettings {
  name: string;
  command: string[] | null;
  model: string | null;
  args: string[];
  /** Agents to switch to, in order, on a usage/rate limit. */
  fallback: string[];
  permissionMode: 'bypass' | 'default';
  /** agent.auto_install: false, true, or the npm package spec to install. Absent in specs stored before it existed (false). */
  autoInstall?: boolean | string;
}

/**
 * What a run's notifications are about and where links point (README.md#notifications). The webhooks are not here:
 * their URLs are secrets, never stored; the process that drives the run sends to its own (user config, environment).
 */
export interface NotifySettings {
  on: NotifyEvent[];
  /** notify.command: a program given each notification as JSON on stdin. */
  command: string[] | null;
  /** Base of the link to the run (server.public_url, or the local server's address). */
  publicUrl: string;
}

/** Everything a run needs, resolved from config, env and flags. Serialisable (stored with the run). */
export interface RunSpec {
  workspace: string;
  prompt: PromptSource;
  /** Extra context (`--context`), a section before the prompt. */
  context: string | null;
  /** Name shown in progress lines: procedure name, prompt file or 'prompt'. */
  label: string;
  limits: Limits;
  idleTimeoutMs: number | null;
  iterationTimeoutMs: number | null;
  killGraceMs: number;
  checkpointInterval: number;
  successSignals: string[];
  failureSignal: string;
  freshContext: boolean;
  /** Largest iteration log in bytes (head and tail kept around a marker); null = no cap. Absent in specs stored before the cap existed (the default cap applies). */
  maxLogBytes?: number | null;
  /** How often a run held back by the shared budget looks at the store again (loop.budget_poll); absent = 10 s. */
  budgetPollMs?: number;
  agent: AgentSettings;
  prices: PriceTable;
  /** Absent in specs stored before notifications existed (notify.on's default, no command). */
  notify?: NotifySettings;
  /** The sandbox every iteration's agent runs in (docs/sandbox.md); null or absent = none. */
  sandbox?: SandboxPolicy | null;
  /** loop.track_changes: files_changed per iteration in a git workspace. Absent in specs stored before it existed (on). */
  trackChanges?: boolean;
  /** loop.discard_failed (or its alias tasks.rollback_failed_iterations). Absent in older specs (off). */
  discardFailed?: boolean;
  /** The verify gate (`--verify`, README "The verify gate"); absent/null = a claimed completion ends the run unchecked. */
  verify?: VerifySettings | null;
  /** loop.no_progress_after: stop `no_progress` after N iterations in a row that changed no file; 0 or absent = off. */
  noProgressAfter?: number;
}

/**
 * The spec as it may be stored (and printed): the values of secret-looking environment variables as
 * `[REDACTED:NAME]` wherever they appear (the agent's argv, a prompt or context given as text...), and the values
 * of options like `--api-key` in the agent's argv as `[REDACTED]`.
 */
export function specForStorage(spec: RunSpec, redact: Redactor): RunSpec {
  if (redact.secrets.length === 0 && !hasSecretOption(spec)) return spec;
  const deep = redactDeep(spec, redact);
  return {
    ...deep,
    agent: {
      ...deep.agent,
      command: spec.agent.command === null ? null : redactArgv(spec.agent.command, redact),
      args: redactArgv(spec.agent.args, redact),
    },
  };
}

function hasSecretOption(spec: RunSpec): boolean {
  const none = redactorOf([]);
  const same = (argv: readonly string[]): boolean => redactArgv(argv, none).every((a, i) => a === argv[i]);
  return !(same(spec.agent.command ?? []) && same(spec.agent.args));
}

/**
 * A stored spec made runnable again: every `[REDACTED:NAME]` is put back from $NAME. A secret that cannot be put
 * back is a UserError naming it (run the agent with the secret in an environment variable).
 */
export function specFromStorage(stored: RunSpec, env: Readonly<Record<string, string | undefined>>): RunSpec {
  const command = stored.agent.command === null ? null : restoreArgv(stored.agent.command, env);
  const args = restoreArgv(stored.agent.args, env);
  const rest = restoreDeep({ ...stored, agent: { ...stored.agent, command: null, args: [] } }, env);
  refuseMissing([...(command?.missing ?? []), ...args.missing, ...rest.missing]);
  return { ...rest.value, agent: { ...rest.value.agent, command: command?.argv ?? null, args: args.argv } };
}

/** A program's metadata as it may be stored (a workflow's message...): secrets of the environment redacted. */
export function metaForStorage(meta: Record<string, unknown>, redact: Redactor): Record<string, unknown> {
  return redactDeep(meta, redact);
}

/** Stored metadata made usable again (`[REDACTED:NAME]` -> $NAME); a UserError naming what cannot be put back. */
export function metaFromStorage(meta: Record<string, unknown>, env: Readonly<Record<string, string | undefined>>): Record<string, unknown> {
  const restored = restoreDeep(meta, env);
  refuseMissing(restored.missing);
  return restored.value;
}

function refuseMissing(names: readonly string[]): void {
  const missing = [...new Set(names)];
  if (missing.length === 0) return;
  throw new UserError(
    `the run was stored without its secrets (${missing.join(', ')}): set ${missing.filter((m) => m !== 'an option value').join(', ') || 'them'} in the environment to resume, or start a new run (pass secrets to agents through environment variables, not options)`,
  );
}
