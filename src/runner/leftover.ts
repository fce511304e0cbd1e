// Kills what the agent of a run left behind when the ringmaster process driving it died (kill -9): its process
// group, named by the agent.pid file, and any process carrying one of the run's tags (a daemon the agent moved
// to its own session). A saved pid is signalled only if it is still that process: after a reboot or once the
// pid is reused, an unrelated process group would be killed otherwise.
import { readFileSync, rmSync, statSync } from 'node:fs';
import { groupAlive, signalGroup } from '../os/process-group.js';
import { findTagged, runTagMatcher, signalTagged } from '../os/process-tag.js';
import { bootId, bootTimeMs, couldHaveWritten, readStat } from '../os/proc.js';
import { agentPidPath } from '../store/paths.js';

/** What the agent.pid file says: the pid, and when known the process's start time and boot id. */
export interface AgentPidRecord {
  pid: number;
  startTime: number | null;
  bootId: string | null;
  /** When the file was last written (the agent was spawned just before). */
  writtenAtMs: number;
}

/** Width of an agent.pid line (the file is overwritten in place, never truncated). */
const PID_LINE_WIDTH = 80;

/** The line to store for an agent's pid: `<pid> <start time> <boot id>`, fixed width (overwritten in place). */
export function agentPidLine(pid: number): string {
  const stat = readStat(pid);
  return `${pid} ${stat?.startTime ?? '-'} ${bootId() ?? '-'}`.padEnd(PID_LINE_WIDTH) + '\n';
}

/** An agent.pid line naming no process (before the first agent starts). */
export function agentPidBlank(): string {
  return ''.padEnd(PID_LINE_WIDTH) + '\n';
}

/** Reads an agent.pid file (`<pid>` alone, or agentPidLine's form); null when absent or unreadable. */
export function readAgentPid(path: string): AgentPidRecord | null {
  let text: string;
  let writtenAtMs: number;
  try {
    text = readFileSync(path, 'utf8');
    writtenAtMs = statSync(path).mtimeMs;
  } catch {
    return null;
  }
  const [pidText, startText, boot] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 1) return null;
  const startTime = startText !== undefined && /^\d+$/.test(startText) ? Number(startText) : null;
  return { pid, startTime, bootId: boot !== undefined && boot !== '-' ? boot : null, writtenAtMs };
}

/**
 * True when the process now holding the record's pid is the agent that was saved: same boot and start time
 * when the file has them, else started right before the file was written (within the clock's tolerance).
 */
export function isSavedAgent(record: AgentPidRecord): boolean {
  const currentBoot = bootId();
  if (record.bootId !== null && currentBoot !== null && record.bootId !== currentBoot) return false;
  // Written before this boot: whatever has that pid now is another process.
  const bootedAt = bootTimeMs();
  if (bootedAt !== null && record.writtenAtMs < bootedAt) return false;
  const stat = readStat(record.pid);
  // The leader is gone but its group lives on: a pgid is never reused while its group exists.
  if (stat === null) return true;
  if (record.startTime !== null) return stat.startTime === record.startTime;
  return couldHaveWritten(record.pid, record.writtenAtMs, { startedJustBefore: true });
}

/** What was found and killed. */
export interface LeftoverKill {
  /** The agent's process group, when it was still alive and still the agent. */
  group: number | null;
  /** A pid file that names a process that is no longer the agent (left alone). */
  staleGroup: number | null;
  /** Tagged processes of the run outside that group. */
  tagged: number[];
}

/** Kills the run's leftover agent group (identity checked; pid file in the data directory) and tagged processes; removes the pid file. */
export function killLeftovers(dataDir: string, runId: string): LeftoverKill {
  const path = agentPidPath(dataDir, runId);
  const record = readAgentPid(path);
  rmSync(path, { force: true });
  const result: LeftoverKill = { group: null, staleGroup: null, tagged: [] };
  if (record !== null && groupAlive(record.pid)) {
    if (isSavedAgent(record)) {
      signalGroup(record.pid, 'SIGKILL');
      result.group = record.pid;
    } else {
      result.staleGroup = record.pid;
    }
  }
  for (const p of findTagged(runTagMatcher(runId))) {
    signalTagged(p, 'SIGKILL');
    result.tagged.push(p.pid);
  }
  return result;
}

/** If the run's last agent process group is still alive (and still the agent), SIGKILLs it, with the run's tagged processes. Returns the pgid killed, or null. */
export function killLeftoverAgent(dataDir: string, runId: string): number | null {
  return killLeftovers(dataDir, runId).group;
}

/**
 * Taking over a stale workspace lock of another run (its process died): that run's agent may still be running in
 * the workspace, and two agents would then edit it at once. Its leftovers are killed; the warning to show, or null
 * when nothing of it was running. `runId` is the taker's run (a resume of the same run kills its own leftovers as it
 * claims the run), null for a rollback (whoever left the lock).
 */
export function killLeftoversOfStaleLock(dataDir: string, takenOver: { run_id: string } | null, runId: string | null): string | null {
  if (takenOver === null || takenOver.run_id === runId) return null;
  const killed = killLeftovers(dataDir, takenOver.run_id);
  const what = [killed.group === null ? null : `its agent's process group ${killed.group}`, killed.tagged.length === 0 ? null : `${killed.tagged.length} more of its processes`].filter((w) => w !== null);
  if (what.length === 0) return null;
  return `the workspace's lock was left by run ${takenOver.run_id}, whose process had died, with ${what.join(' and ')} still running there: killed (the run shows as orphaned; 'ringmaster resume ${takenOver.run_id}' goes on with it)`;
}
