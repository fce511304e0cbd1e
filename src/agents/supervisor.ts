// Runs one agent process: own process group, prompt on stdin, output to a log file with backpressure,
// idle and hard timeouts, abort, and the whole group killed at the end whatever happened.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { killGroup } from './process-group.js';
import type { Invocation } from './types.js';

/** Why a supervised process ended. */
export type ExitReason = 'exited' | 'idle_timeout' | 'iteration_timeout' | 'deadline' | 'aborted' | 'spawn_failed';

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
  /** Aborts the process (SIGINT/SIGTERM of ringmaster, user stop). */
  signal?: AbortSignal;
  /** Decoded stdout text, in order. */
  onStdout(text: string, offset: number): void;
  /** Decoded stderr text, in order. */
  onStderr?(text: string, offset: number): void;
  /** Called once the process is started, with its pid (= process group id). */
  onSpawn?(pid: number): void;
}

/** How a supervised process ended. */
export interface SupervisedExit {
  reason: ExitReason;
  exitCode: number | null;
  exitSignal: string | null;
  durationMs: number;
  /** Last `tailBytes` of output (stdout and stderr interleaved). */
  tail: string;
  /** Spawn error message (e.g. ENOENT) when reason is spawn_failed. */
  spawnError: string | null;
  bytesOut: number;
  /** Settles once the log file is flushed and closed (not awaited here: it is off the iteration's critical path). */
  logClosed: Promise<void>;
}

/** Keeps the last N bytes of a byte stream. */
class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    if (this.max <= 0) return;
    const piece = chunk.length > this.max ? chunk.subarray(chunk.length - this.max) : chunk;
    this.chunks.push(piece);
    this.size += piece.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.max) {
      this.size -= this.chunks.shift()?.length ?? 0;
    }
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.max)).toString('utf8');
  }
}

/** Runs the invocation to completion and returns how it ended. Never throws for process failures. */
export async function supervise(options: SuperviseOptions): Promise<SupervisedExit> {
  const started = Date.now();
  mkdirSync(dirname(options.logPath), { recursive: true });
  // Opened asynchronously: the agent starts while the file is being created (writes are buffered until then).
  const log = createWriteStream(options.logPath, { flags: 'a' });
  const tail = new Tail(options.tailBytes);
  let closeLog: () => void = () => undefined;
  const logClosed = new Promise<void>((resolve) => {
    closeLog = () => log.end(resolve);
  });
  let bytesOut = 0;

  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.invocation.env)) if (v !== undefined) env[k] = v;

  const child = spawn(options.invocation.command, options.invocation.args, {
    cwd: options.cwd,
    env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });

  let reason: ExitReason = 'exited';
  let spawnError: string | null = null;
  let killing: Promise<void> | null = null;
  const timers: NodeJS.Timeout[] = [];

  const terminate = (why: ExitReason): void => {
    if (killing || child.pid === undefined) return;
    reason = why;
    killing = killGroup(child.pid, options.killGraceMs);
  };

  let idleTimer: NodeJS.Timeout | null = null;
  const touch = (): void => {
    if (options.idleTimeoutMs === null) return;
    if (idleTimer) idleTimer.refresh();
    else idleTimer = setTimeout(() => terminate('idle_timeout'), options.idleTimeoutMs);
  };

  const onAbort = (): void => terminate('aborted');

  const pipeStream = (stream: NodeJS.ReadableStream, deliver: (text: string, offset: number) => void): Promise<void> =>
    new Promise((resolve) => {
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => {
        // Where this chunk starts in the log (stdout and stderr share it, in arrival order).
        const offset = bytesOut;
        bytesOut += chunk.length;
        tail.push(chunk);
        touch();
        if (!log.write(chunk)) {
          stream.pause();
          log.once('drain', () => stream.resume());
        }
        const text = decoder.write(chunk);
        if (text !== '') deliver(text, offset);
      });
      stream.on('end', () => {
        const rest = decoder.end();
        if (rest !== '') deliver(rest, bytesOut);
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

  if (child.pid !== undefined) {
    options.onSpawn?.(child.pid);
    touch();
    if (options.hardTimeoutMs !== null) timers.push(setTimeout(() => terminate('iteration_timeout'), options.hardTimeoutMs));
    if (options.deadlineMs !== null) timers.push(setTimeout(() => terminate('deadline'), Math.max(0, options.deadlineMs - Date.now())));
    if (options.signal?.aborted) terminate('aborted');
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdin.on('error', () => undefined); // EPIPE when the agent does not read stdin
    if (options.invocation.stdin !== null) child.stdin.end(options.invocation.stdin);
    else child.stdin.end();
  }

  try {
    const { code, signal } = await exited;
    // The leader is gone; anything it left behind in its group goes too, before we wait for the pipes.
    if (child.pid !== undefined && (reason as ExitReason) !== 'spawn_failed') {
      if (!killing) killing = killGroup(child.pid, options.killGraceMs);
    }
    await killing;
    // A process that escaped the group could hold the pipes open: do not wait for them forever.
    let pipeTimer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all([stdoutDone, stderrDone]), new Promise((r) => (pipeTimer = setTimeout(r, 2000)))]);
    clearTimeout(pipeTimer);
    return {
      reason,
      exitCode: code,
      exitSignal: signal,
      durationMs: Date.now() - started,
      tail: tail.text(),
      spawnError,
      bytesOut,
      logClosed,
    };
  } finally {
    for (const t of timers) clearTimeout(t);
    if (idleTimer) clearTimeout(idleTimer);
    options.signal?.removeEventListener('abort', onAbort);
    child.stdout.destroy();
    child.stderr.destroy();
    closeLog();
  }
}
