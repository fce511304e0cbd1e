// Reads configuration layers (global file, workspace file, env) and merges them with provenance.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { priceOverridesSchema, type PriceTable } from '../agents/pricing.js';
import { SETTINGS, envName } from './settings.js';
import { hooksSectionSchema, type HookCommands } from './hooks.js';

/** Where a value came from, for `config show` and error messages. */
export type Source = string;

/** A value with its source. */
export interface Sourced<T> {
  value: T;
  source: Source;
}

/** A procedure from config: phase file paths (absolute after loading) and its own iteration default. */
export interface ProcedureDef {
  observe: string;
  orient: string;
  decide: string;
  act: string;
  defaultMaxIterations: number | null;
  source: Source;
}

/** All layers merged: scalar settings by key, procedures by name, price overrides, task loop hooks. */
export interface LoadedConfig {
  values: Map<string, Sourced<unknown>>;
  procedures: Map<string, ProcedureDef>;
  prices: PriceTable;
  hooks: HookCommands;
  files: string[];
}

const procedureSchema = z.strictObject({
  observe: z.string().min(1),
  orient: z.string().min(1),
  decide: z.string().min(1),
  act: z.string().min(1),
  default_max_iterations: z.number().int().min(1).optional(),
});

/** Path of the global config file: $XDG_CONFIG_HOME/ringmaster/config.yml, ~/.config when unset. */
export function globalConfigPath(env: Readonly<Record<string, string | undefined>>): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(env.HOME ?? homedir(), '.config');
  return join(base, 'ringmaster', 'config.yml');
}

/** Path of the workspace config file if one exists (ringmaster.yml, or ringmaster.yaml). */
export function workspaceConfigPath(cwd: string): string | null {
  for (const name of ['ringmaster.yml', 'ringmaster.yaml']) {
    const p = join(cwd, name);
    if (existsSync(p)) return p;
  }
  return null;
}

const TOP_KEYS = new Set(['loop', 'agent', 'tasks', 'manager', 'server', 'database', 'procedures', 'prices', 'hooks']);
const SETTING_KEYS = new Map(SETTINGS.map((s) => [s.key, s]));

function readYamlFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(file, '(file)', `cannot read: ${(e as Error).message}`);
  }
  const doc = parseDocument(text);
  const first = doc.errors[0];
  if (first) {
    const line = first.linePos?.[0]?.line;
    throw new ConfigError(file, line === undefined ? '(yaml)' : `line ${line}`, `invalid YAML: ${first.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  const data: unknown = doc.toJS();
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) throw new ConfigError(file, '(top level)', `expected a mapping of sections (${[...TOP_KEYS].join(', ')})`);
  return data as Record<string, unknown>;
}

function applyFile(file: string, into: LoadedConfig): void {
  const data = readYamlFile(file);
  for (const [section, body] of Object.entries(data)) {
    if (!TOP_KEYS.has(section)) throw new ConfigError(file, section, `unknown section (expected one of: ${[...TOP_KEYS].join(', ')})`);
    if (body === null) continue;
    if (typeof body !== 'object' || Array.isArray(body)) throw new ConfigError(file, section, 'expected a mapping');
    if (section === 'procedures') {
      for (const [name, raw] of Object.entries(body as Record<string, unknown>)) {
        const parsed = procedureSchema.safeParse(raw);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const path = issue?.path.length ? `.${issue.path.join('.')}` : '';
          throw new ConfigError(file, `procedures.${name}${path}`, issue?.message ?? 'invalid procedure');
        }
        const base = dirname(file);
        const abs = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
        into.procedures.set(name, {
          observe: abs(parsed.data.observe),
          orient: abs(parsed.data.orient),
          decide: abs(parsed.data.decide),
          act: abs(parsed.data.act),
          defaultMaxIterations: parsed.data.default_max_iterations ?? null,
          source: file,
        });
      }
      continue;
    }
    if (section === 'hooks') {
      const parsed = hooksSectionSchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const key = issue?.code === 'unrecognized_keys' ? `hooks.${issue.keys[0] ?? ''}` : `hooks.${issue?.path.join('.') ?? ''}`;
        throw new ConfigError(file, key, issue?.code === 'unrecognized_keys' ? 'unknown hook (expected one of: task_start, iteration_start, action, iteration_end, task_end, anomaly)' : (issue?.message ?? 'invalid hook'));
      }
      for (const [event, command] of Object.entries(parsed.data)) {
        if (command !== undefined) into.hooks[event as keyof HookCommands] = { command, source: file };
      }
      continue;
    }
    if (section === 'prices') {
      const parsed = priceOverridesSchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new ConfigError(file, `prices.${issue?.path.join('.') ?? ''}`, issue?.message ?? 'invalid price');
      }
      for (const [model, price] of Object.entries(parsed.data)) {
        into.prices[model] = { cache_write: null, cache_read: null, ...price };
      }
      continue;
    }
    applyMapping(file, section, body as Record<string, unknown>, into);
  }
}

/** Applies `prefix.name` keys of a mapping; a nested mapping (e.g. manager.defaults) is a group of keys. */
function applyMapping(file: string, prefix: string, body: Record<string, unknown>, into: LoadedConfig): void {
  for (const [name, raw] of Object.entries(body)) {
    const key = `${prefix}.${name}`;
    const setting = SETTING_KEYS.get(key);
    if (!setting) {
      const isGroup = SETTINGS.some((s) => s.key.startsWith(`${key}.`));
      if (isGroup && raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
        applyMapping(file, key, raw as Record<string, unknown>, into);
        continue;
      }
      throw new ConfigError(file, key, isGroup ? 'expected a mapping' : 'unknown key (see README.md#configuration for the list)');
    }
    const parsed = setting.parse(raw);
    if (!parsed.ok) throw new ConfigError(file, key, parsed.problem);
    into.values.set(key, { value: parsed.value, source: file });
  }
}

function applyEnv(env: Readonly<Record<string, string | undefined>>, into: LoadedConfig): void {
  for (const setting of SETTINGS) {
    const name = envName(setting.key);
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const parsed = setting.parse(raw);
    if (!parsed.ok) throw new ConfigError(`environment variable ${name}`, setting.key, parsed.problem);
    into.values.set(setting.key, { value: parsed.value, source: `env ${name}` });
  }
}

/** Loads built-in defaults < global file < workspace file < env. Flags are applied by the caller. */
export function loadConfig(cwd: string, env: Readonly<Record<string, string | undefined>>): LoadedConfig {
  const config: LoadedConfig = { values: new Map(), procedures: new Map(), prices: {}, hooks: {}, files: [] };
  for (const setting of SETTINGS) config.values.set(setting.key, { value: setting.default, source: 'built-in' });
  const globalPath = globalConfigPath(env);
  if (existsSync(globalPath)) {
    applyFile(globalPath, config);
    config.files.push(globalPath);
  }
  const workspacePath = workspaceConfigPath(cwd);
  if (workspacePath) {
    applyFile(workspacePath, config);
    config.files.push(workspacePath);
  }
  applyEnv(env, config);
  return config;
}

/** Applies one command-line flag value to a key (highest precedence). */
export function applyFlag(config: LoadedConfig, key: string, flag: string, raw: string): void {
  const setting = SETTING_KEYS.get(key);
  if (!setting) throw new Error(`no setting ${key}`);
  const parsed = setting.parse(raw);
  if (!parsed.ok) throw new ConfigError(`flag ${flag}`, key, parsed.problem);
  config.values.set(key, { value: parsed.value, source: `flag ${flag}` });
}
