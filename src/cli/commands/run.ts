// `ringmaster run`: resolve config and flags into a RunSpec, run the loop, render progress, map the exit code.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { quoteArgv } from '../../agents/command.js';
import { getAdapter } from '../../agents/registry.js';
import { EXIT, UsageError } from '../../core/errors.js';
import { redactArgv, redactor } from '../../core/redact.js';
import { newRunId } from '../../core/ids.js';
import { resolveRun, SETTING_FLAGS, unusedSandboxSettings, type RunFlags } from '../../spec/resolve.js';
import { composePrompt } from '../../prompt/compose.js';
import { placeInWorktree } from '../../manager/worktree-run.js';
import type { RunSpec } from '../../spec/run-spec.js';
import type { CliIO, Command } from '../command.js';
import { runInTerminal } from '../run-session.js';
import { flagProblem } from '../flag-problem.js';

/** The options `run` accepts (also used by `config show` and `resume`). */
export const RUN_OPTIONS = {
  cwd: { type: 'string' },
  prompt: { type: 'string' },
  'prompt-file': { type: 'string' },
  procedure: { type: 'string' },
  context: { type: 'string' },
  agent: { type: 'string' },
  'agent-command': { type: 'string' },
  model: { type: 'string' },
  'max-iterations': { type: 'string' },
  unlimited: { type: 'boolean' },
  'max-runtime': { type: 'string' },
  'max-cost': { type: 'string' },
  'failure-threshold': { type: 'string' },
  cooldown: { type: 'string' },
  'idle-timeout': { type: 'string' },
  'iteration-timeout': { type: 'string' },
  'checkpoint-interval': { type: 'string' },
  verify: { type: 'string' },
  'verify-timeout': { type: 'string' },
  'verify-each': { type: 'boolean' },
  'no-progress-after': { type: 'string' },
  worktree: { type: 'boolean' },
  sandbox: { type: 'boolean' },
  'sandbox-network': { type: 'string' },
  repository: { type: 'string' },
  branch: { type: 'string' },
  'dry-run': { type: 'boolean' },
  verbose: { type: 'boolean', short: 'v' },
  json: { type: 'boolean' },
} as const;

type RunValues = ReturnType<typeof parseRunArgs>['values'];

/** Parses `run` arguments (or those of another command taking the run options) strictly; unknown flags are a UsageError. */
export function parseRunArgs(args: string[], command = 'run', allowPositionals = false) {
  try {
    // Taken from the CommonJS module: `import ... from 'node:util'` evaluates every export of node:util, which loads
    // worker_threads, the stream and diff modules (~12 builtins a run does not need).
    return process.getBuiltinModule('node:util').parseArgs({ args, options: RUN_OPTIONS, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError(`${flagProblem(error)} (see 'ringmaster ${command} --help')`);
  }
}

/** The workspace directory from --cwd (must exist) or the current directory. */
export function workspaceFrom(values: { cwd?: string | undefined }, io: CliIO): string {
  const dir = resolve(io.cwd, values.cwd ?? '.');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--cwd: not a directory: ${dir}`);
  return dir;
}

/** Maps parsed values to RunFlags. */
export function runFlagsFrom(values: RunValues): RunFlags {
  const settings: RunFlags['settings'] = [];
  for (const { key, flag } of SETTING_FLAGS) {
    const raw = (values as Record<string, unknown>)[flag.slice(2)];
    // A boolean flag (--verify-each) sets its key to true.
    if (typeof raw === 'string' || raw === true) settings.push({ key, flag, raw: String(raw) });
  }
  return {
    prompt: values.prompt,
    promptFile: values['prompt-file'],
    procedure: values.procedure,
    context: values.context,
    maxIterations: values['max-iterations'],
    unlimited: values.unlimited,
    settings,
  };
}

/** Quotes argv for display only (never executed through a shell). */
export const displayArgv = quoteArgv;

/** --dry-run: prints the agent command and the prompt of the first iteration (default: the spec's own). */
export function dryRun(spec: RunSpec, io: CliIO, prompt: string = composePrompt(spec.prompt, spec.context)): number {
  const adapter = getAdapter({ name: spec.agent.name, command: spec.agent.command });
  const invocation = adapter.buildInvocation({
    prompt,
    cwd: spec.workspace,
    model: spec.agent.model,
    extraArgs: spec.agent.args,
    permissionMode: spec.agent.permissionMode,
    resumeSessionId: null,
    env: io.env,
  });
  // Shown as a run shows them: secret options and the environment's secrets redacted.
  const redact = redactor(io.env);
  io.stdout.write(`[DRY RUN] Procedure: ${spec.label}\n`);
  io.stdout.write(`[DRY RUN] Would execute with: ${displayArgv(redactArgv([invocation.command, ...invocation.args], redact))}\n\n`);
  const shown = redact(prompt);
  io.stdout.write(shown.endsWith('\n') ? shown : `${shown}\n`);
  return EXIT.success;
}

/** With --worktree: creates the run's worktree, points the spec at it and tells the user (not with --json). */
export async function startWorktree(workspace: string, runId: string, spec: RunSpec, json: boolean, io: CliIO): Promise<{ path: string; branch: string }> {
  const created = await placeInWorktree(workspace, runId, spec);
  if (!json) io.stdout.write(`Worktree: ${created.path} (branch ${created.branch})${created.sourceDirty ? ' — uncommitted changes of your checkout are not in it' : ''}\n`);
  return { path: created.path, branch: created.branch };
}

async function run(args: string[], io: CliIO): Promise<number> {
  const { values } = parseRunArgs(args);
  const workspace = workspaceFrom(values, io);
  const { spec, config } = resolveRun(workspace, io.env, runFlagsFrom(values));
  for (const warning of unusedSandboxSettings(config)) io.stderr.write(`WARNING: ${warning}\n`);
  if (values['dry-run']) return dryRun(spec, io);
  getAdapter({ name: spec.agent.name, command: spec.agent.command });
  composePrompt(spec.prompt, spec.context); // a missing prompt file is a usage error before anything starts
  const runId = newRunId(Date.now(), Math.random);
  if (values.repository !== undefined || values.branch !== undefined) {
    if (values.repository === undefined || values.branch === undefined) throw new UsageError('--repository and --branch go together (see ringmaster run --help)');
    if (values.worktree) throw new UsageError('--worktree and --repository cannot be combined: a repository run always works on its own branch');
    const { enqueueRepositoryRun } = await import('../enqueue.js');
    return enqueueRepositoryRun(io, { workspace, runId, spec, repository: values.repository, branch: values.branch, json: values.json === true });
  }
  const worktree = values.worktree ? await startWorktree(workspace, runId, spec, values.json === true, io) : null;
  const { exitCode } = await runInTerminal(io, { workspace, runId, spec, json: values.json, verbose: values.verbose, worktree, mode: 'create' });
  return exitCode;
}

/** The `run` command. */
export const runCommand: Command = {
  name: 'run',
  usage: `Usage: ringmaster run [options]

Runs the agent again and again, each iteration a fresh process fed the prompt on stdin, until it prints a
completion signal (default <promise>COMPLETE</promise>, <promise>SUCCESS</promise> or
<ringmaster>COMPLETE</ringmaster>) or a limit stops it.

Prompt (one of; default: the file PROMPT.md, or loop.prompt_file):
  --prompt TEXT             the prompt itself
  --prompt-file FILE        read the prompt from FILE (re-read every iteration)
  --procedure NAME          an OODA procedure (built-in: bootstrap, plan, build; or procedures.NAME in config)
  --context TEXT            extra context, shown as a CONTEXT section before the prompt

Agent:
  --agent NAME              agent CLI (agent.name; default claude). 'command' runs --agent-command
  --agent-command "CMD"     any executable with its arguments (split without a shell; implies --agent command)
  --model MODEL             model for the agent CLI (agent.model)

Limits (config keys in parentheses):
  --max-iterations N        stop after N iterations (default: procedure, loop.default_max_iterations, 5)
  --unlimited               no iteration limit
  --max-runtime DUR         wall-clock budget, e.g. 90s, 5m, 4h (loop.max_runtime)
  --max-cost USD            cost budget in USD (loop.max_cost)
  --failure-threshold N     abort after N consecutive failed iterations (loop.failure_threshold; default 3)
  --cooldown DUR            pause between iterations (loop.cooldown; default 0s)
  --idle-timeout DUR        kill an iteration without output for DUR (loop.idle_timeout; default 30m)
  --iteration-timeout DUR   kill an iteration running longer than DUR (loop.iteration_timeout; default none)
  --checkpoint-interval N   git checkpoint every N iterations, 0 = off (loop.checkpoint_interval; default 5)
  --no-progress-after N     stop (no_progress, exit 2) after N iterations in a row that changed no file in the
                            git workspace (loop.no_progress_after; default 0 = off)

Sandbox (Linux, bubblewrap; README "Sandbox"):
  --sandbox                 run every agent in an OS sandbox: workspace writable, host read-only, secrets hidden
                            (sandbox.enabled; exit 64 where it cannot work: see 'ringmaster doctor')
  --sandbox-network NET     agent (default: its model API and base URLs), packages, none or all (sandbox.network)
Verify gate:
  --verify "CMD"            a claimed completion ends the run only when CMD exits 0 in the workspace (loop.verify;
                            split like --agent-command, run without a shell); otherwise the iteration fails with
                            verify_failed and the next prompt carries CMD's output
  --verify-timeout DUR      kill the verify command after DUR, a failed check (loop.verify_timeout; default 10m)
  --verify-each             run the verify command after every iteration, not only on a claim (loop.verify_each)

Output:
  --cwd DIR                 workspace directory (default: the current directory)
  --worktree                run in a fresh git worktree on branch ringmaster/<run-id>; your checkout is untouched
  --repository URL --branch B
                            queue the run for 'ringmaster worker' (needs database.url): a worker clones URL (or a
                            local path), works on branch ringmaster/<run-id> from B and pushes every checkpoint
  --dry-run                 print the agent command and the assembled prompt, run nothing
  --verbose, -v             stream the agent's output live
  --json                    one JSON event per line on stdout instead of progress lines

Exit codes: 0 success signal, 1 aborted (failure threshold) or fatal error, 2 a limit ended the run,
3 workspace locked, 64 usage or configuration error, 74 a file or the database cannot be used (read-only,
disk full, damaged), 130 interrupted.
`,
  run,
};
