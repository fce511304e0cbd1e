// `ringmaster stop <run>`: asks the process that drives a run to stop it (through the store), or closes an
// orphaned run whose process died.
import { hostname } from 'node:os';
import { EXIT } from '../../core/errors.js';
import { closeOrphanedRun } from '../../manager/orphans.js';
import { ACTIVE_STATUSES, isQueued } from '../../store/liveness.js';
import type { CliIO, Command } from '../command.js';
import { awaitControl, findControllableRun, hasLiveOwner, requestControl } from './control-common.js';
import { HISTORY_OPTIONS, openWorkspaceStore, parseHistoryArgs, runIdArgument } from './history-common.js';

/** How long `stop` waits for the run to end (its agent's group gets SIGTERM, then SIGKILL after the grace). */
const STOP_WAIT_MS = 60_000;

async function stop(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseHistoryArgs('stop', args, { ...HISTORY_OPTIONS, 'no-wait': { type: 'boolean' } });
  const id = runIdArgument('stop', positionals);
  const { workspace, store } = await openWorkspaceStore(values.cwd, io);
  try {
    const run = await findControllableRun(store, id, workspace);
    if (!ACTIVE_STATUSES.includes(run.status)) {
      io.stdout.write(`run ${run.id} is not running (${run.status}${run.stop_reason ? `, ${run.stop_reason}` : ''})\n`);
      return EXIT.success;
    }
    if (hasLiveOwner(run)) {
      const request = await requestControl(store, run, 'stop');
      io.stdout.write(`asked run ${run.id} (pid ${run.owner_pid ?? '?'}) to stop\n`);
      if (values['no-wait']) return EXIT.success;
      const { run: after } = await awaitControl(store, request, (r) => !ACTIVE_STATUSES.includes(r.status), STOP_WAIT_MS);
      if (after && !ACTIVE_STATUSES.includes(after.status)) io.stdout.write(`run ${run.id} stopped (${after.status}, ${after.stop_reason ?? '-'})\n`);
      else io.stdout.write(`run ${run.id} has not finished stopping yet\n`);
      return EXIT.success;
    }
    // Orphaned or queued: nobody drives it. Kill what its agent left behind, then close the run as stopped.
    const queued = isQueued(run);
    const closed = await closeOrphanedRun(store, io.env, run, { pid: process.pid, host: hostname() }, Date.now());
    const details = [
      closed.interrupted.length ? `iteration ${closed.interrupted.join(', ')} recorded as interrupted` : null,
      closed.leftoverKilled !== null ? `left-over agent process group ${closed.leftoverKilled} killed` : null,
    ].filter(Boolean);
    io.stdout.write(`stopped ${queued ? 'queued' : 'orphaned'} run ${run.id}${details.length ? ` (${details.join('; ')})` : ''}\n`);
    return EXIT.success;
  } finally {
    await store.close();
  }
}

/** The `stop` command. */
export const stopCommand: Command = {
  name: 'stop',
  usage: `Usage: ringmaster stop <run> [--no-wait]

A live run (driven by a terminal, 'ringmaster serve' or a worker, on this machine or another) is asked to
stop through the store: its agent's process group is killed, the iteration is recorded and the run ends with
status stopped, stop reason user_stop. 'stop' waits until it has (--no-wait: returns at once). A run whose
process died (orphaned in 'ringmaster runs') is closed the same way, and an agent it left behind is killed.
'ringmaster resume' continues a stopped run.
`,
  run: stop,
};
