// A pool of worker threads that run iterations for a process driving many runs (`ringmaster serve`): the agents'
// spawning (which blocks the spawning thread until the child execs: milliseconds each on a busy machine),
// their pipes, log writing, stream parsing and signal scanning happen off the main thread, which keeps serving
// the API, the WebSocket and the store. Iterations the workers cannot run (an agent a library registered in
// this thread, a program's own completion scanner) run here as before.
import { redactor } from '../core/redact.js';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
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
  thread: Worker;
  running: number;
}

/** The compiled worker entry (next to this module in dist/); absent when running from TypeScript sources. */
const WORKER_URL = new URL('./iteration-worker.js', import.meta.url);

/** True when worker threads can be used (the compiled entry exists). */
export function iterationWorkersAvailable(): boolean {
  return existsSync(fileURLToPath(WORKER_URL));
}

/** A pool of `size` worker threads; `run` is an IterationRunner. */
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
      const onAbort = (): void => worker.thread.postMessage({ type: 'abort', id } satisfies PoolRequest);
      const onBudget = (): void => worker.thread.postMessage({ type: 'budget', id } satisfies PoolRequest);
      const entry: Pending = { input, worker, resolve, logClosed: { promise: logPromise, resolve: resolveLog }, settled: false, onAbort, onBudget, pid: null, unsubscribe: () => undefined };
      this.pending.set(id, entry);
      worker.running += 1;
      if (input.signal.aborted) onAbort();
      else input.signal.addEventListener('abort', onAbort, { once: true });
      worker.thread.postMessage({ type: 'run', id, input: wire(input), activity: input.onActivity !== null, spend: (input.onSpend ?? null) !== null } satisfies PoolRequest);
      if (input.budgetSignal?.aborted) onBudget();
      else input.budgetSignal?.addEventListener('abort', onBudget, { once: true });
      // `pause --now` reaches the supervisor in the worker thread as messages, in order after the run's.
      const suspend = input.suspend;
      if (suspend) {
        const tell = (suspended: boolean): void => worker.thread.postMessage({ type: 'suspend', id, suspended } satisfies PoolRequest);
        entry.unsubscribe = suspend.subscribe(tell);
        if (suspend.suspended) tell(true);
      }
    });
  };

  /** Ends the worker threads (after the runs using them have ended). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.thread.terminate()));
  }

  private startWorker(): PoolWorker {
    // A small young generation: each thread's garbage is short-lived output chunks, and V8's default lets every
    // thread's nursery grow to tens of MB (server RSS 455 MB instead of 250 MB after 6,000 iterations: FINDINGS.md).
    // Named: the thread shows as `ringmaster-iter` in `top -H`, `ps -L` and /proc/<pid>/task/*/comm.
    const thread = new Worker(WORKER_URL, { name: 'ringmaster-iter', resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    const worker: PoolWorker = { thread, running: 0 };
    thread.unref();
    thread.on('message', (reply: PoolReply) => this.onReply(reply));
    thread.on('error', (error: Error) => this.onWorkerDeath(worker, error.message));
    thread.on('exit', (code) => {
      if (!this.closed) this.onWorkerDeath(worker, `exited with code ${code}`);
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

  /** A worker that dies fails its iterations (as values: the runs go on or stop by their rules) and is replaced. */
  private onWorkerDeath(worker: PoolWorker, why: string): void {
    for (const [id, entry] of this.pending) if (entry.worker === worker) this.fail(id, entry, `the iteration worker thread died (${why})`);
    const index = this.workers.indexOf(worker);
    if (index >= 0 && !this.closed) this.workers[index] = this.startWorker();
  }
}

function wire(input: IterationInput): WireInput {
  const { adapter: _adapter, signal: _signal, budgetSignal: _budget, suspend: _suspend, onSpawn: _onSpawn, onActivity: _onActivity, onSpend: _onSpend, completionScanner: _scanner, ...rest } = input;
  return { ...rest, env: { ...rest.env } };
}
