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
  process: ChildProcess;
  running: number;
}

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

  constructor(private readonly size: number) {
    for (let i = 0; i < size; i++) this.workers.push(this.startWorker());
  }

  /** Runs one iteration on the least busy worker (or here, for what a worker cannot run). */
  readonly run: IterationRunner = (input) => {
    if (this.closed || input.completionScanner || !isBuiltInAgent(input.agentSpec.name)) return runIteration(input);
    const worker = this.workers.reduce((best, w) => (w.running < best.running ? w : best));
    const id = this.nextId++;
    let resolveLog!: () => void;
    const logPromise = new Promise<void>((resolve) => (resolveLog = resolve));
    return new Promise<IterationOutcomeData>((resolve) => {
      const onAbort = (): void => send(worker, { type: 'abort', id } satisfies PoolRequest);
      const onBudget = (): void => send(worker, { type: 'budget', id } satisfies PoolRequest);
      const entry: Pending = { input, worker, resolve, logClosed: { promise: logPromise, resolve: resolveLog }, settled: false, onAbort, onBudget, pid: null, unsubscribe: () => undefined };
      this.pending.set(id, entry);
      worker.running += 1;
      if (input.signal.aborted) onAbort();
      else input.signal.addEventListener('abort', onAbort, { once: true });
      send(worker, { type: 'run', id, input: wire(input), activity: input.onActivity !== null, spend: (input.onSpend ?? null) !== null } satisfies PoolRequest);
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
    await Promise.all(this.workers.map((w) => stopHelper(w.process)));
  }

  private startWorker(): PoolWorker {
    // A small young generation: each helper's garbage is short-lived output chunks, and V8's default lets the
    // nursery grow to tens of MB (a larger process is a slower fork for every agent). None of this process's own
    // Node options (`-e`, `--inspect`'s port, a test runner's loaders): the helper runs plain compiled JavaScript.
    // The compile cache of this process, if any, serves the helper's modules too. Its title is `ringmaster-iter`.
    const cacheDir = process.getBuiltinModule('node:module').getCompileCacheDir?.();
    const child = fork(fileURLToPath(WORKER_URL), [], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: ['--max-semi-space-size=1', '--heap-growing-percent=30'],
      env: cacheDir ? { ...process.env, NODE_COMPILE_CACHE: cacheDir } : process.env,
    });
    const worker: PoolWorker = { process: child, running: 0 };
    // Like an unref'd thread: the helper alone does not keep this process alive.
    child.unref();
    child.channel?.unref();
    child.on('message', (reply: PoolReply) => this.onReply(reply));
    child.on('error', (error: Error) => {
      if (!this.closed) this.onWorkerDeath(worker, error.message);
    });
    child.on('exit', (code, signal) => {
      if (!this.closed) this.onWorkerDeath(worker, signal ? `killed by ${signal}` : `exited with code ${code}`);
    });
    return worker;
  }

  private onReply(reply: PoolReply): void {
    const entry = this.pending.get(reply.id);
    if (!entry) return;
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
    const index = this.workers.indexOf(worker);
    if (index < 0) return; // already replaced ('error' and 'exit' may both come)
    for (const [id, entry] of this.pending) if (entry.worker === worker) this.fail(id, entry, `the iteration helper process died (${why})`);
    this.workers[index] = this.startWorker();
  }
}

/** Sends a request to a helper; one that is gone is reported by its 'exit' event, not here. */
function send(worker: PoolWorker, request: PoolRequest): void {
  if (worker.process.connected) worker.process.send(request, (error) => void error);
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
