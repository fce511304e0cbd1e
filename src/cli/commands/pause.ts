// `ringmaster pause <run>`: asks the process that drives a run (a terminal, a server, a worker) to pause it at
// the next iteration boundary, through the store.
import { EXIT, UserError } from '../../core/errors.js';
import type { CliIO, Command } from '../command.js';
import { isQueued } from '../../store/liveness.js';
import { awaitControl, findControllableRun, hasLiveOwner, notActive, requestControl, requestOfQueued } from './control-common.js';
import { HISTORY_OPTIONS, openWorkspaceStore, parseHistoryArgs, runIdArgument } from './history-common.js';

/** How long to wait for the owner to answer (it polls every 250 ms). */
const ANSWER_TIMEOUT_MS = 10_000;

async function pause(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseHistoryArgs('pause', args, { ...HISTORY_OPTIONS, wait: { type: 'boolean' } });
  const id = runIdArgument('pause', positionals);
  const { workspace, store } = await openWorkspaceStore(values.cwd, io);
  try {
    const run = await findControllableRun(store, id, workspace);
    if (isQueued(run)) return await requestOfQueued(store, run, 'pause', io);
    if (run.status === 'paused' && hasLiveOwner(run)) {
      io.stdout.write(`run ${run.id} is already paused\n`);
      return EXIT.success;
    }
    if (!hasLiveOwner(run)) {
      if (run.status === 'completed' || run.status === 'stopped' || run.status === 'failed') throw notActive(run);
      throw new UserError(`run ${run.id} has no live process (orphaned): 'ringmaster resume ${run.id}' continues it, 'ringmaster stop ${run.id}' closes it`, EXIT.failure);
    }
    const request = await requestControl(store, run, 'pause');
    const first = await awaitControl(store, request, () => true, ANSWER_TIMEOUT_MS);
    if (first.answer === null) {
      throw new UserError(`asked run ${run.id} to pause, but its process (pid ${run.owner_pid ?? '?'} on ${run.owner_host ?? '?'}) has not answered yet`, EXIT.failure);
    }
    if (first.answer === 'not_running') throw notActive(first.run ?? run);
    if (first.answer === 'already') io.stdout.write(`run ${run.id} is already pausing\n`);
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

/** The `pause` command. */
export const pauseCommand: Command = {
  name: 'pause',
  usage: `Usage: ringmaster pause <run> [--wait] [--json]

Asks the process that drives the run (a terminal, 'ringmaster serve', a worker) to pause it: the current
iteration finishes and is recorded, then the run is paused (no agent process runs; time spent paused does
not count toward max runtime). 'ringmaster resume <run>' continues it. Works from any terminal.

  --wait       wait until the run is paused
`,
  run: pause,
};
