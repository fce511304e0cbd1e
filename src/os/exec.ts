// Runs a short helper process for the task loop and the run's verify gate (a completion check, a hook, a task
// command): argv only
// (never a shell unless the argv says so), bounded by a timeout and an AbortSignal, output kept within a fixed
// number of bytes. Contained as an agent is: its own process group killed at the end whatever happened, and what
// left the group (a `setsid` daemon) found by its RINGMASTER_AGENT_TAG and ended too (docs/processes.md).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { killGroup } from './process-group.js';
import { AGENT_TAG_VARIABLE, killTagged, treeRoot } from './process-tag.js';

/** What to run and how long to let it. */
export interface ExecOptions {
  argv: readonly string[];
  cwd: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** Written to stdin, which is then closed (null: stdin closed at once). */
  stdin?: string | null;
  timeoutMs: number | null;
  signal?: AbortSignal;
  /** Bytes of stdout kept from the start (e.g. a task list); more is an error `stdout_overflow`. Default 0. */
  stdoutBytes?: number;
  /** Bytes of the end of stdout and stderr (interleaved) kept for messages. Default 16 KiB. */
  tailBytes?: number;
  killGraceMs?: number;
}

/** How a helper process ended. Never thrown: failures are values. */
export interface ExecResult {
  /** exited: ran to its end (see exitCode); the others: killed or never started. */
  reason: 'exited' | 'timeout' | 'aborted' | 'spawn_failed' | 'stdout_overflow';
  exitCode: number | null;
  exitSignal: string | null;
  stdout: string;
  /** Last `tailBytes` of the output, with a note when the start was cut. */
  tail: string;
  durationMs: number;
  /** Spawn error message when reason is spawn_failed. */
  error: string | null;
}

/** Runs `argv` to its end (or its limit) and returns how it went. */
export async function execBounded(options: ExecOptions): Promise<ExecResult> {
  const started = Date.now();
  const [command, ...args] = options.argv;
  const graceMs = options.killGraceMs ?? 2000;
  const none = (error: string): ExecResult => ({ reason: 'spawn_failed', exitCode: null, exitSignal: null, stdout: '', tail: '', durationMs: 0, error });
  if (command === undefined || command === '') return none('empty command');
  if (options.signal?.aborted) return { ...none('aborted before start'), reason: 'aborted' };

  // Its own tag (an agent's check would otherwise carry the agent's, and the agent's own sweep is not ours).
  const tag = `helper/${randomUUID()}`;
  const child = spawnHelper(command, args, options, tag);
  const root = child.pid === undefined ? null : treeRoot(child.pid, started);

  let reason: ExecResult['reason'] = 'exited';
  let spawnError: string | null = null;
  let killing: Promise<void> | null = null;
  const stop = (why: ExecResult['reason']): void => {
    if (killing || child.pid === undefined) return;
    reason = why;
    killing = killGroup(child.pid, graceMs);
  };
  const output = collectOutput(child, options.tailBytes ?? 16 * 1024, options.stdoutBytes ?? 0, () => stop('stdout_overflow'));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.on('error', (error: NodeJS.ErrnoException) => {
      reason = 'spawn_failed';
      spawnError = error.code === 'ENOENT' ? `command not found: ${command}` : error.message;
      resolve({ code: null, signal: null });
    });
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const onAbort = (): void => stop('aborted');
  const timer = options.timeoutMs === null ? null : setTimeout(() => stop('timeout'), options.timeoutMs);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  child.stdin.on('error', () => undefined); // EPIPE when the process does not read its stdin
  child.stdin.end(options.stdin ?? undefined);
  try {
    const { code, signal } = await exited;
    // The leader is gone: whatever it left running in its group goes too; then the pipes drain (bounded
    // wait: a process that left the group could hold them open).
    if (child.pid !== undefined && (reason as ExecResult['reason']) !== 'spawn_failed' && !killing) killing = killGroup(child.pid, graceMs);
    await killing;
    // Whatever left the group (`setsid daemon &`) still carries the tag.
    if (root !== null) await killTagged((t) => t === tag, graceMs, root).catch(() => []);
    let drain: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise((r) => (drain = setTimeout(r, 2000)))]);
    clearTimeout(drain);
    const ended = { reason, exitCode: code, exitSignal: signal, durationMs: Date.now() - started, error: spawnError };
    return { ...ended, stdout: output.stdout(), tail: output.tail() };
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    child.stdout.destroy();
    child.stderr.destroy();
  }
}

/** Starts the helper in its own process group, its environment carrying the tag. */
function spawnHelper(command: string, args: string[], options: ExecOptions, tag: string): ChildProcessWithoutNullStreams {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.env ?? process.env)) if (v !== undefined) env[k] = v;
  env[AGENT_TAG_VARIABLE] = tag;
  return spawn(command, args, { cwd: options.cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
}

/**
 * Keeps the first `stdoutMax` bytes of stdout (more calls `onOverflow`, what came before is kept) and the last
 * `tailMax` bytes of stdout and stderr interleaved, with a note when the start was cut.
 */
function collectOutput(child: ChildProcessWithoutNullStreams, tailMax: number, stdoutMax: number, onOverflow: () => void): { stdout(): string; tail(): string } {
  const out: Buffer[] = [];
  let outSize = 0;
  const tail: Buffer[] = [];
  let tailSize = 0;
  let dropped = false;
  const keepTail = (chunk: Buffer): void => {
    tail.push(chunk);
    tailSize += chunk.length;
    while (tail.length > 1 && tailSize - (tail[0]?.length ?? 0) >= tailMax) {
      tailSize -= tail.shift()?.length ?? 0;
      dropped = true;
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    keepTail(chunk);
    if (stdoutMax <= 0) return;
    if (outSize + chunk.length > stdoutMax) onOverflow();
    else {
      out.push(chunk);
      outSize += chunk.length;
    }
  });
  child.stderr.on('data', keepTail);
  return {
    stdout: () => Buffer.concat(out).toString('utf8'),
    tail: () => {
      const all = Buffer.concat(tail);
      const text = all.subarray(Math.max(0, all.length - tailMax)).toString('utf8');
      return dropped || all.length > tailMax ? `[… earlier output cut]\n${text}` : text;
    },
  };
}

/** A one-line account of how a helper process ended: "exited 1", "timed out after 10s", ... */
export function describeExit(result: ExecResult, timeoutMs: number | null): string {
  switch (result.reason) {
    case 'exited':
      return result.exitCode === null ? `killed by ${result.exitSignal ?? 'a signal'}` : `exited ${result.exitCode}`;
    case 'timeout':
      return `timed out after ${Math.round((timeoutMs ?? 0) / 1000)}s (killed)`;
    case 'aborted':
      return 'interrupted (killed)';
    case 'spawn_failed':
      return `could not start: ${result.error ?? 'unknown error'}`;
    case 'stdout_overflow':
      return 'printed too much (killed)';
  }
}

/** "<what> exited 1: last lines of output", for errors and warnings about a helper process. */
export function failureText(what: string, result: ExecResult, timeoutMs: number | null): string {
  const last = result.tail.trim().split('\n').slice(-3).join(' / ');
  return `${what} ${describeExit(result, timeoutMs)}${last ? `: ${last}` : ''}`;
}
