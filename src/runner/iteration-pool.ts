// A pool of helper processes that run iterations for a process driving many runs (`ringmaster serve`, `ringmaster
// worker`): the agents' spawning, their pipes, log writing, stream parsing and signal scanning happen off the main
// thread, which keeps serving the API, the WebSocket and the store. Iterations the helpers cannot run (an agent a
// library registered in this process, a program's own completion scanner) run here as before.
// Processes, not worker threads: spawning an agent forks the spawning process, and the kernel copies the page
// tables of the whole process while holding its memory map locked. From a thread of a server with 500 loops (~450
// MB) each spawn took ~23 ms and stalled the main thread's page faults meanwhile (event-loop delay p99 14 -> 50 ms
// with two CPU-bound processes beside it); from a helper process of ~50 MB it costs a few ms and the main thread
// never waits for it (bench/FINDINGS.md).
import { redactor } from '../core/redact.js';
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { signalGroup } from '../os/process-group.js';
import { isBuiltInAgent } from '../agents/registry.js';
import { noRunResult, runIteration, type IterationInput, type IterationOutcomeData, type IterationRunner } from './iteration.js';
import type { PoolReply, PoolRequest, WireInput } from './iteration-wire.js';

interface Pending {
  input: IterationInput;
  worker: PoolWorker;
  resolve(outcome: IterationOutcomeData): void;
  logClosed: { promise: Promise<void>; resolve(): void };
  settled: boolean;
  onAbort: () => void;
  /** The agent's process group, once spawned (killed if its worker dies). */
  pid: number | null;
  /** Stops forwarding `pause --now` to the worker. */
  unsubscribe: () => void;
  onBudget: () => void;
}

interface PoolWorker {
  /** null when it could not even be forked (then also `dead`). */
  process: ChildProcess | null;
  running: number;
  /** It said it is ready (its module loaded): only then is it given iterations. */
  ready: boolean;
  /** Gone (its 'close' came, or the fork failed); replaced, after a pause when it died young. */
  dead: boolean;
  startedAt: number;
  /** Settles once it is ready or dead. */
  settled: Promise<void>;
}

/** A helper that dies sooner than this after its start is replaced after a pause (doubling, at most RESPAWN_MAX_MS). */
const YOUNG_MS = 10_000;
const RESPAWN_MAX_MS = 30_000;

/** The compiled helper entry (next to this module in dist/); absent when running from TypeScript sources. */
const WORKER_URL = new URL('./iteration-worker.js', import.meta.url);

/** True when helper processes can be used (the compiled entry exists). */
export function iterationWorkersAvailable(): boolean {
  return existsSync(fileURLToPath(WORKER_URL));
}

/** A pool of `size` helper processes; `run` is an IterationRunner. */
export class IterationPool {
  private readonly workers: PoolWorker[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  private respawnMs = 0;
  private readonly entry: URL;

  /** `entry`: the helper's module (tests give another). */
  constructor(size: number, options: { entry?: URL } = {}) {
    this.entry = options.entry ?? WORKER_URL;
    for (let i = 0; i < size; i++) this.workers.push(this.startWorker());
  }

  /** Helpers ready for iterations now. */
  get readyHelpers(): number {
    return this.readyWorkers().length;
  }

  /** Resolves once each helper started so far is ready (or has died): a server need not wait, a test does. */
  async started(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.settled));
  }

  /**
   * Runs one iteration on the least busy ready helper; here, for what a helper cannot run, and while no helper is
   * ready (the pool is starting, or its helpers cannot start: a fork refused at the process limit, a broken install).
   */
  readonly run: IterationRunner = (input) => {
    const ready = this.readyWorkers();
    if (this.closed || ready.length === 0 || input.completionScanner || !isBuiltInAgent(input.agentSpec.name)) return runIteration(input);
    const worker = ready.reduce((best, w) => (w.running < best.running ? w : best));
    const id = this.nextId++;
    let resolveLog!: () => void;
    const logPromise = new Promise<void>((resolve) => (resolveLog = resolve));
    return new Promise<IterationOutcomeData>((resolve) => {
      const onAbort = (): void => send(worker, { type: 'abort', id } satisfies PoolRequest);
      const onBudget = (): void => send(worker, { type: 'budget', id } satisfies PoolRequest);
      const entry: Pending = { input, worker, resolve, logClosed: { promise: logPromise, resolve: resolveLog }, settled: false, onAbort, onBudget, pid: null, unsubscribe: () => undefined };
      this.pending.set(id, entry);
      worker.running += 1;
      // The run first: an abort or a spent budget that comes before it would find no iteration in the helper.
      send(worker, { type: 'run', id, input: wire(input), activity: input.onActivity !== null, spend: (input.onSpend ?? null) !== null } satisfies PoolRequest);
      if (input.signal.aborted) onAbort();
      else input.signal.addEventListener('abort', onAbort, { once: true });
      if (input.budgetSignal?.aborted) onBudget();
      else input.budgetSignal?.addEventListener('abort', onBudget, { once: true });
      // `pause --now` reaches the supervisor in the helper as messages, in order after the run's.
      const suspend = input.suspend;
      if (suspend) {
        const tell = (suspended: boolean): void => send(worker, { type: 'suspend', id, suspended } satisfies PoolRequest);
        entry.unsubscribe = suspend.subscribe(tell);
        if (suspend.suspended) tell(true);
      }
    });
  };

  /** Ends the helper processes (after the runs using them have ended) and waits until they are gone. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.flatMap((w) => (w.process === null ? [] : [stopHelper(w.process)])));
  }

  private readyWorkers(): PoolWorker[] {
    return this.workers.filter((w) => w.ready && !w.dead && w.process?.connected === true);
  }

  private startWorker(): PoolWorker {
    // A small young generation: each helper's garbage is short-lived output chunks, and V8's default lets the
    // nursery grow to tens of MB (a larger process is a slower fork for every agent). None of this process's own
    // command-line Node options (`-e`, `--inspect`'s port, a test runner's loaders): the helper runs plain compiled
    // JavaScript. The compile cache of this process, if any, serves the helper's modules too. Its title is
    // `ringmaster-iter`.
    const cacheDir = process.getBuiltinModule('node:module').getCompileCacheDir?.();
    let settle!: () => void;
    const worker: PoolWorker = { process: null, running: 0, ready: false, dead: false, startedAt: Date.now(), settled: new Promise((resolve) => (settle = resolve)) };
    let child: ChildProcess;
    try {
      child = fork(fileURLToPath(this.entry), [], {
        serialization: 'advanced',
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        execArgv: ['--max-semi-space-size=1', '--heap-growing-percent=30'],
        env: cacheDir ? { ...process.env, NODE_COMPILE_CACHE: cacheDir } : process.env,
      });
    } catch (error) {
      // Most spawn failures come as an 'error' event; some (ENOMEM) are thrown: the same, retried after a pause.
      settle();
      this.onWorkerDeath(worker, error instanceof Error ? error.message : String(error));
      return worker;
    }
    worker.process = child;
    // Like an unref'd thread: the helper alone does not keep this process alive.
    child.unref();
    child.channel?.unref();
    child.on('message', (reply: PoolReply) => {
      if (reply.type !== 'ready') return this.onReply(reply);
      worker.ready = true;
      settle();
    });
    // A fork refused (EAGAIN at the process limit, EMFILE...): no process, no 'close'. Any other 'error' (a failed
    // send or kill) leaves the process to its 'close'.
    child.on('error', (error: Error) => {
      if (child.pid !== undefined) return;
      settle();
      this.onWorkerDeath(worker, error.message);
    });
    // Counted dead at 'close', not 'exit': 'close' comes after the channel's end, once every message the helper sent
    // has been handled (a `spawn` or `result` handled after the helper was counted dead would be lost). Node emits no
    // 'close' when this side disconnected first (close()), and a channel end that never comes must not hang the
    // pool: 'exit' then counts after a short wait.
    const died = (code: number | null, signal: NodeJS.Signals | null): void => {
      settle();
      this.onWorkerDeath(worker, signal ? `killed by ${signal}` : `exited with code ${code}`);
    };
    child.on('close', died);
    child.on('exit', (code, signal) => {
      if (this.closed) died(code, signal);
      else setTimeout(() => died(code, signal), 2000).unref();
    });
    return worker;
  }

  private onReply(reply: Exclude<PoolReply, { type: 'ready' }>): void {
    const entry = this.pending.get(reply.id);
    if (!entry) {
      // An agent spawned for an iteration this pool no longer waits for: nobody would supervise it.
      if (reply.type === 'spawn') signalGroup(reply.pid, 'SIGKILL');
      return;
    }
    switch (reply.type) {
      case 'spawn':
        entry.pid = reply.pid;
        entry.input.onSpawn?.(reply.pid);
        return;
      case 'activity':
        entry.input.onActivity?.(reply.activity);
        return;
      case 'spend':
        entry.input.onSpend?.(reply.usd);
        return;
      case 'result':
        this.settle(reply.id, entry, reply.outcome);
        return;
      case 'log_closed':
        entry.logClosed.resolve();
        this.pending.delete(reply.id);
        return;
      case 'failed':
        this.fail(reply.id, entry, `the iteration worker failed: ${reply.message}`);
    }
  }

  private settle(id: number, entry: Pending, outcome: Omit<IterationOutcomeData, 'logClosed'>): void {
    if (entry.settled) return;
    entry.settled = true;
    entry.worker.running -= 1;
    entry.input.signal.removeEventListener('abort', entry.onAbort);
    entry.input.budgetSignal?.removeEventListener('abort', entry.onBudget);
    entry.unsubscribe();
    entry.resolve({ ...outcome, logClosed: entry.logClosed.promise });
    void id;
  }

  private fail(id: number, entry: Pending, message: string): void {
    // Nobody supervises its agent any more: it must not go on alone.
    if (entry.pid !== null && !entry.settled) signalGroup(entry.pid, 'SIGKILL');
    this.settle(id, entry, { result: noRunResult(entry.input.model, 'agent_error', redactor(entry.input.env)(message)), malformedLines: 0, sessionCumulativeCost: null, text: '', warnings: [] });
    entry.logClosed.resolve();
    this.pending.delete(id);
  }

  /** A helper that dies fails its iterations (as values: the runs go on or stop by their rules) and is replaced. */
  private onWorkerDeath(worker: PoolWorker, why: string): void {
    if (worker.dead) return;
    worker.dead = true;
    // Also after close(): an iteration still waiting on a helper that is gone must end.
    for (const [id, entry] of this.pending) if (entry.worker === worker) this.fail(id, entry, `the iteration helper process died (${why})`);
    if (this.closed) return;
    // One that died young may die again at once (it cannot start): replaced after a pause that doubles each time.
    this.respawnMs = Date.now() - worker.startedAt < YOUNG_MS ? Math.min(Math.max(2 * this.respawnMs, 500), RESPAWN_MAX_MS) : 0;
    const replace = (): void => {
      const index = this.workers.indexOf(worker);
      if (!this.closed && index >= 0) this.workers[index] = this.startWorker();
    };
    if (this.respawnMs === 0) replace();
    else setTimeout(replace, this.respawnMs).unref();
  }
}

/** Sends a request to a helper; one that is gone is reported by its 'close' event, not here. */
function send(worker: PoolWorker, request: PoolRequest): void {
  if (worker.process?.connected === true) worker.process.send(request, (error) => void error);
}

/** Ends a helper: it exits when its channel closes (iteration-worker.ts); SIGKILL if it has not after 5 s. */
async function stopHelper(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.disconnect();
  else child.kill('SIGKILL');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

function wire(input: IterationInput): WireInput {
  const { adapter: _adapter, signal: _signal, budgetSignal: _budget, suspend: _suspend, onSpawn: _onSpawn, onActivity: _onActivity, onSpend: _onSpend, completionScanner: _scanner, ...rest } = input;
  return { ...rest, env: { ...rest.env } };
}
