// Runs the built CLI (bin/ringmaster.js) as a real process with the pinned Node, for end-to-end tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { testHome } from './home.js';

/** Repository root. */
export const ROOT = resolve(import.meta.dirname, '..', '..');
/** The CLI entry point. */
export const BIN = join(ROOT, 'bin', 'ringmaster.js');
/** The fake plan agent. */
export const PLAN_AGENT = join(ROOT, 'test', 'fixtures', 'agents', 'plan-agent.mjs');

/** Result of a CLI run. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** An environment without the user's ringmaster settings, with an empty global config dir. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('RINGMASTER_')) env[k] = v;
  // Inside the file's data directory (removed after its tests): a shared one in /tmp was left behind, and written
  // to by agent CLIs (opencode) of files running at once.
  env.XDG_CONFIG_HOME = join(testHome(), 'no-global-config');
  env.RINGMASTER_HOME = testHome();
  env.TZ = 'UTC';
  delete env.NO_COLOR;
  return { ...env, ...extra };
}

/** Starts the CLI (`detached`: leading a process group of its own, as a terminal's foreground job); returns the child and a promise of its result. */
export function startCli(args: string[], options: { cwd: string; env?: Record<string, string>; detached?: boolean }): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: options.env ?? cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached === true });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const done = new Promise<CliResult>((resolvePromise) => {
    child.on('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Runs the CLI to completion. */
export function runCli(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  return startCli(args, options).done;
}

/** The plan agent as an --agent-command value. */
export function planAgent(plan: string): string {
  return `${process.execPath} ${PLAN_AGENT} ${plan}`;
}

/** Replaces the clock and durations in progress lines so they can be compared exactly. */
export function normalise(text: string): string {
  return text
    .replace(/\[\d\d:\d\d:\d\d\]/g, '[T]')
    .replace(/in \d+\.\d+s/g, 'in Xs')
    .replace(/total: [\dhms.]+\)/g, 'total: X)');
}

/** A temporary directory removed by the returned cleanup. */
export function tempDir(prefix = 'ringmaster-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A fresh temporary workspace with a PROMPT.md for every test of the file, removed after each. */
export function useWorkspace(prompt: string): { readonly dir: string } {
  let current: { dir: string; cleanup: () => void } | null = null;
  beforeEach(() => {
    current = tempDir();
    writeFileSync(join(current.dir, 'PROMPT.md'), prompt);
  });
  afterEach(() => current?.cleanup());
  return {
    get dir(): string {
      if (!current) throw new Error('useWorkspace: no workspace outside a test');
      return current.dir;
    },
  };
}

/** Writes an executable `name` (a shell script) into `<dir>/fake-bin`; returns that directory (to put first on PATH). */
export function fakeBin(dir: string, name: string, script: string): string {
  const bin = join(dir, 'fake-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, name), script);
  chmodSync(join(bin, name), 0o755);
  return bin;
}
