// `ringmaster hook stop|install|uninstall`: the Claude Code Stop hook of hook mode and its installation.
import { resolve } from 'node:path';
import { EXIT, UsageError } from '../../core/errors.js';
import { readHookStdin } from '../../hook/hook-stdin.js';
import { timerAfter } from '../../os/timers.js';
import type { HookTarget } from '../../hook/settings-install.js';
import { runStopHook } from '../../hook/stop-hook.js';
import type { CliIO, Command } from '../command.js';
import { flagProblem } from '../flag-problem.js';

const USAGE = `Usage: ringmaster hook <stop|install|uninstall> [options]

  stop        The Stop hook itself: reads Claude Code's Stop event (JSON) on stdin and prints
              {"decision":"block","reason":...} to continue the loop, or nothing to let the session stop.
              Any error lets the session stop (fail open) with a warning on stderr. Always exits 0.
  install     Adds the Stop hook to .claude/settings.json of the project (idempotent; keeps every
              other setting and hook). The command is this installation's node + launcher, by absolute path;
              its timeout covers loop.verify_timeout (and an active loop's check) plus 30 s.
  uninstall   Removes only ringmaster's Stop hook from .claude/settings.json (and .codex/hooks.json).

Options:
  --project DIR   Project directory (default: the current directory)
  --codex         install: also add the hook to the project's .codex/hooks.json
`;

function parse(args: string[]): { project: string | undefined; codex: boolean } {
  try {
    // Taken from the CommonJS module, as in run.ts: `import ... from 'node:util'` would evaluate every export of
    // node:util (worker_threads, parse_args, the diff modules) in every `hook stop`, which has no options.
    const { values, positionals } = process.getBuiltinModule('node:util').parseArgs({
      args,
      options: { project: { type: 'string' }, codex: { type: 'boolean', default: false } },
      allowPositionals: true,
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    return { project: values.project, codex: values.codex };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(flagProblem(error));
  }
}

/**
 * Time bound of one `hook stop`, whatever stdin or the transcript do (well under the 30 s timeout the
 * installed hook declares): past it the stop is allowed (fail open) and the process ends.
 */
export const HOOK_TIME_LIMIT_MS = 10_000;

/** Time given to stdin to end (a Stop event is a few hundred bytes written at once). */
export const HOOK_STDIN_LIMIT_MS = 5000;

/** What the hook prints when its deadline passes during a verify check: the stop is blocked, never allowed unverified. */
const VERIFY_LATE = {
  stdout: `${JSON.stringify({ decision: 'block', reason: 'The verify command did not finish within the Stop hook\'s time: the completion is not verified, so the session goes on.' })}\n`,
  warning: 'the verify check did not finish in time: blocking the stop',
};

async function decide(io: CliIO, onVerify: (timeoutMs: number) => void): Promise<{ stdout: string; warning: string | null }> {
  let text = '';
  let readWarning: string | null = null;
  try {
    text = await readHookStdin(io.stdin, HOOK_STDIN_LIMIT_MS);
  } catch (error) {
    readWarning = (error as Error).message;
  } finally {
    // A writer that never closes stdin must not keep this process alive.
    io.stdin.destroy();
  }
  const outcome = await runStopHook(text, { env: io.env, cwd: io.cwd, now: () => new Date(), onVerify });
  return { stdout: outcome.stdout, warning: readWarning ?? outcome.warning };
}

async function stop(io: CliIO): Promise<number> {
  const giveUp = { stdout: '', warning: `no decision after ${HOOK_TIME_LIMIT_MS / 1000} s: allowing the stop` };
  let expire: (answer: typeof giveUp) => void = () => undefined;
  const late = new Promise<typeof giveUp>((resolve) => (expire = resolve));
  let timer = timerAfter(HOOK_TIME_LIMIT_MS, () => expire(giveUp));
  // A verify check moves the deadline past its own limit, and past it the stop is blocked (not allowed unverified).
  const onVerify = (timeoutMs: number): void => {
    timer.cancel();
    timer = timerAfter(timeoutMs + HOOK_TIME_LIMIT_MS, () => expire(VERIFY_LATE));
  };
  const outcome = await Promise.race([decide(io, onVerify), late]);
  timer.cancel();
  if (outcome.stdout !== '') io.stdout.write(outcome.stdout);
  if (outcome.warning !== null) io.stderr.write(`ringmaster hook stop: warning: ${outcome.warning}\n`);
  return EXIT.success;
}

/** The hook's timeout: room for loop.verify_timeout of the project's config, or an active loop's longer check. */
async function installTimeout(projectDir: string, io: CliIO): Promise<number> {
  // Loaded here, as settings-install below: `hook stop` needs neither the config loader nor the tracker's reader.
  const [{ loadConfig }, { readTracker }, { hookTimeoutSeconds }] = await Promise.all([
    import('../../config/load.js'),
    import('../../hook/tracker.js'),
    import('../../hook/settings-install.js'),
  ]);
  const configured = loadConfig(projectDir, io.env).settings.loop.verify_timeout;
  const tracker = await readTracker(projectDir).catch(() => null);
  const active = tracker?.frontmatter.active === true && tracker.frontmatter.verify !== null ? tracker.frontmatter.verify_timeout_ms : 0;
  return hookTimeoutSeconds(Math.max(configured, active));
}

async function install(args: string[], io: CliIO): Promise<number> {
  const { project, codex } = parse(args);
  const projectDir = resolve(io.cwd, project ?? '.');
  // Loaded here: `hook stop`, run at every turn of a session, does not need it.
  const { hookCommand, installStopHook, settingsPath } = await import('../../hook/settings-install.js');
  const command = hookCommand();
  const timeout = await installTimeout(projectDir, io);
  const targets: HookTarget[] = codex ? ['claude', 'codex'] : ['claude'];
  for (const target of targets) {
    const path = settingsPath(projectDir, target);
    const changed = await installStopHook(path, command, timeout);
    io.stdout.write(`${changed ? 'Installed' : 'Already installed'}: Stop hook in ${path}\n`);
  }
  io.stdout.write(`  command: ${command}\n  timeout: ${timeout}s (covers a verify check of loop.verify_timeout)\n`);
  return EXIT.success;
}

async function uninstall(args: string[], io: CliIO): Promise<number> {
  const { project } = parse(args);
  const projectDir = resolve(io.cwd, project ?? '.');
  const { settingsPath, uninstallStopHook } = await import('../../hook/settings-install.js');
  for (const target of ['claude', 'codex'] as const) {
    const path = settingsPath(projectDir, target);
    const removed = await uninstallStopHook(path);
    if (removed > 0) io.stdout.write(`Removed: ${removed} ringmaster Stop hook${removed === 1 ? '' : 's'} from ${path}\n`);
    else if (target === 'claude') io.stdout.write(`Not installed: no ringmaster Stop hook in ${path}\n`);
  }
  return EXIT.success;
}

/** `ringmaster hook`. */
export const hookCliCommand: Command = {
  name: 'hook',
  usage: USAGE,
  async run(args, io) {
    const [sub, ...rest] = args;
    switch (sub) {
      case 'stop':
        return stop(io);
      case 'install':
        return install(rest, io);
      case 'uninstall':
        return uninstall(rest, io);
      default:
        throw new UsageError(sub === undefined ? 'missing subcommand (stop, install or uninstall)' : `unknown subcommand '${sub}'`);
    }
  },
};
