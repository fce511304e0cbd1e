// Reads configuration layers (global file, workspace file, env, flags), validates each value with its key's
// schema where it was written (file and line, variable or flag), and merges them with provenance.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type * as Yaml from 'yaml';
import type { Document } from 'yaml';
import { yamlLib } from './yaml-lib.js';
import { yamlData } from './yaml-data.js';
import type { z } from 'zod';
import { closest } from '../core/closest.js';
import { ConfigError, type ConfigPlace } from '../core/errors.js';
import type { PriceTable } from '../agents/pricing.js';
import { HOOK_EVENTS, type HookCommands } from './hooks.js';
import { DEFAULTS } from './defaults.js';
import { envName, OTHER_ENV_VARIABLES } from './env-names.js';
import {
  configFileSchema,
  FILE_SECTIONS,
  isGroupKey,
  isSectionName,
  namesUnder,
  SETTINGS,
  type SettingEntry,
  type SettingKey,
  type Settings,
} from './settings.js';

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

/** All layers merged: typed settings, where each came from, procedures by name, price overrides. */
export interface LoadedConfig {
  settings: Settings;
  /** Source of every setting: a file path, `env NAME`, `flag --name` or `built-in`. */
  sources: ReadonlyMap<SettingKey, Source>;
  procedures: Map<string, ProcedureDef>;
  prices: PriceTable;
  hooks: HookCommands;
  files: string[];
}

/** A setting given on the command line: its key, the flag's name and the raw text. */
export interface FlagSetting {
  key: string;
  flag: string;
  raw: string;
}

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

const BY_KEY = new Map<string, SettingEntry>(SETTINGS.map((s) => [s.key, s]));
const BY_ENV = new Map<string, SettingEntry>(SETTINGS.map((s) => [envName(s.key), s]));

/** Settings that hold secrets: refused in a workspace's ringmaster.yml, which is committed with the code. */
const SECRET_KEYS: ReadonlySet<SettingKey> = new Set(['notify.webhooks']);
const SECRET_IN_WORKSPACE =
  'webhook URLs are secrets and ringmaster.yml is committed with the code: set notify.webhooks in your user config ($XDG_CONFIG_HOME/ringmaster/config.yml) or in RINGMASTER_NOTIFY_WEBHOOKS (format=URL entries separated by spaces)';

/** Sets a parsed value at a setting's path (a copy of DEFAULTS has every section and group). */
function setValue(settings: Settings, entry: SettingEntry, value: unknown): void {
  let node: unknown = settings;
  for (const part of entry.path.slice(0, -1)) node = isRecord(node) ? node[part] : undefined;
  if (!isRecord(node)) throw new Error(`no group of settings at ${entry.key}`);
  node[entry.name] = value;
}

interface Loading {
  /** DEFAULTS, overridden layer by layer with each value parsed by its key's schema where it was written. */
  settings: Settings;
  sources: Map<SettingKey, Source>;
  procedures: Map<string, ProcedureDef>;
  prices: PriceTable;
  hooks: HookCommands;
  files: string[];
}

/** Parses one raw value with its key's schema and sets it; a problem becomes a ConfigError at `place`. */
function apply(entry: SettingEntry, raw: unknown, place: ConfigPlace, into: Loading): void {
  const parsed = entry.schema.safeParse(raw);
  if (!parsed.success) throw new ConfigError({ ...place, key: entry.key }, firstMessage(parsed.error));
  setValue(into.settings, entry, parsed.data);
}

function firstMessage(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'invalid value';
}

/** A YAML file with the line of every node, for messages. */
interface YamlFile {
  data: Record<string, unknown>;
  lineOf: (path: readonly PropertyKey[]) => number | null;
}

function readYamlFile(file: string): YamlFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError({ file }, `cannot read: ${(e as Error).message}`);
  }
  const { LineCounter, parseDocument } = yamlLib();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const first = doc.errors[0];
  if (first) {
    const line = first.linePos?.[0]?.line ?? null;
    throw new ConfigError({ file, line }, `invalid YAML: ${first.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  // Aliases are resolved here: an unresolved one, or one that expands too much, is the file's error.
  const resolved = yamlData(doc, lineCounter);
  if (!resolved.ok) throw new ConfigError({ file, line: resolved.line }, resolved.message);
  const data = resolved.data;
  const lineOf = (path: readonly PropertyKey[]): number | null => nodeLine(doc, path, lineCounter);
  if (data === null || data === undefined) return { data: {}, lineOf };
  if (!isRecord(data)) throw new ConfigError({ file, line: lineOf([]) }, `expected a mapping of sections (${FILE_SECTIONS.join(', ')})`);
  return { data, lineOf };
}

/** Line (1-based) of the deepest node found along `path` (the key of a mapping entry). */
function nodeLine(doc: Document, path: readonly PropertyKey[], counter: Yaml.LineCounter): number | null {
  const { isMap, isScalar, isSeq } = yamlLib();
  let node: unknown = doc.contents;
  let offset: number | null = isScalar(node) || isMap(node) || isSeq(node) ? (node.range?.[0] ?? null) : null;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) break;
      if (isScalar(pair.key)) offset = pair.key.range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item: unknown = node.items[segment];
      if (!(isScalar(item) || isMap(item) || isSeq(item))) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else {
      break;
    }
  }
  return offset === null ? null : counter.linePos(offset).line;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `workspace`: the project's ringmaster.yml (committed with the code: no secrets). */
function applyFile(file: string, into: Loading, workspace = false): void {
  const { data, lineOf } = readYamlFile(file);
  for (const [section, body] of Object.entries(data)) {
    const at = (path: readonly PropertyKey[]): ConfigPlace => ({ file, line: lineOf(path) });
    if (!FILE_SECTIONS.includes(section)) {
      throw new ConfigError({ ...at([section]), key: section }, `unknown section (expected one of: ${FILE_SECTIONS.join(', ')})`);
    }
    if (body === null) continue;
    if (!isRecord(body)) throw new ConfigError({ ...at([section]), key: section }, 'expected a mapping');
    if (section === 'procedures' || section === 'prices' || section === 'hooks') {
      applyTables(file, section, body, lineOf, into);
      continue;
    }
    if (!isSectionName(section)) continue;
    applySettings(file, [section], body, lineOf, into, workspace);
  }
}

/** The settings of a section or group mapping; a nested group (such as manager.defaults) is walked into. */
function applySettings(file: string, path: readonly string[], body: Record<string, unknown>, lineOf: YamlFile['lineOf'], into: Loading, workspace: boolean): void {
  for (const [name, raw] of Object.entries(body)) {
    const at = [...path, name];
    const key = at.join('.');
    const place: ConfigPlace = { file, line: lineOf(at), key };
    if (isGroupKey(key)) {
      if (raw === null) continue;
      if (!isRecord(raw)) throw new ConfigError(place, `expected a mapping (of ${namesUnder(key).map((n) => `${key}.${n}`).join(', ')})`);
      applySettings(file, at, raw, lineOf, into, workspace);
      continue;
    }
    const entry = BY_KEY.get(key);
    if (!entry) {
      const prefix = path.join('.');
      const guess = closest(name, namesUnder(prefix));
      throw new ConfigError(place, `unknown key${guess ? ` (did you mean ${prefix}.${guess}?)` : ''} (see README.md#configuration for the list)`);
    }
    if (workspace && SECRET_KEYS.has(entry.key)) throw new ConfigError(place, SECRET_IN_WORKSPACE);
    apply(entry, raw, place, into);
    into.sources.set(entry.key, file);
  }
}

/** `procedures:`, `prices:` and `hooks:` of a file, validated with the file schema's own schemas. */
function applyTables(file: string, section: 'procedures' | 'prices' | 'hooks', body: Record<string, unknown>, lineOf: YamlFile['lineOf'], into: Loading): void {
  const parsed = configFileSchema().safeParse({ [section]: body });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (section === 'hooks' && issue?.code === 'unrecognized_keys') {
      const name = issue.keys[0] ?? '';
      const guess = closest(name, [...HOOK_EVENTS]);
      throw new ConfigError({ file, line: lineOf(['hooks', name]), key: `hooks.${name}` }, `unknown hook${guess ? ` (did you mean hooks.${guess}?)` : ''} (expected one of: ${HOOK_EVENTS.join(', ')})`);
    }
    const path = issue?.path ?? [section];
    const key = path.map(String).join('.');
    const problem = issue?.code === 'unrecognized_keys' ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}` : (issue?.message ?? 'invalid');
    throw new ConfigError({ file, line: lineOf(path), key }, problem);
  }
  for (const [event, command] of Object.entries(parsed.data.hooks ?? {})) {
    if (command !== undefined) into.hooks[event as keyof HookCommands] = { command, source: file };
  }
  const base = dirname(file);
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(base, p));
  for (const [name, p] of Object.entries(parsed.data.procedures ?? {})) {
    into.procedures.set(name, {
      observe: abs(p.observe),
      orient: abs(p.orient),
      decide: abs(p.decide),
      act: abs(p.act),
      defaultMaxIterations: p.default_max_iterations ?? null,
      source: file,
    });
  }
  for (const [model, price] of Object.entries(parsed.data.prices ?? {})) {
    into.prices[model] = { cache_write: null, cache_read: null, ...price };
  }
}

function applyEnv(env: Readonly<Record<string, string | undefined>>, into: Loading): void {
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith('RINGMASTER_') || raw === undefined) continue;
    const entry = BY_ENV.get(name);
    if (!entry) {
      if (OTHER_ENV_VARIABLES.has(name)) continue;
      const guess = closest(name, [...BY_ENV.keys(), ...OTHER_ENV_VARIABLES]);
      const setting = guess === null ? undefined : BY_ENV.get(guess);
      const hint = guess === null ? '' : ` Did you mean ${guess}${setting ? ` (${setting.key})` : ''}?`;
      throw new ConfigError(
        { file: `environment variable ${name}` },
        `not a ringmaster setting.${hint} Unset it, or see README.md#configuration for the list.`,
      );
    }
    if (raw === '') continue;
    apply(entry, raw, { file: `environment variable ${name}` }, into);
    into.sources.set(entry.key, `env ${name}`);
  }
}

function applyFlags(flags: readonly FlagSetting[], into: Loading): void {
  for (const { key, flag, raw } of flags) {
    const entry = BY_KEY.get(key);
    if (!entry) throw new Error(`no setting ${key}`);
    apply(entry, raw, { file: `flag ${flag}` }, into);
    into.sources.set(entry.key, `flag ${flag}`);
  }
}

/**
 * Loads built-in defaults < global file < workspace file < env < flags, each value checked where it was written.
 * `cwd` null: no workspace file (the process's own settings: the user config and the environment).
 */
export function loadConfig(cwd: string | null, env: Readonly<Record<string, string | undefined>>, flags: readonly FlagSetting[] = []): LoadedConfig {
  const loading: Loading = { settings: structuredClone(DEFAULTS), sources: new Map(), procedures: new Map(), prices: {}, hooks: {}, files: [] };
  for (const setting of SETTINGS) loading.sources.set(setting.key, 'built-in');
  const globalPath = globalConfigPath(env);
  if (existsSync(globalPath)) {
    applyFile(globalPath, loading);
    loading.files.push(globalPath);
  }
  const workspacePath = cwd === null ? null : workspaceConfigPath(cwd);
  if (workspacePath) {
    applyFile(workspacePath, loading, true);
    loading.files.push(workspacePath);
  }
  applyEnv(env, loading);
  applyFlags(flags, loading);
  return { settings: loading.settings, sources: loading.sources, procedures: loading.procedures, prices: loading.prices, hooks: loading.hooks, files: loading.files };
}

/** The value of a setting (by its entry) with its source, for `config show` and messages. */
export function sourced(config: LoadedConfig, entry: SettingEntry): Sourced<unknown> {
  let value: unknown = config.settings;
  for (const part of entry.path) value = isRecord(value) ? value[part] : undefined;
  return { value, source: config.sources.get(entry.key) ?? 'built-in' };
}
