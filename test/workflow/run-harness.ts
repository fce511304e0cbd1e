// Running workflows end to end through the built CLI: a temporary git workspace with workflow files, the
// script agent (test/fixtures/agents/script-agent.mjs) told what to say in each iteration, and readers for
// the progress lines, the --json events and what the store recorded.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { runEventSchema, type RunEvent } from '../../src/runner/events.js';
import { removeDir, tempRepo } from '../git/git-repo.js';
import { cleanEnv, ROOT, runCli, startCli, type CliResult } from '../helpers/cli.js';
import { until as pollUntil } from '../helpers/until.js';

/** The script agent as an --agent-command value. */
export const SCRIPT_AGENT = `${process.execPath} ${join(ROOT, 'test', 'fixtures', 'agents', 'script-agent.mjs')}`;

/** What the script agent does in one iteration. */
export interface Say {
  say?: string | string[];
  exit?: number;
  gate?: boolean;
  echo?: boolean;
}

/** The environment of the CLI in these tests: no user settings, git without global config. */
export function env(extra: Record<string, string> = {}): Record<string, string> {
  return cleanEnv({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ...extra });
}

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) removeDir(dir);
});

/** A git workspace with `.ringmaster/workflows/<name>.yaml` for each workflow and the agent's script; removed after the test. */
export function workspace(workflows: Record<string, string>, script: Say[] = []): string {
  const files: Record<string, string> = { 'README.md': 'hello\n' };
  for (const [name, text] of Object.entries(workflows)) files[join('.ringmaster', 'workflows', `${name}.yaml`)] = text;
  const dir = tempRepo(files);
  made.push(dir);
  writeFileSync(join(dir, '.agent-script.json'), JSON.stringify(script));
  return dir;
}

/** `ringmaster workflow run ARGS...` with the script agent and no checkpoints (unless the args say otherwise). */
export function runWorkflow(dir: string, args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
  return runCli(['workflow', 'run', ...args, '--agent-command', SCRIPT_AGENT, '--checkpoint-interval', '0'], { cwd: dir, env: env(extraEnv) });
}

/** The same, started in the background. */
export function startWorkflow(dir: string, args: string[]): ReturnType<typeof startCli> {
  return startCli(['workflow', 'run', ...args, '--agent-command', SCRIPT_AGENT, '--checkpoint-interval', '0'], { cwd: dir, env: env() });
}

/** Progress lines with the clock and durations replaced: `[T] Iteration 1/3 completed in Xs (success)`. */
export function lines(stdout: string): string[] {
  return stdout
    .replace(/\[\d\d:\d\d:\d\d\]/g, '[T]')
    .replace(/in \d+\.\d+s/g, 'in Xs')
    .replace(/total: [\dhms.]+/g, 'total: X')
    .split('\n')
    .filter((l) => l !== '');
}

/** --json output: every line checked against the event schema, seq numbered from 1 without gaps. */
export function jsonEvents(stdout: string): RunEvent[] {
  const events = stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => runEventSchema.parse(JSON.parse(l)));
  events.forEach((e, i) => {
    if (e.seq !== i + 1) throw new Error(`event ${i + 1} has seq ${e.seq}`);
  });
  return events;
}

/** The prompt the agent got in its n-th run. */
export function promptOf(dir: string, n: number): string {
  return readFileSync(join(dir, `.agent-prompt-${n}`), 'utf8');
}

/** How many times the agent ran. */
export function agentRuns(dir: string): number {
  const file = join(dir, '.agent-count');
  return existsSync(file) ? Number(readFileSync(file, 'utf8')) : 0;
}

/** The newest run of the workspace as `show --json` prints it. */
export async function lastRun(dir: string): Promise<{ run: Record<string, unknown> & { id: string; meta: Record<string, unknown> }; iterations: Array<Record<string, unknown>> }> {
  const runs = await runCli(['runs', '--json'], { cwd: dir, env: env() });
  const [first] = JSON.parse(runs.stdout) as Array<{ id: string }>;
  if (!first) throw new Error(`no run in ${dir}`);
  const shown = await runCli(['show', first.id, '--json'], { cwd: dir, env: env() });
  return JSON.parse(shown.stdout) as Awaited<ReturnType<typeof lastRun>>;
}

/** Polls until `probe` returns a value (not null). */
export async function until<T>(what: string, probe: () => Promise<T | null> | T | null): Promise<T> {
  return pollUntil(what, probe, 60_000);
}
