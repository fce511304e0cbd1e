// Helpers for the end-to-end tests that drive the real agent CLIs through `ringmaster run` against fake
// model servers: a temporary git workspace, an isolated HOME, and the run's --json events.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, ROOT } from '../helpers/cli.js';
import { runEventSchema, type RunEvent } from '../../src/runner/events.js';

/** node_modules/.bin, where the real agent CLIs are installed. */
export const BIN_DIR = join(ROOT, 'node_modules', '.bin');

/** The prompt of every e2e loop: the completion signal is in it, so echoed input must never count. */
export const PROMPT = 'Create hello.txt in this directory. When everything is done, print <promise>COMPLETE</promise>.\n';

/** A temporary git workspace (with PROMPT.md committed) and an isolated home, removed by `cleanup`. */
export interface Sandbox {
  repo: string;
  home: string;
  cleanup(): void;
}

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
}

/** Creates the workspace repo and the home directory. */
export function createSandbox(prefix: string): Sandbox {
  const root = mkdtempSync(join(tmpdir(), `ringmaster-e2e-${prefix}-`));
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  git(root, 'init', '-q', repo);
  git(repo, 'config', 'user.email', 'e2e@example.invalid');
  git(repo, 'config', 'user.name', 'e2e');
  writeFileSync(join(repo, 'PROMPT.md'), PROMPT);
  git(repo, 'add', 'PROMPT.md');
  git(repo, 'commit', '-q', '-m', 'prompt');
  spawnSync('mkdir', ['-p', home]);
  return { repo, home, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** The environment of a run: no user settings, the sandbox HOME and XDG dirs, the real CLIs first on PATH. */
export function agentEnv(home: string, extra: Record<string, string>): Record<string, string> {
  return cleanEnv({
    PATH: `${BIN_DIR}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    RINGMASTER_LOOP_BACKOFF: '0s',
    // The test run's own temp directory (removed at its end): opencode makes `$TMPDIR/opencode`, others their files.
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    ...extra,
  });
}

/** The --json events printed by `ringmaster run`, each checked against the event schema, seq gap-free from 1. */
export function runEvents(stdout: string): RunEvent[] {
  const events = stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => runEventSchema.parse(JSON.parse(line)));
  const seqs = events.map((e) => e.seq);
  if (seqs.some((seq, i) => seq !== (seqs[0] ?? 1) + i)) throw new Error(`--json events are not numbered without gaps: ${seqs.join(',')}`);
  return events;
}

/** The lifecycle event types in order (without per-iteration metrics: tokens, cost, signal, error, terminal status). */
export function lifecycleTypes(all: readonly RunEvent[]): string[] {
  const lifecycle = new Set(['run_started', 'iteration_started', 'iteration_completed', 'waiting', 'agent_switched', 'paused', 'resumed', 'run_finished']);
  return all.filter((e) => lifecycle.has(e.type)).map((e) => e.type);
}

/** The iteration_completed events of a run. */
export function completedIterations(events: readonly RunEvent[]): Extract<RunEvent, { type: 'iteration_completed' }>[] {
  return events.filter((e): e is Extract<RunEvent, { type: 'iteration_completed' }> => e.type === 'iteration_completed');
}

/** The common `ringmaster run` arguments of the e2e loops. */
export function runArgs(agent: string, model: string | null): string[] {
  return ['run', '--agent', agent, ...(model === null ? [] : ['--model', model]), '--max-iterations', '4', '--cooldown', '0s', '--json'];
}

/** The per-iteration facts every end-to-end test checks, one object per completed iteration. */
export function iterationSummary(events: readonly RunEvent[]): Array<{
  iteration: number;
  outcome: string;
  exit: number | null;
  signal: boolean;
  error: string;
  tokens: Array<number | null>;
  model: string | null;
  malformed: number;
}> {
  return completedIterations(events).map((e) => ({
    iteration: e.iteration,
    outcome: e.outcome,
    exit: e.exit_code,
    signal: e.completion_signal_found,
    error: e.error_kind,
    tokens: [e.tokens_in, e.tokens_out, e.cache_read, e.cache_write],
    model: e.model,
    malformed: e.malformed_lines,
  }));
}
