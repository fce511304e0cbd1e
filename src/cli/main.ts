// CLI entry: dispatches `ringmaster <command>` and is the one place errors become text and exit codes.
import { EXIT, UserError } from '../core/errors.js';
import { storeErrorFrom } from '../store/errors.js';
import type { CliIO } from './command.js';
import { COMMANDS, type CommandEntry } from './commands/index.js';
import { VERSION } from '../version.js';
import { StoreUnavailableError } from '../store/unavailable.js';

/** A signal repeated within this many ms is one signal delivered twice (see processIO). */
const SIGNAL_REPEAT_MS = 1000;
/**
 * How long the listeners outlive a command that let go of its signals: the launcher's copy of the signal that made it
 * let go may come late on a starved machine, and with no listener left it would kill the process in its shutdown.
 */
const SIGNAL_RELEASE_MS = 5000;

/**
 * Commands that run for hours and parse the same schemas over and over: zod's compiled parsers pay off there. Every
 * other command parses each of its schemas a handful of times (a one-iteration `run` a few dozen rows), and zod's
 * first parse of an object schema, which writes and compiles a parser for it (`new Function`), costs ~2 ms more
 * than parsing without one (a later parse ~1.5 us less): ~6 ms of a one-iteration run (bench/FINDINGS.md).
 */
const LONG_LIVED = new Set(['serve', 'worker']);

/** Builds the real-process CliIO. */
export function processIO(): CliIO {
  // A closed pipe (e.g. `ringmaster run | head`) must not crash a loop that is driving an agent.
  for (const stream of [process.stdout, process.stderr]) {
    // EIO: the terminal went away (SIGHUP); the run is being interrupted and must still finish its records.
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'EIO') throw error;
    });
  }
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // Made on first use: process.stdin on a pipe is a net.Socket (node:net and the streams loaded, ~3 ms), and most
    // commands never read it.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    onSignal(handler) {
      // SIGHUP: the terminal closed. The agent runs in its own process group, so nothing else would stop it.
      const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
      // Under the launcher of an older Node (bin/ringmaster.js), Ctrl+C reaches this process twice: from the
      // terminal and forwarded by the launcher. The same signal again within REPEAT_MS is that one signal.
      const last = new Map<NodeJS.Signals, number>();
      const listener = (signal: NodeJS.Signals): void => {
        const now = Date.now();
        const previous = last.get(signal);
        last.set(signal, now);
        if (previous === undefined || now - previous >= SIGNAL_REPEAT_MS) handler(signal);
      };
      for (const signal of signals) process.on(signal, listener);
      return () => {
        // Removed a while later, so that the repeat of the signal that made the command let go is still absorbed
        // (with no listener left, it would kill the process in the middle of its shutdown).
        setTimeout(() => {
          for (const signal of signals) process.off(signal, listener);
        }, SIGNAL_RELEASE_MS).unref();
      };
    },
  };
}

function helpText(commands: readonly CommandEntry[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    `ringmaster ${VERSION}: run AI coding agents in a loop until they signal completion or a limit stops them.`,
    '',
    'Usage: ringmaster <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    "Run 'ringmaster <command> --help' for a command's options.",
    '',
  ].join('\n');
}

/** Errors of the machine (a file that cannot be read or written, a damaged database) that are not bugs. */
const SYSTEM_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EIO', 'EISDIR', 'ENOTDIR', 'EMFILE', 'ENFILE', 'ENAMETOOLONG', 'ELOOP']);

/** Why a directory could not be made, by error code. */
const MKDIR_PROBLEMS: Readonly<Record<string, string>> = {
  EEXIST: 'a file of that name is in the way',
  ENOTDIR: 'a file is in the way above it',
  ENOENT: 'a directory above it does not exist and cannot be created',
};

/** One line for an error the user can act on although no command expected it, or null (a bug: stack shown). */
function explain(error: unknown): UserError | null {
  const store = storeErrorFrom(error, null);
  if (store) return store;
  // A directory Ringmaster needs (its data directory, a run's logs) that cannot be made: a file in the way, or a
  // parent that cannot be created (HOME or RINGMASTER_HOME pointing somewhere unusable).
  const made = error as NodeJS.ErrnoException | null;
  if (made instanceof Error && made.syscall === 'mkdir' && typeof made.path === 'string' && made.code !== undefined && MKDIR_PROBLEMS[made.code] !== undefined) {
    const why = MKDIR_PROBLEMS[made.code];
    return new UserError(`cannot create the directory ${made.path}: ${why} (${made.code}). Check HOME, RINGMASTER_HOME and the path`, EXIT.io);
  }
  if (error instanceof Error && 'code' in error && typeof error.code === 'string' && SYSTEM_CODES.has(error.code)) {
    return new UserError(`${error.message} (the file system refused: check permissions, free space and the path)`, EXIT.io);
  }
  return null;
}

/** Runs the CLI with the given arguments and returns the exit code. */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(helpText(COMMANDS));
    return name === undefined ? EXIT.usage : EXIT.success;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write(`${VERSION}\n`);
    return EXIT.success;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    io.stderr.write(`ringmaster: unknown command '${name}'. Run 'ringmaster --help' for the list.\n`);
    return EXIT.usage;
  }
  // Before the command's modules build their schemas (zod reads the setting when a schema is made). Not for `hook`,
  // whose `stop` loads no zod at all.
  if (!LONG_LIVED.has(name) && name !== 'hook') (await import('zod')).config({ jitless: true });
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(command.usage.endsWith('\n') ? command.usage : `${command.usage}\n`);
    return EXIT.success;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    const known = error instanceof UserError ? error : explain(error);
    if (known) {
      io.stderr.write(`ringmaster ${name}: ${known.message}\n`);
      return known.exitCode;
    }
    // An unreachable database is the environment's problem, not a bug: its message, no stack.
    if (error instanceof StoreUnavailableError) {
      io.stderr.write(`ringmaster ${name}: ${error.message}\n`);
      return EXIT.failure;
    }
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr.write(`ringmaster ${name}: internal error (please report): ${message}\n`);
    return EXIT.failure;
  }
}
