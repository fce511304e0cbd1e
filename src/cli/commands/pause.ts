// `ringmaster pause <run>`: asks the process that drives a run (a terminal, a server, a worker) to pause it at
// the next iteration boundary, or with --now to suspend its agent at once, through the store.
import { EXIT, UserError } from '../../core/errors.js';
import type { Store } from '../../store/store.js';
import type { CliIO, Command } from '../command.js';
import { isQueued } from '../../store/liveness.js';
import { awaitControl, findControllableRun, hasLiveOwner, notActive, requestControl, requestOfQueued } from './control-common.js';
import { HISTORY_OPTIONS, openWorkspaceStore, parseHistoryArgs, runIdArgument } from './history-common.js';

/** How long to wait for the owner to answer (it polls every 250 ms). */
const ANSWER_TIMEOUT_MS = 10_000;

async function pause(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseHistoryArgs('pause', args, { ...HISTORY_OPTIONS, wait: { type: 'boolean' }, now: { type: 'boolean' } });
  const id = runIdArgument('pause', positionals);
  const { workspace, store } = await openWorkspaceStore(values.cwd, io);
  try {
    const run = await findControllableRun(store, id, workspace);
    if (isQueued(run)) return await requestOfQueued(store, run, 'pause', io);
    const now = values.now === true;
    if (run.status === 'paused' && hasLiveOwner(run)) {
      io.stdout.write(`run ${run.id} is already paused\n`);
      return EXIT.success;
    }
    if (!hasLiveOwner(run)) {
      if (run.status === 'completed' || run.status === 'stopped' || run.status === 'failed') throw notActive(run);
      throw new UserError(`run ${run.id} has no live process (orphaned): 'ringmaster resume ${run.id}' continues it, 'ringmaster stop ${run.id}' closes it`, EXIT.failure);
    }
    const lastSeq = await store.lastEventSeq(run.id);
    const request = await requestControl(store, run, 'pause', now ? { now } : {});
    // An immediate pause is waited for: the run is paused as soon as its answer is recorded (with or without an agent to suspend).
    const first = await awaitControl(store, request, (r) => !now || r.status !== 'running', ANSWER_TIMEOUT_MS);
    if (first.answer === null) {
      throw new UserError(`asked run ${run.id} to pause, but its process (pid ${run.owner_pid ?? '?'} on ${run.owner_host ?? '?'}) has not answered yet`, EXIT.failure);
    }
    if (first.answer === 'not_running') throw notActive(first.run ?? run);
    if (first.answer === 'already') io.stdout.write(`run ${run.id} is already pausing\n`);
    else if (now) io.stdout.write(await immediatePauseText(store, run.id, lastSeq));
    else io.stdout.write(`asked run ${run.id} to pause: it pauses after its current iteration\n`);
    if (values.wait) {
      const paused = await awaitControl(store, request, (r) => r.status === 'paused', Number.MAX_SAFE_INTEGER);
      io.stdout.write(paused.run?.status === 'paused' ? `run ${run.id} is paused\n` : `run ${run.id} ended (${paused.run?.status ?? 'gone'})\n`);
    }
    return EXIT.success;
  } finally {
    await store.close();
  }
}

/** What an immediate pause did, from the run's events since the request. */
async function immediatePauseText(store: Store, runId: string, afterSeq: number): Promise<string> {
  const paused = (await store.listEvents(runId, { afterSeq })).find((e) => e.type === 'paused');
  if (paused === undefined) return `asked run ${runId} to pause now\n`;
  const suspended = (paused.payload as { suspended?: unknown }).suspended === true;
  return suspended
    ? `run ${runId} is paused: its agent is suspended mid-iteration ('ringmaster resume ${runId}' continues it)\n`
    : `run ${runId} is paused: no agent was running\n`;
}

/** The `pause` command. */
export const pauseCommand: Command = {
  name: 'pause',
  usage: `Usage: ringmaster pause <run> [--now] [--wait] [--json]

Asks the process that drives the run (a terminal, 'ringmaster serve', a worker) to pause it: the current
iteration finishes and is recorded, then the run is paused (no agent process runs; time spent paused does
not count toward max runtime). 'ringmaster resume <run>' continues it. Works from any terminal.

  --now        suspend the agent at once (SIGSTOP of its process group; SIGCONT on resume) instead of
               letting its iteration finish; its idle and iteration timeouts are held while suspended
  --wait       wait until the run is paused
`,
  run: pause,
};
