// Turns loaded config + run flags into a RunSpec, with the provenance of every resolved value.
import { resolve as resolvePath } from 'node:path';
import { agentNames, getAdapter } from '../agents/registry.js';
import { closest } from '../core/closest.js';
import { ConfigError, UsageError, UserError } from '../core/errors.js';
import type { Limits } from '../core/types.js';
import { builtInProcedures, promptLabel, type PromptSource } from '../prompt/compose.js';
import type { NotifySettings, RunSpec } from './run-spec.js';
import { hostname } from 'node:os';
import { loadConfig, type FlagSetting, type LoadedConfig, type Sourced } from '../config/load.js';
import { SETTING_INFO, SETTINGS, type Settings, type SettingKey } from '../config/settings.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import { assertSandboxUsable } from '../sandbox/probe.js';

/** Flags of `ringmaster run` that shape the spec (already parsed from argv as strings/booleans). */
export interface RunFlags {
  prompt?: string;
  promptFile?: string;
  procedure?: string;
  context?: string;
  maxIterations?: string;
  unlimited?: boolean;
  /** Setting flags: config key, flag name and raw value. */
  settings: FlagSetting[];
}

/** A resolved spec plus where each value came from (for `config show`). */
export interface Resolution {
  spec: RunSpec;
  config: LoadedConfig;
  maxIterations: Sourced<number | null>;
}

/** Max iterations: flag > --unlimited > procedure default > loop.default_max_iterations > 5. */
export function resolveMaxIterations(flags: RunFlags, config: LoadedConfig, procedureDefault: number | null, procedureName: string | null): Sourced<number | null> {
  if (flags.maxIterations !== undefined) {
    const n = /^\d+$/.test(flags.maxIterations.trim()) ? Number(flags.maxIterations) : NaN;
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--max-iterations: expected a whole number of at least 1, got "${flags.maxIterations}"`);
    return { value: n, source: 'flag --max-iterations' };
  }
  if (flags.unlimited) return { value: null, source: 'flag --unlimited' };
  if (procedureDefault !== null) return { value: procedureDefault, source: `procedure ${procedureName ?? ''} default_max_iterations` };
  return { value: config.settings.loop.default_max_iterations, source: config.sources.get('loop.default_max_iterations') ?? 'built-in' };
}

/** Options of resolveRun. */
export interface ResolveOptions {
  /** 'manager': runs created through the server take manager.defaults.* where only a built-in default applies. */
  defaults?: 'cli' | 'manager';
  /** false: a sandbox this machine cannot enforce is not refused (`config show`, a dry run). */
  check?: boolean;
}

/** The sandbox policy of `sandbox.*`, or null when sandbox.enabled is false. */
export function sandboxPolicy(s: Settings['sandbox']): SandboxPolicy | null {
  if (!s.enabled) return null;
  return { network: s.network, hide: s.hide, allowWrite: s.allow_write, allowHosts: s.allow_hosts, memoryBytes: s.memory, pids: s.pids };
}

/** The run's prompt from --prompt, --procedure or --prompt-file (else loop.prompt_file), and a procedure's default limit. */
function choosePrompt(workspace: string, flags: RunFlags, config: LoadedConfig, promptFile: string): { prompt: PromptSource; procedureDefault: number | null } {
  const chosen = [flags.prompt !== undefined, flags.procedure !== undefined].filter(Boolean).length;
  if (chosen > 1) throw new UsageError('--prompt and --procedure cannot be combined');
  if (flags.promptFile !== undefined && chosen > 0) throw new UsageError('--prompt-file cannot be combined with --prompt or --procedure');
  if (flags.procedure !== undefined) {
    const procedures = builtInProcedures();
    for (const [name, def] of config.procedures) procedures.set(name, def);
    const procedure = procedures.get(flags.procedure);
    if (!procedure) throw new UsageError(`unknown procedure '${flags.procedure}' (known: ${[...procedures.keys()].sort().join(', ')})`);
    return { prompt: { kind: 'procedure', name: flags.procedure, procedure }, procedureDefault: procedure.defaultMaxIterations };
  }
  if (flags.prompt !== undefined) return { prompt: { kind: 'text', text: flags.prompt }, procedureDefault: null };
  return { prompt: { kind: 'file', path: resolvePath(workspace, flags.promptFile ?? promptFile) }, procedureDefault: null };
}

/** Resolves the whole run spec for a workspace. */
export function resolveRun(workspace: string, env: Readonly<Record<string, string | undefined>>, flags: RunFlags, options: ResolveOptions = {}): Resolution {
  const loaded = loadConfig(workspace, env, flags.settings);
  const sources = new Map(loaded.sources);
  const config: LoadedConfig = { ...loaded, sources };
  if (options.defaults === 'manager') applyManagerDefaults(config, sources);
  const { loop, agent } = config.settings;
  // --agent-command alone means "run this command": it implies --agent command.
  let agentName = agent.name;
  if ((sources.get('agent.command') ?? '').startsWith('flag ') && !(sources.get('agent.name') ?? '').startsWith('flag ')) {
    agentName = 'command';
    sources.set('agent.name', 'implied by flag --agent-command');
  }
  config.settings = { ...config.settings, agent: { ...agent, name: agentName } };
  checkAgents(config);

  const { prompt, procedureDefault } = choosePrompt(workspace, flags, config, loop.prompt_file);

  if (loop.no_progress_after > 0 && !loop.track_changes) {
    throw new UsageError(`loop.no_progress_after (${sources.get('loop.no_progress_after') ?? 'config'}) counts the files each iteration changed: it needs loop.track_changes, which is off`);
  }
  const maxIterations = resolveMaxIterations(flags, config, procedureDefault, flags.procedure ?? null);
  const limits: Limits = {
    maxIterations: maxIterations.value,
    maxRuntimeMs: loop.max_runtime,
    maxCostUsd: loop.max_cost,
    failureThreshold: loop.failure_threshold,
    cooldownMs: loop.cooldown,
    backoffBaseMs: loop.backoff,
    backoffMaxMs: loop.backoff_max,
    overloadRetries: loop.overload_retries,
  };
  const spec: RunSpec = {
    workspace,
    prompt,
    context: flags.context ?? null,
    label: prompt.kind === 'file' ? promptLabel({ kind: 'file', path: flags.promptFile ?? loop.prompt_file }) : promptLabel(prompt),
    limits,
    idleTimeoutMs: loop.idle_timeout,
    iterationTimeoutMs: loop.iteration_timeout,
    killGraceMs: loop.kill_grace,
    checkpointInterval: loop.checkpoint_interval,
    successSignals: loop.completion_signals,
    failureSignal: loop.failure_signal,
    freshContext: loop.fresh_context,
    maxLogBytes: loop.max_log_size,
    budgetPollMs: loop.budget_poll,
    trackChanges: loop.track_changes,
    discardFailed: loop.discard_failed || config.settings.tasks.rollback_failed_iterations,
    agent: {
      name: agentName,
      command: agent.command,
      model: agent.model,
      args: agent.args,
      fallback: agent.fallback,
      permissionMode: agent.permission_mode,
      autoInstall: agent.auto_install,
    },
    prices: config.prices,
    notify: notifySettings(config),
    sandbox: sandboxPolicy(config.settings.sandbox),
    verify: loop.verify === null ? null : { command: loop.verify, timeoutMs: loop.verify_timeout, each: loop.verify_each },
    noProgressAfter: loop.no_progress_after,
  };
  if (spec.sandbox && options.check !== false) assertSandboxUsable(spec.sandbox);
  return { spec, config, maxIterations };
}

/** notify.on and notify.command, and the base of links: server.public_url, or the local server's address. */
export function notifySettings(config: LoadedConfig): NotifySettings {
  const { notify, server } = config.settings;
  return { on: notify.on, command: notify.command, publicUrl: server.public_url ?? localServerUrl(server.host, server.port) };
}

/** Warnings for sandbox settings given while the sandbox is off: they would change nothing, silently. */
export function unusedSandboxSettings(config: LoadedConfig): string[] {
  if (config.settings.sandbox.enabled) return [];
  const keys = ['sandbox.network', 'sandbox.hide', 'sandbox.allow_write', 'sandbox.allow_hosts', 'sandbox.memory', 'sandbox.pids'] as const;
  return keys.flatMap((key) => {
    const source = config.sources.get(key);
    return source === undefined || source === 'built-in' ? [] : [`${key} is set (${source}) but the sandbox is off: it applies only with --sandbox (sandbox.enabled)`];
  });
}

/** http://host:port of `ringmaster serve` (a wildcard bind is reached through this machine's name). */
export function localServerUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? hostname() : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** Server-created runs: each loop setting still at its built-in default takes its manager.defaults.* value. */
function applyManagerDefaults(config: LoadedConfig, sources: Map<SettingKey, string>): void {
  const defaults = config.settings.manager.defaults;
  const take = <T>(key: SettingKey, current: T, from: SettingKey, value: T): T => {
    if (sources.get(key) !== 'built-in') return current;
    sources.set(key, `${from} (${sources.get(from) ?? 'built-in'})`);
    return value;
  };
  const loop = config.settings.loop;
  config.settings = {
    ...config.settings,
    loop: {
      ...loop,
      default_max_iterations: take('loop.default_max_iterations', loop.default_max_iterations, 'manager.defaults.max_iterations', defaults.max_iterations),
      max_runtime: take('loop.max_runtime', loop.max_runtime, 'manager.defaults.max_runtime', defaults.max_runtime),
      max_cost: take('loop.max_cost', loop.max_cost, 'manager.defaults.max_cost', defaults.max_cost),
      checkpoint_interval: take('loop.checkpoint_interval', loop.checkpoint_interval, 'manager.defaults.checkpoint_interval', defaults.checkpoint_interval),
      cooldown: take('loop.cooldown', loop.cooldown, 'manager.defaults.cooldown', defaults.cooldown),
      failure_threshold: take('loop.failure_threshold', loop.failure_threshold, 'manager.defaults.failure_threshold', defaults.failure_threshold),
      backoff: take('loop.backoff', loop.backoff, 'manager.defaults.backoff', defaults.backoff),
    },
  };
}

/**
 * Every agent the run may use (agent.name, then agent.fallback) must exist and be buildable now, not at the
 * first usage limit hours later: an unknown name is a configuration error at the key's source.
 */
function checkAgents(config: LoadedConfig): void {
  const { agent } = config.settings;
  const known = agentNames();
  const named: Array<{ key: SettingKey; name: string }> = [
    { key: 'agent.name', name: agent.name },
    ...agent.fallback.map((name) => ({ key: 'agent.fallback' as const, name })),
  ];
  for (const { key, name } of named) {
    const source = config.sources.get(key) ?? 'built-in';
    const file = source.startsWith('env ') ? `environment variable ${source.slice(4)}` : source;
    if (!known.includes(name)) {
      const guess = closest(name, known);
      throw new ConfigError({ file, key }, `unknown agent '${name}'${guess ? ` (did you mean ${guess}?)` : ''} (known: ${known.join(', ')})`);
    }
    try {
      getAdapter({ name, command: agent.command });
    } catch (error) {
      if (error instanceof UserError) throw new ConfigError({ file, key }, error.message);
      throw error;
    }
  }
}

/** The flag -> config key table of `ringmaster run` (every setting that has a flag). */
export const SETTING_FLAGS: ReadonlyArray<{ key: string; flag: string }> = SETTINGS.flatMap((s) => {
  const flag = SETTING_INFO[s.key].flag;
  return flag === undefined ? [] : [{ key: s.key, flag }];
});
