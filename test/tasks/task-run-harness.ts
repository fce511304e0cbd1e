// Harness of the task-run tests: a temporary git workspace with a task list, the scripted task agent
// (test/fixtures/agents/task-agent.mjs) with its script and records kept outside the workspace, the built
// CLI run on it, and readers for what a run leaves behind (events, commits, journals, agent calls).
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { runEventSchema, type RunEvent } from '../../src/runner/events.js';
import { sh, tempRepo, writeFiles } from '../git/git-repo.js';
import { cleanEnv, ROOT, runCli, type CliResult } from '../helpers/cli.js';

/** The scripted task agent. */
export const TASK_AGENT = join(ROOT, 'test', 'fixtures', 'agents', 'task-agent.mjs');
/** A directory with a fake `claude` that runs the task agent in Claude Code's stream-json format. */
export const TASK_CLAUDE_BIN = join(ROOT, 'test', 'fixtures', 'bin-task-claude');

/** What the agent does in one iteration of a task (see task-agent.mjs). */
export interface AgentStep {
  write?: Record<string, string>;
  remove?: string[];
  tool?: boolean;
  gate?: boolean;
  hang?: boolean;
  say?: string;
  exit?: number;
  cost?: number;
}

/** One call of the agent as it recorded it. */
export interface AgentCall {
  task: string;
  iteration: number;
  cwd: string;
  pid: number;
}

/** A workspace for one test: the git repository and the directory of the agent's script and records. */
export interface TaskWorkspace {
  dir: string;
  agentDir: string;
  home: string;
  /** The --agent-command value running the scripted agent. */
  agentCommand: string;
  /** Sets what the agent does, per task, per task iteration (the last entry repeats). */
  script(plan: Record<string, AgentStep[]>): void;
  /** The env of a CLI run (own data directory, no backoff delay, no user git config). */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Runs `ringmaster <args>` in the workspace. */
  cli(args: string[], extra?: Record<string, string>): Promise<CliResult>;
  /** The agent's calls so far. */
  calls(): AgentCall[];
  /** The prompt of a task's iteration. */
  prompt(task: string, iteration: number): string;
  /** Lets a `gate` step of a task's iteration go on. */
  openGate(task: string, iteration: number): void;
  read(path: string): string;
  /** Commit subjects, newest first. */
  subjects(ref?: string): string[];
  /** Parsed lines of a JSONL file of the workspace (progress.jsonl, learning.jsonl). */
  jsonl(path: string): Array<Record<string, unknown>>;
}

/** Creates workspaces for the tests of a file, removed after each test. */
export function useTaskWorkspaces(): (files: Record<string, string>) => TaskWorkspace {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (files) => {
    const dir = realpathSync(tempRepo(files));
    const agentDir = realpathSync(mkdtempSync(join(tmpdir(), 'rm-task-agent-')));
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'rm-task-home-')));
    made.push(dir, agentDir, home, `${dir}.ringmaster-worktrees`);
    const scriptPath = join(agentDir, 'script.json');
    writeFileSync(scriptPath, '{}');
    const env = (extra: Record<string, string> = {}): Record<string, string> =>
      cleanEnv({ RINGMASTER_HOME: home, RINGMASTER_LOOP_BACKOFF: '0s', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', TASK_AGENT_SCRIPT: scriptPath, TASK_AGENT_NODE: process.execPath, ...extra });
    return {
      dir,
      agentDir,
      home,
      agentCommand: `${process.execPath} ${TASK_AGENT} ${scriptPath}`,
      script: (plan) => writeFileSync(scriptPath, JSON.stringify(plan)),
      env,
      cli: (args, extra) => runCli(args, { cwd: dir, env: env(extra) }),
      // Only whole lines: an agent may be writing its line (or have just created the file) as it is read.
      calls: () => (existsSync(join(agentDir, 'calls.jsonl')) ? readFileSync(join(agentDir, 'calls.jsonl'), 'utf8').split('\n').slice(0, -1).map((l) => JSON.parse(l) as AgentCall) : []),
      prompt: (task, n) => readFileSync(join(agentDir, `prompt-${task}-${n}.txt`), 'utf8'),
      openGate: (task, n) => writeFileSync(join(agentDir, `gate-${task}-${n}`), ''),
      read: (path) => readFileSync(join(dir, path), 'utf8'),
      subjects: (ref = 'HEAD') => sh(dir, ['log', '--format=%s', ref]).trim().split('\n'),
      jsonl: (path) => readFileSync(join(dir, path), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>),
    };
  };
}

/** The run events of a --json run, each validated against the event schema. */
export function events(stdout: string): RunEvent[] {
  return stdout.trim().split('\n').filter((l) => l !== '').map((l) => runEventSchema.parse(JSON.parse(l)));
}

/** The events of one type. */
export function ofType<T extends RunEvent['type']>(all: RunEvent[], type: T): Array<Extract<RunEvent, { type: T }>> {
  return all.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}

/** Each finished iteration as [run iteration, task, task iteration, outcome, error kind]. */
export function iterations(all: RunEvent[]): Array<[number, string | null, number | null, string, string]> {
  return ofType(all, 'iteration_completed').map((e) => [e.iteration, e.unit?.id ?? null, e.unit?.iteration ?? null, e.outcome, e.error_kind]);
}

/** A tasks.jsonl text from task objects. */
export function tasksJsonl(...tasks: object[]): string {
  return tasks.map((t) => JSON.stringify(t)).join('\n') + '\n';
}

/** Writes files into a workspace and commits them. */
export function commitFiles(dir: string, files: Record<string, string>, message = 'setup'): void {
  writeFiles(dir, files);
  sh(dir, ['add', '-A']);
  sh(dir, ['commit', '-q', '-m', message]);
}
