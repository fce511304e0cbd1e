// Adds and removes ringmaster's Stop hook in `.claude/settings.json` / `.codex/hooks.json`, keeping everything else.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../core/errors.js';

/** Seconds Claude Code waits for our hook before giving up (it then lets the session stop), without a verify check. */
export const HOOK_TIMEOUT_SECONDS = 30;
/** Seconds the hook needs besides a verify check (stdin, the tracker's lock twice, the check's kill grace, the store). */
export const HOOK_MARGIN_SECONDS = 30;

/** The timeout `hook install` declares: room for a verify check of `verifyTimeoutMs` plus the margin. */
export function hookTimeoutSeconds(verifyTimeoutMs: number): number {
  return Math.max(HOOK_TIMEOUT_SECONDS, Math.ceil(verifyTimeoutMs / 1000) + HOOK_MARGIN_SECONDS);
}

/** Which agent's settings file. */
export type HookTarget = 'claude' | 'codex';

/** The settings file of a target inside a project. */
export function settingsPath(projectDir: string, target: HookTarget): string {
  return target === 'claude' ? join(projectDir, '.claude', 'settings.json') : join(projectDir, '.codex', 'hooks.json');
}

/** The launcher of this installation (bin/ringmaster.js), as an absolute path. */
export function defaultBinPath(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/ringmaster.js');
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The hook command: this Node and this installation's launcher, by absolute path (works without PATH). */
export function hookCommand(nodePath: string = process.execPath, binPath: string = defaultBinPath()): string {
  return `${shellQuote(nodePath)} ${shellQuote(binPath)} hook stop`;
}

/** True when a hook command is one of ours (any installation). */
export function isOurCommand(command: unknown): boolean {
  return typeof command === 'string' && /ringmaster(?:\.js)?'?\s+hook\s+stop\s*$/.test(command);
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Returns settings with our Stop hook present exactly once, and whether anything changed. Other hooks stay. */
export function withStopHook(settings: Json, command: string, timeout: number = HOOK_TIMEOUT_SECONDS): { settings: Json; changed: boolean } {
  const { settings: cleaned, removed } = withoutStopHook(settings);
  const hooks = isObject(cleaned.hooks) ? { ...cleaned.hooks } : {};
  const stop = Array.isArray(hooks.Stop) ? [...(hooks.Stop as unknown[])] : [];
  stop.push({ hooks: [{ type: 'command', command, timeout }] });
  hooks.Stop = stop;
  const next = { ...cleaned, hooks };
  const timeouts = ourTimeouts(settings);
  const ours = removed.length === 1 && removed[0] === command && timeouts.length === 1 && timeouts[0] === timeout;
  return { settings: ours ? settings : next, changed: !ours };
}

/** The timeouts (seconds) our installed Stop hooks declare (null: none declared, Claude Code's default). */
function ourTimeouts(settings: Json): (number | null)[] {
  if (!isObject(settings.hooks) || !Array.isArray(settings.hooks.Stop)) return [];
  const found: (number | null)[] = [];
  for (const group of settings.hooks.Stop as unknown[]) {
    if (!isObject(group) || !Array.isArray(group.hooks)) continue;
    for (const h of group.hooks as unknown[]) {
      if (isObject(h) && isOurCommand(h.command)) found.push(typeof h.timeout === 'number' && h.timeout > 0 ? h.timeout : null);
    }
  }
  return found;
}

/** Returns settings without any of our Stop hooks and the commands removed. Empty groups/keys we emptied go too. */
export function withoutStopHook(settings: Json): { settings: Json; removed: string[] } {
  const removed: string[] = [];
  if (!isObject(settings.hooks) || !Array.isArray(settings.hooks.Stop)) return { settings, removed };
  const stop: unknown[] = [];
  for (const group of settings.hooks.Stop as unknown[]) {
    if (!isObject(group) || !Array.isArray(group.hooks)) {
      stop.push(group);
      continue;
    }
    const kept = (group.hooks as unknown[]).filter((h) => {
      const mine = isObject(h) && isOurCommand(h.command);
      if (mine) removed.push(h.command as string);
      return !mine;
    });
    if (kept.length === group.hooks.length) stop.push(group);
    else if (kept.length > 0) stop.push({ ...group, hooks: kept });
  }
  if (removed.length === 0) return { settings, removed };
  const hooks: Json = { ...settings.hooks };
  if (stop.length > 0) hooks.Stop = stop;
  else delete hooks.Stop;
  const next: Json = { ...settings };
  if (Object.keys(hooks).length > 0) next.hooks = hooks;
  else delete next.hooks;
  return { settings: next, removed };
}

async function readSettings(path: string): Promise<Json | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError({ file: path, key: 'file' }, `cannot read: ${(error as Error).message}`);
  }
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError({ file: path, key: 'file' }, `not valid JSON (${(error as Error).message}); fix it first, nothing was changed`);
  }
  if (!isObject(value)) throw new ConfigError({ file: path, key: 'file' }, 'must be a JSON object; nothing was changed');
  return value;
}

async function writeSettings(path: string, settings: Json): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(settings, null, 2)}\n`, 'utf8');
    await rename(temporary, path);
  } finally {
    await rm(temporary, { force: true });
  }
}

/** Installs our Stop hook into a settings file; returns whether the file changed. */
export async function installStopHook(path: string, command: string, timeout: number = HOOK_TIMEOUT_SECONDS): Promise<boolean> {
  const current = (await readSettings(path)) ?? {};
  const { settings, changed } = withStopHook(current, command, timeout);
  if (changed) await writeSettings(path, settings);
  return changed;
}

/** Removes our Stop hooks from a settings file; returns how many were removed. */
export async function uninstallStopHook(path: string): Promise<number> {
  const current = await readSettings(path);
  if (current === null) return 0;
  const { settings, removed } = withoutStopHook(current);
  if (removed.length > 0) await writeSettings(path, settings);
  return removed.length;
}

/** Our installed hook commands in a settings file (empty when none or unreadable). */
export async function installedCommands(path: string): Promise<string[]> {
  try {
    const current = await readSettings(path);
    return current === null ? [] : withoutStopHook(current).removed;
  } catch {
    return [];
  }
}

/**
 * The timeout (seconds) of our Stop hook installed in a settings file: the smallest when several; null when it is
 * not installed there, declares none, or the file cannot be read.
 */
export async function installedTimeout(path: string): Promise<number | null> {
  try {
    const current = await readSettings(path);
    const timeouts = current === null ? [] : ourTimeouts(current);
    if (timeouts.length === 0 || timeouts.includes(null)) return null;
    return Math.min(...(timeouts as number[]));
  } catch {
    return null;
  }
}
