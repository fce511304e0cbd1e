// One notification to one target: a POST to a webhook or a run of notify.command (argv, never a shell, the JSON on
// stdin), each attempt time-limited, retried with backoff while the failure may pass (network, timeout, HTTP 5xx
// or 429, a command's non-zero exit). Never throws: the result says what the target answered or why it failed.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { redactorOf, type Redactor } from '../core/redact.js';
import { webhookRequest, type Notification } from './payload.js';
import type { Target } from './targets.js';

/** How hard a delivery tries. */
export interface DeliveryPolicy {
  /** Tries at most (the first included). */
  attempts: number;
  /** Time limit of one try (a webhook's answer, a command's run). */
  timeoutMs: number;
  /** Pause before the second try; each next pause is 4 times longer. */
  backoffMs: number;
}

/** 3 tries of at most 10 s, 1 s then 4 s apart. */
export const DEFAULT_POLICY: DeliveryPolicy = { attempts: 3, timeoutMs: 10_000, backoffMs: 1_000 };

/** The end of a delivery. */
export interface DeliveryResult {
  status: 'delivered' | 'failed';
  attempts: number;
  /** What the target answered last (`HTTP 200 ok`, `exit 0: sent`), or null when it never answered. */
  answer: string | null;
  /** Why it failed; null when delivered. */
  reason: string | null;
}

/** One try: what was answered, whether it worked, and whether trying again may help. */
interface Attempt {
  ok: boolean;
  answer: string | null;
  reason: string | null;
  retry: boolean;
}

const ANSWER_CHARS = 200;
/** How long a command's output may stay open after it exited (a stray process holding it). */
const PIPE_GRACE_MS = 500;

/**
 * Delivers `n` to `target`; `signal` abandons it (the result is then failed, with the signal's reason). `onAttempt`
 * hears each try as it starts (its number).
 */
export async function deliver(target: Target, n: Notification, policy: DeliveryPolicy, signal: AbortSignal, onAttempt?: (attempt: number) => void): Promise<DeliveryResult> {
  // A webhook's URL never shows in a reason (an error message may quote it).
  const redact = target.kind === 'webhook' ? redactorOf([{ name: 'webhook URL', value: target.webhook.url }]) : redactorOf([]);
  let last: Attempt = { ok: false, answer: null, reason: 'not tried', retry: false };
  let attempts = 0;
  while (attempts < policy.attempts) {
    if (attempts > 0) {
      const stopped = await sleep(policy.backoffMs * 4 ** (attempts - 1), false, { signal }).catch(() => true);
      if (stopped) break;
    }
    if (signal.aborted) break;
    attempts += 1;
    onAttempt?.(attempts);
    last = target.kind === 'webhook' ? await postOnce(target.webhook.url, target.webhook.format, n, policy.timeoutMs, signal) : await runOnce(target.argv, target.cwd, n, policy.timeoutMs, signal);
    if (last.ok) return { status: 'delivered', attempts, answer: clean(last.answer, redact), reason: null };
    if (!last.retry) break;
  }
  const why = abandoned(signal);
  const reason = signal.aborted ? `${why}${last.reason === null || last.reason === 'not tried' || last.reason === why ? '' : ` (last: ${last.reason})`}` : last.reason;
  return { status: 'failed', attempts, answer: clean(last.answer, redact), reason: clean(reason, redact) };
}

/** The reason an abandoned delivery gives: the signal's, unless it is a bare abort. */
export function abandoned(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.name !== 'AbortError' ? reason.message : 'abandoned';
}

function clean(text: string | null, redact: Redactor): string | null {
  return text === null ? null : redact(text).replace(/\s+/g, ' ').trim().slice(0, ANSWER_CHARS);
}

/**
 * One POST. Its time limit and the abandon signal end the attempt by a timer of its own as well as through fetch's
 * signal: fetch's link to a signal is known to be lost under garbage collection (nodejs/undici#4068), and a try
 * that never ends would hold its delivery forever.
 */
async function postOnce(url: string, format: Parameters<typeof webhookRequest>[1], n: Notification, timeoutMs: number, signal: AbortSignal): Promise<Attempt> {
  const request = webhookRequest(n, format);
  const stop = new AbortController();
  let timedOut = false;
  let fail: (error: Error) => void = () => undefined;
  const ended = new Promise<never>((_, reject) => {
    fail = reject;
  });
  ended.catch(() => undefined);
  const end = (): void => {
    stop.abort(signal.aborted ? signal.reason : new Error('timeout'));
    fail(new Error('the attempt ended'));
  };
  const timer = setTimeout(() => {
    timedOut = true;
    end();
  }, timeoutMs);
  if (signal.aborted) end();
  else signal.addEventListener('abort', end, { once: true });
  try {
    const post = async (): Promise<Attempt> => {
      const response = await fetch(url, { method: 'POST', body: request.body, headers: { 'user-agent': 'ringmaster', ...request.headers }, redirect: 'error', signal: stop.signal });
      const text = (await response.text().catch(() => '')).slice(0, ANSWER_CHARS);
      const answer = `HTTP ${response.status}${text.trim() === '' ? '' : ` ${text.trim()}`}`;
      if (response.ok) return { ok: true, answer, reason: null, retry: false };
      return { ok: false, answer, reason: answer, retry: response.status >= 500 || response.status === 429 || response.status === 408 };
    };
    return await Promise.race([post(), ended]);
  } catch (error) {
    if (timedOut && !signal.aborted) return { ok: false, answer: null, reason: `no answer within ${timeoutMs / 1000}s`, retry: true };
    if (signal.aborted) return { ok: false, answer: null, reason: abandoned(signal), retry: false };
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return { ok: false, answer: null, reason: `${error instanceof Error ? error.message : String(error)}${cause}`, retry: true };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', end);
  }
}

/** Runs the command in its own process group with the JSON on stdin; killed whole at the time limit. */
function runOnce(argv: readonly string[], cwd: string, n: Notification, timeoutMs: number, signal: AbortSignal): Promise<Attempt> {
  return new Promise((resolve) => {
    const [program, ...args] = argv;
    const child = spawn(program ?? '', args, { cwd, stdio: ['pipe', 'pipe', 'pipe'], detached: true, shell: false });
    let output = '';
    const keep = (chunk: Buffer): void => {
      if (output.length < ANSWER_CHARS) output += chunk.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.stdin.on('error', () => undefined);
    let why: string | null = null;
    const kill = (reason: string): void => {
      why ??= reason;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => kill(`no exit within ${timeoutMs / 1000}s`), timeoutMs);
    const onAbort = (): void => kill(abandoned(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    const done = (attempt: Attempt): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(attempt);
    };
    child.on('error', (error) => done({ ok: false, answer: null, reason: error.message, retry: false }));
    // A process it left behind (in a session of its own: the group kill misses it) may hold its output open: once
    // the command has exited, its pipes get a moment, then are closed here, so that 'close' comes.
    child.on('exit', () => {
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, PIPE_GRACE_MS).unref();
    });
    child.on('close', (code, exitSignal) => {
      const first = output.trim().split('\n')[0] ?? '';
      const answer = `exit ${code ?? exitSignal ?? '?'}${first === '' ? '' : `: ${first}`}`;
      if (why !== null) done({ ok: false, answer: null, reason: why, retry: !signal.aborted });
      else done({ ok: code === 0, answer, reason: code === 0 ? null : answer, retry: code !== 0 });
    });
    child.stdin.end(`${JSON.stringify(n)}\n`);
  });
}
