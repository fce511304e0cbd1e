// Turns loaded config + run flags into a RunSpec, with the provenance of every resolved value.
import { resolve as resolvePath } from 'node:path';
import { UsageError } from '../core/errors.js';
import type { Limits } from '../core/types.js';
import { builtInProcedures, promptLabel, type PromptSource } from '../prompt/compose.js';
import type { RunSpec } from '../runner/spec.js';
import { applyFlag, loadConfig, type LoadedConfig, type Sourced } from './load.js';
import { MANAGER_DEFAULTS, SETTINGS } from './settings.js';

/** Flags of `ringmaster run` that shape the spec (already parsed from argv as strings/booleans). */
export interface RunFlags {
  prompt?: string;
  promptFile?: string;
  procedure?: string;
  context?: string;
  maxIterations?: string;
  unlimited?: boolean;
  /** Setting flags: config key -> [flag name, raw value]. */
  settings: Array<{ key: string; flag: string; raw: string }>;
}

/** A resolved spec plus where each value came from (for `config show`). */
export interface Resolution {
  spec: RunSpec;
  config: LoadedConfig;
  maxIterations: Sourced<number | null>;
}

function get<T>(config: LoadedConfig, key: string): T {
  const entry = config.values.get(key);
  if (!entry) throw new Error(`missing setting ${key}`);
  return entry.value as T;
}

/** Max iterations per seed 001: flag > --unlimited > procedure default > loop.default_max_iterations > 5. */
export function resolveMaxIterations(flags: RunFlags, config: LoadedConfig, procedureDefault: number | null, procedureName: string | null): Sourced<number | null> {
  if (flags.maxIterations !== undefined) {
    const n = /^\d+$/.test(flags.maxIterations.trim()) ? Number(flags.maxIterations) : NaN;
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--max-iterations: expected a whole number of at least 1, got "${flags.maxIterations}"`);
    return { value: n, source: 'flag --max-iterations' };
  }
  if (flags.unlimited) return { value: null, source: 'flag --unlimited' };
  if (procedureDefault !== null) return { value: procedureDefault, source: `procedure ${procedureName ?? ''} default_max_iterations` };
  const entry = config.values.get('loop.default_max_iterations');
  return { value: entry?.value as number, source: entry?.source ?? 'built-in' };
}

/** Options of resolveRun. */
export interface ResolveOptions {
  /** 'manager': runs created through the server take manager.defaults.* where only a built-in default applies. */
  defaults?: 'cli' | 'manager';
}

/** Resolves the whole run spec for a workspace. */
export function resolveRun(workspace: string, env: Readonly<Record<string, string | undefined>>, flags: RunFlags, options: ResolveOptions = {}): Resolution {
  const config = loadConfig(workspace, env);
  if (options.defaults === 'manager') {
    for (const { key, from } of MANAGER_DEFAULTS) {
      const current = config.values.get(key);
      const replacement = config.values.get(from);
      if (current?.source === 'built-in' && replacement) config.values.set(key, { value: replacement.value, source: `${from} (${replacement.source})` });
    }
  }
  for (const { key, flag, raw } of flags.settings) applyFlag(config, key, flag, raw);
  // --agent-command alone means "run this command": it implies --agent command.
  const commandSource = config.values.get('agent.command')?.source ?? '';
  if (commandSource.startsWith('flag ') && !(config.values.get('agent.name')?.source ?? '').startsWith('flag ')) {
    config.values.set('agent.name', { value: 'command', source: 'implied by flag --agent-command' });
  }

  const procedures = builtInProcedures();
  for (const [name, def] of config.procedures) procedures.set(name, def);

  const chosen = [flags.prompt !== undefined, flags.procedure !== undefined].filter(Boolean).length;
  if (chosen > 1) throw new UsageError('--prompt and --procedure cannot be combined');
  if (flags.promptFile !== undefined && chosen > 0) throw new UsageError('--prompt-file cannot be combined with --prompt or --procedure');

  let prompt: PromptSource;
  let procedureDefault: number | null = null;
  if (flags.procedure !== undefined) {
    const procedure = procedures.get(flags.procedure);
    if (!procedure) throw new UsageError(`unknown procedure '${flags.procedure}' (known: ${[...procedures.keys()].sort().join(', ')})`);
    prompt = { kind: 'procedure', name: flags.procedure, procedure };
    procedureDefault = procedure.defaultMaxIterations;
  } else if (flags.prompt !== undefined) {
    prompt = { kind: 'text', text: flags.prompt };
  } else {
    prompt = { kind: 'file', path: resolvePath(workspace, flags.promptFile ?? get<string>(config, 'loop.prompt_file')) };
  }

  const maxIterations = resolveMaxIterations(flags, config, procedureDefault, flags.procedure ?? null);
  const limits: Limits = {
    maxIterations: maxIterations.value,
    maxRuntimeMs: get(config, 'loop.max_runtime'),
    maxCostUsd: get(config, 'loop.max_cost'),
    failureThreshold: get(config, 'loop.failure_threshold'),
    cooldownMs: get(config, 'loop.cooldown'),
    backoffBaseMs: get(config, 'loop.backoff'),
    backoffMaxMs: get(config, 'loop.backoff_max'),
  };
  const spec: RunSpec = {
    workspace,
    prompt,
    context: flags.context ?? null,
    label: prompt.kind === 'file' ? promptLabel({ kind: 'file', path: flags.promptFile ?? get<string>(config, 'loop.prompt_file') }) : promptLabel(prompt),
    limits,
    idleTimeoutMs: get(config, 'loop.idle_timeout'),
    iterationTimeoutMs: get(config, 'loop.iteration_timeout'),
    killGraceMs: get(config, 'loop.kill_grace'),
    checkpointInterval: get(config, 'loop.checkpoint_interval'),
    successSignals: get(config, 'loop.completion_signals'),
    failureSignal: get(config, 'loop.failure_signal'),
    freshContext: get(config, 'loop.fresh_context'),
    agent: {
      name: get(config, 'agent.name'),
      command: get(config, 'agent.command'),
      model: get(config, 'agent.model'),
      args: get(config, 'agent.args'),
      fallback: get(config, 'agent.fallback'),
      permissionMode: get(config, 'agent.permission_mode'),
    },
    prices: config.prices,
  };
  return { spec, config, maxIterations };
}

/** The flag -> config key table of `ringmaster run` (every setting that has a flag). */
export const SETTING_FLAGS: ReadonlyArray<{ key: string; flag: string }> = SETTINGS.filter((s) => s.flag !== undefined).map((s) => ({
  key: s.key,
  flag: s.flag ?? '',
}));
