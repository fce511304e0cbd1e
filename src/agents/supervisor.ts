// Runs one agent process: own process group, prompt on stdin, output to a log file with backpressure,
// idle and hard timeouts, abort, and the whole group killed at the end whatever happened.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { idleTimer, timerAfter, timerAt, type IdleTimer, type SafeTimer } from '../os/timers.js';
import { byteStreamRedactor, redactorOf, secretsOfProcess } from '../core/redact.js';
import { killGroup, killGroupAtOnce, signalGroup } from '../os/process-group.js';
import { fsProblem } from '../os/fs-errors.js';
import { ensurePrivateDir } from '../os/private-files.js';
import { AGENT_TAG_VARIABLE, findTagged, killTagged, signalTagged, treeRoot, type TaggedProcess } from '../os/process-tag.js';
import { ByteTail, CappedLog } from './capped-log.js';
import type { SuspendSignal } from './suspend-signal.js';
import type { Invocation } from './types.js';

/** Why a supervised process ended. */
export type ExitReason = 'exited' | 'idle_timeout' | 'iteration_timeout' | 'deadline' | 'max_cost' | 'aborted' | 'spawn_failed' | 'log_failed';

/** Options of one supervised run. */
export interface SuperviseOptions {
  invocation: Invocation;
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
// eslint-disable-next-line max-lines-per-function -- too long today; to be split by concern (docs/architecture.md "Layers and size")
export async function supervise(options: SuperviseOptions): Promise<SupervisedExit> {
  const started = Date.now();
  // 0700 and 0600: an agent may print anything, and its log is nobody else's business.
  try {
    ensurePrivateDir(dirname(options.logPath));
  } catch (error) {
    // Nowhere to record what the agent would do (a full disk...): it does not start.
    const logError = `cannot write ${options.logPath}: ${fsProblem(error)}`;
    return { reason: 'log_failed', exitCode: null, exitSignal: null, durationMs: 0, suspendedMs: 0, tail: '', spawnError: null, bytesOut: 0, logOmittedBytes: 0, logClosed: Promise.resolve(), logError };
  }
  // An agent whose output cannot be recorded must not go on unrecorded: it is stopped, and the run told why.
  let logError: string | null = null;
  const onLogError = (error: NodeJS.ErrnoException): void => {
    logError = `cannot write ${options.logPath}: ${fsProblem(error)}`;
    terminate('log_failed');
  };
  // Opened asynchronously: the agent starts while the file is being created (writes are buffered until then).
  const log = new CappedLog(options.logPath, options.maxLogBytes, (error) => onLogError(error));
  // Secrets of the agent's environment and command line (API keys, tokens) never reach the log nor the live
  // output, even split across chunks: each stream is redacted as it arrives, and what is delivered is what the log
  // holds (so a live chunk's offset is its place in the log).
  const secrets = secretsOfProcess([options.invocation.command, ...options.invocation.args], options.invocation.env);
  const redactText = redactorOf(secrets);
  const tail = new ByteTail(options.tailBytes);
  let swept: Promise<unknown> = Promise.resolve();
  let bytesOut = 0;
  let logBytes = 0;
  /** Writes redacted bytes to the log; returns where they start in it and whether the log wants more now. */
  const toLog = (safe: Buffer): { offset: number; more: boolean } => {
    const offset = logBytes;
    logBytes += safe.length;
    return { offset, more: safe.length === 0 || log.write(safe) };
  };
  const flushers: Array<(deliverToo: boolean) => void> = [];
  let closeLog: () => void = () => undefined;
  const logClosed = new Promise<void>((resolve) => {
    closeLog = () => {
      // A stream that never ended (held open by an escaped process): what its redactor held back goes to the log.
      for (const flush of flushers) flush(false);
      void Promise.all([log.end(), swept]).then(() => resolve());
    };
  });

  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.invocation.env)) if (v !== undefined) env[k] = v;
  const tag = options.tag ?? randomUUID();
  env[AGENT_TAG_VARIABLE] = tag;

  const child = spawn(options.invocation.command, options.invocation.args, {
    cwd: options.cwd,
    env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });

  let reason: ExitReason = 'exited';
  let spawnError: string | null = null;
  let killing: Promise<void> | null = null;
  let timers: SafeTimer[] = [];

  const terminate = (why: ExitReason): void => {
    if (killing || child.pid === undefined) return;
    reason = why;
    // A spent budget is not waited on: an agent given time to end (Claude Code on SIGTERM) still sends the model
    // its tool's result, a request that costs as much as the one before it.
    killing = why === 'max_cost' ? killGroupAtOnce(child.pid) : killGroup(child.pid, options.killGraceMs);
  };

  // Any length is safe here (os/timers.ts): a 600h limit must not fire after 1 ms like a raw setTimeout would.
  let idle: IdleTimer | null = null;
  const touch = (): void => {
    idle?.touch();
  };

  const onAbort = (): void => terminate('aborted');
  const onBudget = (): void => terminate('max_cost');

  const pipeStream = (stream: NodeJS.ReadableStream, deliver: (text: string, offset: number) => void): Promise<void> =>
    new Promise((resolve) => {
      const decoder = new StringDecoder('utf8');
      const redact = byteStreamRedactor(secrets);
      let ended = false;
      const flush = (deliverToo: boolean): void => {
        if (ended) return;
        ended = true;
        const rest = redact.end();
        const { offset } = toLog(rest);
        const text = decoder.write(rest) + decoder.end();
        if (text !== '' && deliverToo) deliver(text, offset);
      };
      flushers.push(flush);
      stream.on('data', (chunk: Buffer) => {
        bytesOut += chunk.length;
        tail.push(chunk);
        touch();
        const safe = redact.push(chunk);
        const { offset, more } = toLog(safe);
        if (!more) {
          stream.pause();
          log.once('drain', () => stream.resume());
        }
        const text = decoder.write(safe);
        if (text !== '') deliver(text, offset);
      });
      stream.on('end', () => {
        flush(true);
        resolve();
      });
      stream.on('error', () => resolve());
      stream.on('close', () => resolve());
    });

  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.on('error', (error: NodeJS.ErrnoException) => {
      reason = 'spawn_failed';
      spawnError = error.code === 'ENOENT' ? `command not found: ${options.invocation.command}` : error.message;
      resolve({ code: null, signal: null });
    });
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });

  const stdoutDone = pipeStream(child.stdout, (text, offset) => options.onStdout(text, offset));
  const stderrDone = pipeStream(child.stderr, (text, offset) => options.onStderr?.(text, offset));

  const root = child.pid !== undefined ? treeRoot(child.pid, started) : null;

  // Suspension (`pause --now`): the clock of the hard timeout stops, the deadline moves by the time suspended.
  let hardLeftMs = options.hardTimeoutMs;
  let activeSince = started;
  let suspendedAt: number | null = null;
  let suspendedTotal = 0;
  let stoppedOutside: TaggedProcess[] = [];
  const arm = (): void => {
    if (options.idleTimeoutMs !== null) idle = idleTimer(options.idleTimeoutMs, () => terminate('idle_timeout'));
    if (hardLeftMs !== null) timers.push(timerAfter(hardLeftMs, () => terminate('iteration_timeout')));
    if (options.deadlineMs !== null) timers.push(timerAt(options.deadlineMs + suspendedTotal, () => terminate('deadline')));
  };
  const disarm = (): void => {
    for (const t of timers) t.cancel();
    timers = [];
    idle?.cancel();
    idle = null;
  };
  const onSuspend = (suspended: boolean): void => {
    const pid = child.pid;
    if (pid === undefined || killing) return;
    const at = Date.now();
    if (suspended && suspendedAt === null) {
      suspendedAt = at;
      if (hardLeftMs !== null) hardLeftMs = Math.max(0, hardLeftMs - (at - activeSince));
      disarm();
      signalGroup(pid, 'SIGSTOP');
      // What left the group (a `setsid` daemon) is stopped too, by its tag.
      stoppedOutside = findTagged((t) => t === tag, root).filter((p) => p.pid !== pid);
      for (const p of stoppedOutside) signalTagged(p, 'SIGSTOP');
    } else if (!suspended && suspendedAt !== null) {
      suspendedTotal += at - suspendedAt;
      suspendedAt = null;
      activeSince = at;
      for (const p of stoppedOutside) signalTagged(p, 'SIGCONT');
      stoppedOutside = [];
      signalGroup(pid, 'SIGCONT');
      arm();
    }
  };
  let unsubscribeSuspend: () => void = () => undefined;

  if (child.pid !== undefined) {
    options.onSpawn?.(child.pid);
    arm();
    if (options.suspend) {
      unsubscribeSuspend = options.suspend.subscribe(onSuspend);
      if (options.suspend.suspended) onSuspend(true);
    }
    if (options.signal?.aborted) terminate('aborted');
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.budgetSignal?.aborted) terminate('max_cost');
    else options.budgetSignal?.addEventListener('abort', onBudget, { once: true });
    child.stdin.on('error', () => undefined); // EPIPE when the agent does not read stdin
    if (options.invocation.stdin !== null) child.stdin.end(options.invocation.stdin);
    else child.stdin.end();
  }

  try {
    const { code, signal } = await exited;
    // The leader is gone; anything it left behind in its group goes too, before we wait for the pipes.
    if (child.pid !== undefined && (reason as ExitReason) !== 'spawn_failed' && options.sealed !== true) {
      if (!killing) killing = killGroup(child.pid, options.killGraceMs);
    }
    await killing;
    // A process killed while suspended: its stopped escapees are swept below (killTagged continues them).
    if (suspendedAt !== null) {
      suspendedTotal += Date.now() - suspendedAt;
      suspendedAt = null;
    }
    // Whatever left the group (a `setsid` daemon) still carries the tag: ended in the background, off the
    // critical path between iterations (the run awaits it with the log before it reports its end).
    swept = root !== null && options.sealed !== true ? killTagged((t) => t === tag, options.killGraceMs, root).catch(() => []) : Promise.resolve([]);
    // An escaped process may hold the pipes open: wait for the sweep then, and never more than 2 s after it.
    let pipesClosed = false;
    const pipes = Promise.all([stdoutDone, stderrDone]).then(() => {
      pipesClosed = true;
    });
    let pipeTimer: NodeJS.Timeout | undefined;
    const afterSweep = swept.then(() => (pipesClosed ? undefined : new Promise((r) => (pipeTimer = setTimeout(r, 2000)))));
    await Promise.race([pipes, afterSweep]);
    clearTimeout(pipeTimer);
    return {
      reason,
      exitCode: code,
      exitSignal: signal,
      durationMs: Math.max(0, Date.now() - started - suspendedTotal),
      suspendedMs: suspendedTotal,
      tail: redactText(tail.bytes().toString('utf8')),
      spawnError,
      bytesOut,
      logOmittedBytes: log.omittedBytes,
      logClosed,
      logError,
    };
  } finally {
    unsubscribeSuspend();
    disarm();
    options.signal?.removeEventListener('abort', onAbort);
    options.budgetSignal?.removeEventListener('abort', onBudget);
    child.stdout.destroy();
    child.stderr.destroy();
    closeLog();
  }
}
