// Test helper for the live adapter tests: a real agent CLI run with an isolated HOME against a fake model
// server, in temporary dirs removed afterwards, and the checks those tests share.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AgentAdapter, InvocationOptions } from '../../src/agents/types.js';
import type { ErrorKind } from '../../src/core/types.js';
import { summarize, type StreamSummary } from './adapter-contract.js';
import { invocationOptions, maybeRecord, runAdapter, SIGNAL, type AdapterRun } from './run-adapter.js';

/** A live test file's temporary dirs: `root` holds `work` (the CLI's cwd) and `home` (its HOME). */
export interface LiveDirs {
  root: string;
  work: string;
  home: string;
}

/** The dirs and the fake server of a live test file, set by its beforeAll. */
export interface LiveHarness<S> extends LiveDirs {
  server: S;
}

/** Runs one prompt through the CLI, optionally resuming a session. */
export type LiveRun = (prompt: string, resumeSessionId?: string | null) => Promise<AdapterRun>;

/** Registers beforeAll/afterAll: fresh root/work/home dirs, `start` of the fake server; close and remove after. */
export function useLiveHarness<S extends { close(): Promise<void> }>(agent: string, start: (dirs: LiveDirs) => Promise<S>): LiveHarness<S> {
  const harness = {} as LiveHarness<S>;
  beforeAll(async () => {
    harness.root = await mkdtemp(join(tmpdir(), `rm-${agent}-live-`));
    harness.work = join(harness.root, 'work');
    harness.home = join(harness.root, 'home');
    await mkdir(harness.work);
    await mkdir(harness.home);
    harness.server = await start(harness);
  });
  afterAll(async () => {
    await harness.server.close();
    await rm(harness.root, { recursive: true, force: true });
  });
  return harness;
}

/** Options of runLive: the invocation (cwd is `work`) and the env on top of PATH and HOME=`home`. */
export type LiveOptions = Partial<Omit<InvocationOptions, 'cwd' | 'env'>> & { prompt: string; env?: Record<string, string | undefined> };

/**
 * Runs the adapter's real CLI in `dirs.work` with only PATH, HOME=`dirs.home`, TMPDIR=`dirs.root` and `options.env`
 * in its env (TMPDIR: opencode unpacks native libraries into the temp dir; they go with the file's dirs).
 */
export function runLive(adapter: AgentAdapter, dirs: LiveDirs, options: LiveOptions, timeoutMs?: number): Promise<AdapterRun> {
  const { env: extra, ...rest } = options;
  const env = { PATH: process.env.PATH, HOME: dirs.home, TMPDIR: dirs.root, ...extra };
  return runAdapter(adapter, invocationOptions({ ...rest, cwd: dirs.work, env }), timeoutMs);
}

/** Checks a run whose SIGNAL is only in tool output: exit 0, SIGNAL in stdout, `text` as the agent's text. */
export function expectSignalOnlyInToolOutput(r: AdapterRun, text: string): StreamSummary {
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toContain(SIGNAL);
  const s = summarize(r.events);
  expect(s.text).toBe(text);
  return s;
}

/** Resumes `session` with 'Go on.' and checks the id went into argv and the run exited 0. */
export async function runResumed(run: LiveRun, session: string | null): Promise<AdapterRun> {
  expect(session).not.toBeNull();
  const r = await run('Go on.', session);
  expect(r.args).toContain(session);
  expect(r.exitCode).toBe(0);
  return r;
}

/** Registers `title`: a 401 run (recorded as auth-401) exits with `exitCode` and classifies as auth. */
export function itClassifies401(title: string, agent: string, run: LiveRun, exitCode: number): void {
  it(title, async () => {
    const r = await run('hi');
    await maybeRecord(agent, 'auth-401', r.stdout);
    expect(r.exitCode).toBe(exitCode);
    expect(summarize(r.events).errorKind).toBe('auth');
  });
}

/** Registers 'classifies %s as %s' over `cases` (fixture name, kind): exit 1 and the kind; `usageLimit` checks the reset. */
export function itClassifiesErrors(agent: string, cases: [string, ErrorKind][], run: LiveRun, usageLimit: (s: StreamSummary) => void): void {
  it.each(cases)('classifies %s as %s', async (name, kind) => {
    const r = await run('Say hi');
    await maybeRecord(agent, name, r.stdout);
    expect(r.exitCode).toBe(1);
    const s = summarize(r.events);
    expect(s.errorKind).toBe(kind);
    if (kind === 'usage_limit') usageLimit(s);
  });
}

/** Registers the long-prompt test: the prompt ending in `tail` goes on stdin and reaches the server (`lastSent`). */
export function itTakesLongPromptOnStdin(run: LiveRun, tail: string, lastSent: () => unknown): void {
  it('takes a long prompt on stdin (never argv)', async () => {
    const prompt = `${'Context line that makes the prompt long.\n'.repeat(6000)}${tail}`;
    const r = await run(prompt);
    expect(r.exitCode).toBe(0);
    expect(r.args.join(' ').length).toBeLessThan(200);
    expect(summarize(r.events).text).toBe('Long prompt received.');
    expect(JSON.stringify(lastSent())).toContain(tail);
  });
}
