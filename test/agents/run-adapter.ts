// Test helper: runs a real agent CLI through an adapter's own invocation (argv, env, stdin) and parses its
// stdout with the adapter's parser. Optionally records the raw stdout as a fixture (RECORD_STREAMS=1).
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { AgentAdapter, AgentEvent, InvocationOptions } from '../../src/agents/types.js';

/** This package's node_modules/.bin, where the real agent CLIs are installed. */
export const BIN_DIR = resolve(import.meta.dirname, '../../node_modules/.bin');

/** The completion signal the tests and recorded fixtures use. */
export const SIGNAL = '<promise>COMPLETE</promise>';

/** Root of the recorded stream fixtures. */
export const FIXTURES_DIR = resolve(import.meta.dirname, '../fixtures/streams');

/** What one real run produced. */
export interface AdapterRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  events: AgentEvent[];
  args: string[];
}

/** Invocation options with test defaults: bypass permissions, fresh session, no model. */
export function invocationOptions(partial: Partial<InvocationOptions> & Pick<InvocationOptions, 'prompt' | 'cwd'>): InvocationOptions {
  return { model: null, extraArgs: [], permissionMode: 'bypass', resumeSessionId: null, env: {}, ...partial };
}

/** Parses a whole stdout text with a fresh parser of the adapter (built for `options`). */
export function parseAll(adapter: AgentAdapter, stdout: string, options: InvocationOptions = invocationOptions({ prompt: '', cwd: process.cwd() })): AgentEvent[] {
  const parser = adapter.createParser(options);
  const events: AgentEvent[] = [];
  for (const line of stdout.split('\n')) events.push(...parser.line(line));
  events.push(...parser.end());
  return events;
}

/** Runs the adapter's invocation with node_modules/.bin first on PATH; kills the group after `timeoutMs`. */
export function runAdapter(adapter: AgentAdapter, options: InvocationOptions, timeoutMs = 60_000): Promise<AdapterRun> {
  const invocation = adapter.buildInvocation(options);
  const env = { ...invocation.env, PATH: `${BIN_DIR}:${options.env.PATH ?? process.env.PATH ?? '/usr/bin:/bin'}` };
  return new Promise((resolvePromise, reject) => {
    const child = spawn(invocation.command, invocation.args, { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolvePromise({ exitCode, stdout, stderr, events: parseAll(adapter, stdout, options), args: invocation.args });
    });
    child.stdin.end(invocation.stdin ?? '');
  });
}

/** Writes `stdout` to test/fixtures/streams/<agent>/<name>.jsonl when RECORD_STREAMS=1. */
export async function maybeRecord(agent: string, name: string, stdout: string): Promise<void> {
  if (process.env.RECORD_STREAMS !== '1') return;
  const file = join(FIXTURES_DIR, agent, `${name}.jsonl`);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, stdout);
}

/** Reads a recorded fixture. */
export function readFixture(agent: string, name: string): Promise<string> {
  return readFile(join(FIXTURES_DIR, agent, `${name}.jsonl`), 'utf8');
}
