// `ringmaster loop start|status|cancel`: the tracker of a hook-mode loop (docs/hook-mode.md) in the current project.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, UsageError, UserError } from '../../core/errors.js';
import { decisionLogPath } from '../../hook/decision-log.js';
import { cancelLoop, DEFAULT_COMPLETION_MARKER, DEFAULT_MAX_ITERATIONS, startLoop } from '../../hook/loop-lifecycle.js';
import { loadConfig, type FlagSetting } from '../../config/load.js';
import { formatDuration } from '../../core/duration.js';
import { hookTimeoutSeconds, installedCommands, installedTimeout, settingsPath } from '../../hook/settings-install.js';
import { readTracker, trackerPath, TrackerError, type Tracker } from '../../hook/tracker.js';
import type { CliIO, Command } from '../command.js';
import { flagProblem } from '../flag-problem.js';

const USAGE = `Usage: ringmaster loop <start|status|cancel> [options]

  start "<task>"   Creates .ringmaster/loop-tracker.md: while it is active, the Stop hook
                   ('ringmaster hook install') feeds the task back each time Claude Code tries to stop,
                   until the completion marker or max iterations.
  status           Shows the loop's state.
  cancel           Deactivates the loop: the next stop is allowed.

Options of start:
  --max-iterations N        How many times the hook may continue the session (default ${DEFAULT_MAX_ITERATIONS})
  --completion-marker TEXT  Ends the loop when the tracker body contains TEXT or the agent replies
                            <promise>TEXT</promise> (default ${DEFAULT_COMPLETION_MARKER})
  --tracker-template FILE   Markdown body of the tracker (default: a minimal progress page)
  --continue-message TEXT   Message fed back on each continuation (default: the task and instructions)
  --verify CMD              A claimed completion ends the loop only when CMD exits 0 in the project (run
                            without a shell, killed at --verify-timeout); otherwise the stop is blocked with
                            its output (default: loop.verify)
  --verify-timeout DURATION Time limit of the check (default: loop.verify_timeout, 10m)
  --session-id ID           Bind the loop to this Claude session now (default: $CLAUDE_CODE_SESSION_ID when
                            run inside Claude Code, else the first session that stops claims the loop)
  --force                   Replace an active loop
Options of all:
  --project DIR             Project directory (default: the current directory)
  --json                    status: print the tracker state as JSON
`;

interface LoopArgs {
  positionals: string[];
  project: string | undefined;
  maxIterations: string | undefined;
  completionMarker: string | undefined;
  trackerTemplate: string | undefined;
  continueMessage: string | undefined;
  sessionId: string | undefined;
  verify: string | undefined;
  verifyTimeout: string | undefined;
  force: boolean;
  json: boolean;
}

function parse(args: string[]): LoopArgs {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: {
        project: { type: 'string' },
        'max-iterations': { type: 'string' },
        'completion-marker': { type: 'string' },
        'tracker-template': { type: 'string' },
        'continue-message': { type: 'string' },
        'session-id': { type: 'string' },
        verify: { type: 'string' },
        'verify-timeout': { type: 'string' },
        force: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
      allowPositionals: true,
    });
    return {
      positionals,
      project: values.project,
      maxIterations: values['max-iterations'],
      completionMarker: values['completion-marker'],
      trackerTemplate: values['tracker-template'],
      continueMessage: values['continue-message'],
      sessionId: values['session-id'],
      verify: values.verify,
      verifyTimeout: values['verify-timeout'],
      force: values.force,
      json: values.json,
    };
  } catch (error) {
    throw new UsageError(flagProblem(error));
  }
}

function parseMax(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MAX_ITERATIONS;
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1) throw new UsageError(`--max-iterations: expected a whole number >= 1, got '${text}'`);
  return Number(text);
}

/** The verify check of a new loop: the flags over loop.verify / loop.verify_timeout of the project's config. */
function verifySettings(a: LoopArgs, io: CliIO, projectDir: string): { command: string | null; timeoutMs: number } {
  const flags: FlagSetting[] = [];
  if (a.verify !== undefined) flags.push({ key: 'loop.verify', flag: '--verify', raw: a.verify });
  if (a.verifyTimeout !== undefined) flags.push({ key: 'loop.verify_timeout', flag: '--verify-timeout', raw: a.verifyTimeout });
  const loop = loadConfig(projectDir, io.env, flags).settings.loop;
  return { command: loop.verify, timeoutMs: loop.verify_timeout };
}

async function start(a: LoopArgs, io: CliIO, projectDir: string): Promise<number> {
  const [task, ...extra] = a.positionals;
  if (task === undefined || task.trim() === '') throw new UsageError('missing the task: ringmaster loop start "<task>"');
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}' (quote the task)`);
  let template: string | null = null;
  if (a.trackerTemplate !== undefined) {
    const path = resolve(io.cwd, a.trackerTemplate);
    try {
      template = await readFile(path, 'utf8');
    } catch (error) {
      throw new UsageError(`--tracker-template: cannot read ${path}: ${(error as Error).message}`);
    }
  }
  const envSession = io.env.CLAUDE_CODE_SESSION_ID;
  const check = verifySettings(a, io, projectDir);
  const tracker = await startLoop({
    projectDir,
    task,
    maxIterations: parseMax(a.maxIterations),
    completionMarker: a.completionMarker ?? DEFAULT_COMPLETION_MARKER,
    template,
    sessionId: a.sessionId ?? (envSession !== undefined && envSession !== '' ? envSession : null),
    continueMessage: a.continueMessage ?? null,
    verify: check.command,
    verifyTimeoutMs: check.timeoutMs,
    force: a.force,
    now: new Date(),
    env: io.env,
    warn: (message) => io.stderr.write(`ringmaster loop start: warning: ${message}\n`),
  });
  const f = tracker.frontmatter;
  io.stdout.write(`Loop started: ${trackerPath(projectDir)}\n`);
  io.stdout.write(`  max iterations: ${f.max_iterations}, completion marker: ${f.completion_marker}\n`);
  io.stdout.write(`  session: ${f.session_id ?? 'the first Claude Code session that stops in this project'}\n`);
  io.stdout.write(
    f.run_id !== null
      ? `  run: ${f.run_id} (decisions recorded in the store: ringmaster show ${f.run_id})\n`
      : `  decisions recorded in ${decisionLogPath(projectDir)} (no store in this project)\n`,
  );
  if (f.verify !== null) io.stdout.write(`  verify: ${f.verify} (time limit ${formatDuration(f.verify_timeout_ms)})\n`);
  if ((await installedCommands(settingsPath(projectDir, 'claude'))).length === 0) {
    io.stdout.write("  warning: the Stop hook is not installed here; run 'ringmaster hook install'\n");
  } else if (f.verify !== null) {
    const installed = await installedTimeout(settingsPath(projectDir, 'claude'));
    if (installed !== null && installed < hookTimeoutSeconds(f.verify_timeout_ms)) {
      io.stdout.write(`  warning: the installed Stop hook's timeout (${installed}s) cuts the check short; run 'ringmaster hook install' again\n`);
    }
  }
  return EXIT.success;
}

function describe(tracker: Tracker, path: string): string {
  const f = tracker.frontmatter;
  const lines = [
    `loop: ${f.active ? 'active' : `inactive${f.stop_reason ? ` (${f.stop_reason})` : ''}`}`,
    `iteration: ${f.iteration}/${f.max_iterations}`,
    `completion marker: ${f.completion_marker}`,
    `session: ${f.session_id ?? 'unclaimed'}`,
    `started: ${f.started_at}`,
  ];
  if (f.verify !== null) lines.push(`verify: ${f.verify} (time limit ${formatDuration(f.verify_timeout_ms)})`);
  if (typeof f.run_id === 'string') lines.push(`run: ${f.run_id}`);
  if (f.ended_at) lines.push(`ended: ${f.ended_at}`);
  lines.push(`tracker: ${path}`);
  return `${lines.join('\n')}\n`;
}

async function status(a: LoopArgs, io: CliIO, projectDir: string): Promise<number> {
  const path = trackerPath(projectDir);
  let tracker: Tracker | null;
  try {
    tracker = await readTracker(projectDir);
  } catch (error) {
    if (error instanceof TrackerError) throw new UserError(`broken tracker: ${error.message}`, EXIT.failure);
    throw error;
  }
  if (tracker === null) {
    if (a.json) io.stdout.write(`${JSON.stringify({ tracker: path, loop: null })}\n`);
    else io.stdout.write(`No loop in ${projectDir} (no ${path}).\n`);
    return EXIT.success;
  }
  if (a.json) io.stdout.write(`${JSON.stringify({ tracker: path, loop: tracker.frontmatter })}\n`);
  else io.stdout.write(describe(tracker, path));
  return EXIT.success;
}

async function cancel(io: CliIO, projectDir: string): Promise<number> {
  const tracker = await cancelLoop(io.env, projectDir, new Date(), (message) => io.stderr.write(`ringmaster loop cancel: warning: ${message}\n`));
  if (tracker === null) io.stdout.write('No active loop.\n');
  else io.stdout.write(`Loop cancelled after ${tracker.frontmatter.iteration} continuation(s): ${trackerPath(projectDir)}\n`);
  return EXIT.success;
}

/** `ringmaster loop`. */
export const loopCliCommand: Command = {
  name: 'loop',
  usage: USAGE,
  async run(args, io) {
    const [sub, ...rest] = args;
    const a = parse(rest);
    const projectDir = resolve(io.cwd, a.project ?? '.');
    switch (sub) {
      case 'start':
        return start(a, io, projectDir);
      case 'status':
        return status(a, io, projectDir);
      case 'cancel':
        return cancel(io, projectDir);
      default:
        throw new UsageError(sub === undefined ? 'missing subcommand (start, status or cancel)' : `unknown subcommand '${sub}'`);
    }
  },
};
