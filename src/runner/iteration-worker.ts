// Entry of an iteration worker thread (see iteration-pool.ts): runs iterations it is sent with runIteration, as
// the main thread would, and reports spawn, activity, result and log closing as messages. Spawning a process
// blocks the thread that spawns it until the child has exec'd; here that blocks this thread, never the server's.
import { parentPort } from 'node:worker_threads';
import { getAdapter } from '../agents/registry.js';
import { createSuspendSwitch, type SuspendSwitch } from '../agents/suspend-signal.js';
import { runIteration } from './iteration.js';
import type { PoolRequest, PoolReply, WireInput } from './iteration-wire.js';

const port = parentPort;
if (port === null) throw new Error('iteration-worker.js runs as a worker thread');
const aborts = new Map<number, AbortController>();
const suspends = new Map<number, SuspendSwitch>();
const budgets = new Map<number, AbortController>();
const post = (reply: PoolReply): void => port.postMessage(reply);

async function run(id: number, input: WireInput, activity: boolean, spend: boolean): Promise<void> {
  const controller = new AbortController();
  aborts.set(id, controller);
  const budget = new AbortController();
  budgets.set(id, budget);
  const suspend = createSuspendSwitch();
  suspends.set(id, suspend);
  try {
    const outcome = await runIteration({
      ...input,
      adapter: getAdapter(input.agentSpec),
      signal: controller.signal,
      budgetSignal: budget.signal,
      suspend,
      onSpawn: (pid) => post({ type: 'spawn', id, pid }),
      onActivity: activity ? (body) => post({ type: 'activity', id, activity: body }) : null,
      onSpend: spend ? (usd) => post({ type: 'spend', id, usd }) : null,
    });
    const { logClosed, ...data } = outcome;
    post({ type: 'result', id, outcome: data });
    await logClosed;
    post({ type: 'log_closed', id });
  } catch (error) {
    post({ type: 'failed', id, message: error instanceof Error ? error.message : String(error) });
  } finally {
    aborts.delete(id);
    suspends.delete(id);
    budgets.delete(id);
  }
}

port.on('message', (request: PoolRequest) => {
  if (request.type === 'run') void run(request.id, request.input, request.activity, request.spend);
  else if (request.type === 'suspend') suspends.get(request.id)?.set(request.suspended);
  else if (request.type === 'budget') budgets.get(request.id)?.abort();
  else aborts.get(request.id)?.abort();
});
