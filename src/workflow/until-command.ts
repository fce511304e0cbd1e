// A loop's `until_command`: run in the workspace after an iteration; exit code 0 ends the loop like the
// signal. Argv only (never a shell), its own process group killed at the end, output to a log file beside the
// iteration's, bounded by a timeout and the run's abort signal.
import { DEFAULT_MAX_LOG_BYTES } from '../agents/capped-log.js';
import { supervise } from '../agents/supervisor.js';

/** The longest an until_command may run before it is killed (and counts as "not done"). */
export const UNTIL_COMMAND_TIMEOUT_MS = 30 * 60 * 1000;

/** How an until_command ended. */
export interface UntilCommandResult {
  /** Exit code 0. */
  passed: boolean;
  /** Why it did not pass when it could not run to its end (not found, timed out, interrupted); null otherwise. */
  problem: string | null;
  exitCode: number | null;
  logPath: string;
}

/** Options of one until_command run. */
export interface UntilCommandOptions {
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The iteration's log file: the command's output goes to `<it>.until-command.log` beside it. */
  iterationLogPath: string;
  signal: AbortSignal;
  timeoutMs?: number;
}

/** Runs the command to its end and says whether it passed. Never throws for process failures. */
export async function runUntilCommand(options: UntilCommandOptions): Promise<UntilCommandResult> {
  const [command, ...args] = options.argv;
  const logPath = options.iterationLogPath.replace(/(\.log)?$/, '.until-command.log');
  if (command === undefined) return { passed: false, problem: 'the command is empty', exitCode: null, logPath };
  const exit = await supervise({
    invocation: { command, args, env: { ...options.env }, stdin: null },
    cwd: options.cwd,
    logPath,
    idleTimeoutMs: null,
    hardTimeoutMs: options.timeoutMs ?? UNTIL_COMMAND_TIMEOUT_MS,
    deadlineMs: null,
    killGraceMs: 2000,
    tailBytes: 0,
    // A command that floods its output cannot fill the disk: its log is capped like an iteration's.
    maxLogBytes: DEFAULT_MAX_LOG_BYTES,
    signal: options.signal,
    onStdout: () => undefined,
  });
  await exit.logClosed;
  switch (exit.reason) {
    case 'exited':
      return { passed: exit.exitCode === 0, problem: null, exitCode: exit.exitCode, logPath };
    case 'spawn_failed':
      return { passed: false, problem: exit.spawnError ?? 'could not start', exitCode: null, logPath };
    case 'aborted':
      return { passed: false, problem: 'interrupted', exitCode: null, logPath };
    case 'log_failed':
      return { passed: false, problem: exit.logError ?? 'its log could not be written', exitCode: null, logPath };
    default:
      return { passed: false, problem: `killed after ${Math.round((options.timeoutMs ?? UNTIL_COMMAND_TIMEOUT_MS) / 1000)}s`, exitCode: null, logPath };
  }
}
