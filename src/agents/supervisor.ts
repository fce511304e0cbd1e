// Runs one agent process: own process group, prompt on stdin, output to a log file with backpressure,
// idle and hard timeouts, abort, and the whole group killed at the end whatever happened.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { dirname } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { secretsOfProcess, type Secret } from '../core/redact.js';
import { killGroup, killGroupAtOnce, signalGroup } from '../os/process-group.js';
import { fsProblem } from '../os/fs-errors.js';
import { ensurePrivateDir } from '../os/private-files.js';
import { AGENT_TAG_VARIABLE, findTagged, killTagged, signalTagged, treeRoot, type TaggedProcess, type TreeRoot } from '../os/process-tag.js';
import { agentClock, type AgentClock } from './agent-clock.js';
import { agentOutput, type AgentOutput, type Deliver } from './agent-output.js';
import type { SuspendSignal } from './suspend-signal.js';
import type { Invocation } from './types.js';

/** Why a supervised process ended. */
export type ExitReason = 'exited' | 'idle_timeout' | 'iteration_timeout' | 'deadline' | 'max_cost' | 'aborted' | 'spawn_failed' | 'log_failed';

/** Options of one supervised run. */
export interface SuperviseOptions {
  invocation: Invocation;
  /** The secrets of the invocation's environment and command line, when the caller has them already. */
  secrets?: readonly Secret[];
  cwd: string;
  /** File that receives everything the agent writes (stdout and stderr, raw bytes). */
  logPath: string;
  /** Kill when no output arrives for this long; null = never. */
  idleTimeoutMs: number | null;
  /** Kill after this long; null = never. */
  hardTimeoutMs: number | null;
  /** Kill at this epoch ms (e.g. the run's max_runtime); null = never. Reported as `deadline`. */
  deadlineMs: number | null;
  /** Time between SIGTERM and SIGKILL. */
  killGraceMs: number;
  /** Bytes of recent output kept in memory for error messages. */
  tailBytes: number;
  /** Largest log file: past it the log keeps its head and tail around a marker; null = no cap. */
  maxLogBytes: number | null;
  /** Aborts the process (SIGINT/SIGTERM of ringmaster, user stop). */
  signal?: AbortSignal;
  /** Aborted when the run's cost budget is spent while the agent works: it is killed at once, reported as `max_cost`. */
  budgetSignal?: AbortSignal;
  /**
   * Suspends the process (`pause --now`): SIGSTOP to its group and its escaped processes, timers held (the
   * hard timeout and the deadline move by the time suspended); SIGCONT and timers re-armed when it goes back.
   */
  suspend?: SuspendSignal;
  /** Decoded stdout text, in order. */
  onStdout(text: string, offset: number): void;
  /** Stdout as the log's bytes (redacted, not decoded; valid during the call only), in order: when set, onStdout is not called. */
  onStdoutBytes?: ((bytes: Buffer, offset: number) => void) | null;
  /**
   * Read stdout through a socket pair of our own into one reused buffer (os/reader-socket.ts) rather than a pipe:
   * far cheaper per byte for an agent that floods its output, ~0.2-0.4 ms of CPU more per agent started.
   */
  stdoutSocket?: boolean;
  /** Decoded stderr text, in order. */
  onStderr?(text: string, offset: number): void;
  /** Called once the process is started, with its pid (= process group id). */
  onSpawn?(pid: number): void;
  /**
   * Tag put in the agent's environment (RINGMASTER_AGENT_TAG), inherited by everything it starts: processes
   * that left its process group (a `setsid` daemon) are found by it and ended too. Default: a random one.
   */
  tag?: string;
  /**
   * Everything the process starts ends with it (a sandbox's own pid namespace, which the kernel empties when its
   * first process dies): nothing is left to kill or sweep once it has exited, and the /proc scans are saved.
   */
  sealed?: boolean;
}

/** How a supervised process ended. */
export interface SupervisedExit {
  reason: ExitReason;
  exitCode: number | null;
  exitSignal: string | null;
  /** Time the agent ran, time suspended left out. */
  durationMs: number;
  /** Time spent suspended (`pause --now`). */
  suspendedMs: number;
  /** Last `tailBytes` of output (stdout and stderr interleaved). */
  tail: string;
  /** Spawn error message (e.g. ENOENT) when reason is spawn_failed. */
  spawnError: string | null;
  bytesOut: number;
  /** Bytes of output left out of the log by its cap (0 when it was not reached). */
  logOmittedBytes: number;
  /** Settles once the log file is flushed and closed (not awaited here: it is off the iteration's critical path). */
  logClosed: Promise<void>;
  /** Why the log could not be written (reason `log_failed`: the agent was stopped), else null. */
  logError: string | null;
}

/** Runs the invocation to completion and returns how it ended. Never throws for process failures. */
export async function supervise(options: SuperviseOptions): Promise<SupervisedExit> {
  const started = Date.now();
  // 0700 and 0600: an agent may print anything, and its log is nobody else's business.
  try {
    ensurePrivateDir(dirname(options.logPath));
  } catch (error) {
    // Nowhere to record what the agent would do (a full disk...): it does not start.
    return notStarted(`cannot write ${options.logPath}: ${fsProblem(error)}`);
  }
  let reason: ExitReason = 'exited';
  let spawnError: string | null = null;
  let killing: Promise<void> | null = null;
  // An agent whose output cannot be recorded must not go on unrecorded: it is stopped, and the run told why.
  let logError: string | null = null;
  const output = agentOutput({
    logPath: options.logPath,
    maxLogBytes: options.maxLogBytes,
    tailBytes: options.tailBytes,
    // Secrets of the agent's environment and command line (API keys, tokens).
    secrets: options.secrets ?? secretsOfProcess([options.invocation.command, ...options.invocation.args], options.invocation.env),
    onActivity: () => clock.touch(),
    onLogError: (error) => {
      logError = `cannot write ${options.logPath}: ${fsProblem(error)}`;
      terminate('log_failed');
    },
  });
  const tag = options.tag ?? randomUUID();
  const { child, stdout, stdoutDone } = await spawnWithOutput(options, tag, output);
  const terminate = (why: ExitReason): void => {
    if (killing || child.pid === undefined) return;
    reason = why;
    // A spent budget is not waited on: an agent given time to end (Claude Code on SIGTERM) still sends the model
    // its tool's result, a request that costs as much as the one before it.
    killing = why === 'max_cost' ? killGroupAtOnce(child.pid) : killGroup(child.pid, options.killGraceMs);
  };
  const clock = agentClock(options, started, terminate);
  const exited = watchExit(child, options.invocation.command, (message) => {
    reason = 'spawn_failed';
    spawnError = message;
  });
  const pipesDone = Promise.all([stdoutDone, output.pipe(child.stderr, (text, offset) => options.onStderr?.(text, offset))]);
  const root = child.pid !== undefined ? treeRoot(child.pid, started) : null;
  const group = suspendableGroup(tag, root, clock);
  let stopListening = (): void => undefined;
  if (child.pid !== undefined) {
    const pid = child.pid;
    options.onSpawn?.(pid);
    clock.arm();
    stopListening = listenControls(options, terminate, (suspended) => {
      if (!killing) group(pid, suspended);
    });
    feedStdin(child, options.invocation.stdin);
  }
  let swept: Promise<unknown> = Promise.resolve();
  try {
    const { code, signal } = await exited;
    // The leader is gone; anything it left behind in its group goes too, before we wait for the pipes.
    if (child.pid !== undefined && (reason as ExitReason) !== 'spawn_failed' && options.sealed !== true) {
      if (!killing) killing = killGroup(child.pid, options.killGraceMs);
    }
    await killing;
    // A process killed while suspended: its stopped escapees are swept below (killTagged continues them).
    clock.settle(Date.now());
    // Whatever left the group (a `setsid` daemon) still carries the tag: ended in the background, off the
    // critical path between iterations (the run awaits it with the log before it reports its end).
    swept = root !== null && options.sealed !== true ? killTagged((t) => t === tag, options.killGraceMs, root).catch(() => []) : Promise.resolve([]);
    await pipesOrSweep(pipesDone, swept);
    const suspendedMs = clock.suspendedMs();
    const durationMs = Math.max(0, Date.now() - started - suspendedMs);
    const ended = { reason, exitCode: code, exitSignal: signal, durationMs, suspendedMs, spawnError };
    return { ...ended, tail: output.tail(), bytesOut: output.bytesOut(), logOmittedBytes: output.omittedBytes(), logClosed: output.closed, logError };
  } finally {
    stopListening();
    clock.disarm();
    stdout?.destroy();
    child.stderr.destroy();
    output.close(swept);
  }
}

/** The exit of an agent that did not start because its log cannot be written. */
function notStarted(logError: string): SupervisedExit {
  return { reason: 'log_failed', exitCode: null, exitSignal: null, durationMs: 0, suspendedMs: 0, tail: '', spawnError: null, bytesOut: 0, logOmittedBytes: 0, logClosed: Promise.resolve(), logError };
}

/**
 * Spawns the agent with its stdout read through a socket pair of our own into one reused buffer (when asked and it
 * can be made), else through a pipe; `stdoutDone` settles when stdout has ended.
 */
async function spawnWithOutput(options: SuperviseOptions, tag: string, output: AgentOutput): Promise<{ child: AgentProcess; stdout: Readable | Socket | null; stdoutDone: Promise<void> }> {
  const toStdout: Deliver = options.onStdoutBytes ? { bytes: options.onStdoutBytes } : (text, offset) => options.onStdout(text, offset);
  const socket = options.stdoutSocket === true ? await output.socket(toStdout) : null;
  const child = spawnAgent(options, tag, socket?.childEnd ?? 'pipe');
  socket?.childEnd.destroy();
  const stdoutDone = socket?.done ?? (child.stdout ? output.pipe(child.stdout, toStdout) : Promise.resolve());
  return { child, stdout: socket?.reader ?? child.stdout, stdoutDone };
}

/** Writes the agent's stdin and closes it (an agent that does not read it gets EPIPE, ignored). */
function feedStdin(child: AgentProcess, stdin: string | null): void {
  child.stdin.on('error', () => undefined);
  if (stdin !== null) child.stdin.end(stdin);
  else child.stdin.end();
}

/** A spawned agent: stdin and stderr are pipes, stdout a pipe or the socket given. */
type AgentProcess = ChildProcessByStdio<Writable, Readable | null, Readable>;

/** Starts the agent in its own process group, its environment carrying the tag. */
function spawnAgent(options: SuperviseOptions, tag: string, stdout: Socket | 'pipe'): AgentProcess {
  // Node's spawn leaves out variables whose value is undefined: a plain spread is all the copy needed.
  // Node types a spawn with a stream in its stdio as a bare ChildProcess: stdin and stderr are pipes here all the same.
  return spawn(options.invocation.command, options.invocation.args, {
    cwd: options.cwd,
    env: { ...options.invocation.env, [AGENT_TAG_VARIABLE]: tag },
    detached: true,
    stdio: ['pipe', stdout, 'pipe'],
  }) as AgentProcess;
}

/** Why an agent could not be started, in a user's words. */
function spawnProblem(error: NodeJS.ErrnoException, command: string): string {
  if (error.code === 'ENOENT') return `command not found: ${command}`;
  if (error.code === 'EACCES') return `cannot run ${command}: permission denied (EACCES): it must be an executable file (chmod +x ${command}), not a directory`;
  if (error.code === 'ENOEXEC') return `cannot run ${command}: not a program this machine can run (ENOEXEC): a script needs a #! line`;
  return error.message;
}

/** Settles when the process exits, or failed to start (`onSpawnError` told why first). */
function watchExit(child: AgentProcess, command: string, onSpawnError: (message: string) => void): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve) => {
    child.on('error', (error: NodeJS.ErrnoException) => {
      onSpawnError(spawnProblem(error, command));
      resolve({ code: null, signal: null });
    });
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
}

/**
 * Suspends and continues a process group and what left it (`pause --now`): SIGSTOP to the group and to its escaped
 * processes (found by their tag), the clock held; SIGCONT and the clock released when it goes back.
 */
function suspendableGroup(tag: string, root: TreeRoot | null, clock: AgentClock): (pid: number, suspended: boolean) => void {
  let stoppedOutside: TaggedProcess[] = [];
  return (pid, suspended) => {
    if (suspended && clock.hold(Date.now())) {
      signalGroup(pid, 'SIGSTOP');
      stoppedOutside = findTagged((t) => t === tag, root).filter((p) => p.pid !== pid);
      for (const p of stoppedOutside) signalTagged(p, 'SIGSTOP');
    } else if (!suspended && clock.release(Date.now())) {
      for (const p of stoppedOutside) signalTagged(p, 'SIGCONT');
      stoppedOutside = [];
      signalGroup(pid, 'SIGCONT');
    }
  };
}

/** Listens to the abort, budget and suspend signals of a started process; returns the function that stops listening. */
function listenControls(options: SuperviseOptions, terminate: (why: ExitReason) => void, onSuspend: (suspended: boolean) => void): () => void {
  const onAbort = (): void => terminate('aborted');
  const onBudget = (): void => terminate('max_cost');
  let unsubscribeSuspend: () => void = () => undefined;
  if (options.suspend) {
    unsubscribeSuspend = options.suspend.subscribe(onSuspend);
    if (options.suspend.suspended) onSuspend(true);
  }
  if (options.signal?.aborted) terminate('aborted');
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.budgetSignal?.aborted) terminate('max_cost');
  else options.budgetSignal?.addEventListener('abort', onBudget, { once: true });
  return () => {
    unsubscribeSuspend();
    options.signal?.removeEventListener('abort', onAbort);
    options.budgetSignal?.removeEventListener('abort', onBudget);
  };
}

/** Waits for the pipes to close: an escaped process may hold them open, so never more than 2 s after the sweep. */
async function pipesOrSweep(pipesDone: Promise<unknown>, swept: Promise<unknown>): Promise<void> {
  let pipesClosed = false;
  const pipes = pipesDone.then(() => {
    pipesClosed = true;
  });
  let pipeTimer: NodeJS.Timeout | undefined;
  const afterSweep = swept.then(() => (pipesClosed ? undefined : new Promise((r) => (pipeTimer = setTimeout(r, 2000)))));
  await Promise.race([pipes, afterSweep]);
  clearTimeout(pipeTimer);
}
