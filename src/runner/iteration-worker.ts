// Entry of an iteration helper process (see iteration-pool.ts): runs iterations it is sent with runIteration, as
// the server's process would, and reports spawn, activity, result and log closing as messages on its IPC channel.
// Spawning an agent forks this small process, never the server's. It exits when the channel closes: the pool
// closed it, or the server is gone (its agents, in their own process groups, are then left to the recovery of
// their runs, as when the server's own process dies).
import { getAdapter } from '../agents/registry.js';
import { createSuspendSwitch, type SuspendSwitch } from '../agents/suspend-signal.js';
import { runIteration } from './iteration.js';
import type { AgentActivityBody } from './events.js';
import type { PoolRequest, PoolReply, WireInput } from './iteration-wire.js';

const send = process.send?.bind(process);
if (send === undefined) throw new Error('iteration-worker.js runs as a helper process of an iteration pool');
process.title = 'ringmaster-iter';
const aborts = new Map<number, AbortController>();
const suspends = new Map<number, SuspendSwitch>();
const budgets = new Map<number, AbortController>();
const post = (reply: PoolReply, written?: () => void): void => {
  if (process.connected) send(reply, undefined, undefined, () => written?.());
};

/**
 * Live output sent to the server and not yet written to the channel (characters) is held under these, per iteration
 * and for the helper: an agent flooding its output faster than the server takes the messages (1 GiB: ~300 MB of
 * queued messages in this process) has its live pieces dropped meanwhile, and one flooding agent does not silence
 * the others. Only the live view misses them (the next piece's offset shows the gap); the log has every byte, and
 * the iteration's stored activity is read from it.
 */
const LIVE_OUTPUT_BACKLOG = { iteration: 1024 * 1024, helper: 8 * 1024 * 1024 };
const liveBacklog = new Map<number, number>();
let helperBacklog = 0;

function postActivity(id: number, activity: AgentActivityBody): void {
  if (activity.kind !== 'output') return post({ type: 'activity', id, activity });
  const mine = liveBacklog.get(id) ?? 0;
  if (mine > LIVE_OUTPUT_BACKLOG.iteration || helperBacklog > LIVE_OUTPUT_BACKLOG.helper) return;
  const size = activity.text.length;
  liveBacklog.set(id, mine + size);
  helperBacklog += size;
  post({ type: 'activity', id, activity }, () => {
    helperBacklog -= size;
    const left = (liveBacklog.get(id) ?? size) - size;
    if (left > 0) liveBacklog.set(id, left);
    else liveBacklog.delete(id);
  });
}

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
      onActivity: activity ? (body) => postActivity(id, body) : null,
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

process.on('disconnect', () => process.exit(0));
// The server's own shutdown ends its runs, and with them this helper's iterations, then closes the channel. Ctrl+C in
// a terminal (SIGINT to the whole foreground group), systemd's stop (SIGTERM to every process of the service) and a
// closed terminal (SIGHUP) reach this helper too: it must not die under the iterations the server is ending.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);
process.on('message', (request: PoolRequest) => {
  if (request.type === 'run') void run(request.id, request.input, request.activity, request.spend);
  else if (request.type === 'suspend') suspends.get(request.id)?.set(request.suspended);
  else if (request.type === 'budget') budgets.get(request.id)?.abort();
  else aborts.get(request.id)?.abort();
});
post({ type: 'ready' });
