// Kills an agent process group left behind by a ringmaster process that died (kill -9).
import { readFileSync, rmSync } from 'node:fs';
import { groupAlive, signalGroup } from '../os/process-group.js';
import { agentPidPath } from './recorder.js';

/** If the run's last agent process group is still alive, SIGKILLs it. Returns the pgid killed, or null. */
export function killLeftoverAgent(workspace: string, runId: string): number | null {
  const path = agentPidPath(workspace, runId);
  let pgid: number;
  try {
    pgid = Number(readFileSync(path, 'utf8').trim());
  } catch {
    return null;
  }
  rmSync(path, { force: true });
  if (!Number.isInteger(pgid) || pgid <= 1 || !groupAlive(pgid)) return null;
  signalGroup(pgid, 'SIGKILL');
  return pgid;
}
