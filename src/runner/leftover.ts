// Kills an agent process group left behind by a ringmaster process that died (kill -9).
import { readFileSync, rmSync } from 'node:fs';
import { groupAlive, signalGroup } from '../agents/process-group.js';
import { agentPidPath } from '../store/paths.js';

/** If the run's last agent process group (pid file in the data directory) is still alive, SIGKILLs it. Returns the pgid killed, or null. */
export function killLeftoverAgent(dataDir: string, runId: string): number | null {
  const path = agentPidPath(dataDir, runId);
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
