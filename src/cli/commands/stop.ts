// `ringmaster stop <run>`: asks a live run to stop (user_stop), or closes an orphaned one.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { EXIT, UsageError, UserError } from '../../core/errors.js';
import { HOOK_AGENT } from '../../core/types.js';
import { killLeftoverAgent } from '../../runner/leftover.js';
import { isProcessAlive } from '../../runner/lock.js';
import { couldHaveWritten } from '../../os/proc.js';
import { stopRequestPath } from '../../runner/recorder.js';
import { openStore } from '../../store/index.js';
import type { CliIO, Command } from '../command.js';
import { workspaceFrom } from './run.js';

async function stop(args: string[], io: CliIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { cwd: { type: 'string' }, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError('expected one run id: ringmaster stop <run>');
  const workspace = workspaceFrom(values, io);
  const store = openStore(workspace, { create: false });
  try {
    const run = await store.findRun(positionals[0] ?? '');
    if (!run) throw new UserError(`no run '${positionals[0]}' in ${workspace} (see 'ringmaster runs')`);
    if (run.agent === HOOK_AGENT) {
      throw new UserError(`run ${run.id} is a Stop-hook loop inside a Claude Code session: use 'ringmaster loop status' / 'ringmaster loop cancel'`);
    }
    const active = run.status === 'running' || run.status === 'waiting' || run.status === 'pending' || run.status === 'paused';
    if (!active) {
      io.stdout.write(`run ${run.id} is not running (${run.status}${run.stop_reason ? `, ${run.stop_reason}` : ''})\n`);
      return EXIT.success;
    }
    // Signalled only if that pid is still the owner: a process that started after the run's last heartbeat is not.
    const live = run.owner_pid !== null && run.owner_host === hostname() && isProcessAlive(run.owner_pid) && (run.heartbeat_at === null || couldHaveWritten(run.owner_pid, run.heartbeat_at));
    if (live && run.owner_pid !== null) {
      const path = stopRequestPath(workspace, run.id);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, `${new Date().toISOString()}\n`);
      process.kill(run.owner_pid, 'SIGTERM');
      io.stdout.write(`asked run ${run.id} (pid ${run.owner_pid}) to stop\n`);
      return EXIT.success;
    }
    // Orphaned: nobody drives it. Kill what its agent left behind, then close the run as stopped.
    const killed = killLeftoverAgent(workspace, run.id);
    const now = Date.now();
    const claim = await store.claimRun(run.id, { pid: process.pid, host: hostname() }, now);
    await store.finishRun(run.id, { status: 'stopped', stop_reason: 'user_stop', now });
    const details = [
      claim.interrupted.length ? `iteration ${claim.interrupted.join(', ')} recorded as interrupted` : null,
      killed !== null ? `left-over agent process group ${killed} killed` : null,
    ].filter(Boolean);
    io.stdout.write(`stopped orphaned run ${run.id}${details.length ? ` (${details.join('; ')})` : ''}\n`);
    return EXIT.success;
  } finally {
    await store.close();
  }
}

/** The `stop` command. */
export const stopCommand: Command = {
  name: 'stop',
  usage: `Usage: ringmaster stop <run> [--cwd DIR]

A live run is asked to stop: its agent's process group is killed, the iteration is recorded and the run ends
with status stopped, stop reason user_stop (its process exits with 130). A run whose process died (orphaned in
'ringmaster runs') is closed the same way, and an agent it left behind is killed. Use 'ringmaster resume' instead
to continue an orphaned run.
`,
  run: stop,
};
