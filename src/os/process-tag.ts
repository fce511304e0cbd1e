// Processes that left their process group (`setsid daemon &`) are still found: every agent process is started
// with a tag in its environment (RINGMASTER_AGENT_TAG), which its descendants inherit whatever group or
// session they move to, and /proc shows each process's initial environment. See docs/processes.md.
import { existsSync, readFileSync } from 'node:fs';
import { isDead, isThreadGroupLeader, listPids, readStat } from './proc.js';

/** The environment variable carrying an agent process tree's tag. */
export const AGENT_TAG_VARIABLE = 'RINGMASTER_AGENT_TAG';

/** A process found by its tag, with its start time (checked again before it is signalled). */
export interface TaggedProcess {
  pid: number;
  tag: string;
  startTime: number;
}

const NEEDLE = Buffer.from(`\0${AGENT_TAG_VARIABLE}=`);

/** The tag in the text of /proc/<pid>/environ, or null. */
export function tagInEnviron(environ: Buffer): string | null {
  // Prefixed with NUL so that FOO_RINGMASTER_AGENT_TAG= does not match; the first entry has no NUL before it.
  const padded = Buffer.concat([Buffer.from([0]), environ]);
  const at = padded.indexOf(NEEDLE);
  if (at < 0) return null;
  const start = at + NEEDLE.length;
  const end = padded.indexOf(0, start);
  return padded.subarray(start, end < 0 ? padded.length : end).toString('utf8');
}

/** The agent a sweep is about: its pid, start time (clock ticks) and when it was spawned. */
export interface TreeRoot {
  pid: number;
  startTime: number | null;
  spawnedAtMs: number;
}

/** The agent's tree as seen now: read its start time right after spawning it. */
export function treeRoot(pid: number, spawnedAtMs: number): TreeRoot {
  return { pid, startTime: readStat(pid)?.startTime ?? null, spawnedAtMs };
}

/** The last pid handed out in our pid namespace, or null. */
function lastPid(): number | null {
  try {
    const n = Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'));
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

/** Below this age of the tree, pids are filtered by the range handed out since the agent (pids cannot have wrapped round). */
const QUICK_TREE_MS = 100;

/** At most this many pids handed out since the agent are probed one by one; a wider range is listed from /proc. */
const MAX_PROBED_PIDS = 32;

/**
 * The live pids in (`after`, `last`]: probed one by one (cheaper than listing /proc when few were handed out, as
 * in a loop of short iterations), or null when the range is too wide or wrapped round. A thread's id also answers
 * in /proc: findTagged keeps only thread-group leaders.
 */
function probePids(after: number, last: number): number[] | null {
  if (last < after || last - after > MAX_PROBED_PIDS) return null;
  const pids: number[] = [];
  for (let pid = after + 1; pid <= last; pid++) if (pid !== process.pid && existsSync(`/proc/${pid}`)) pids.push(pid);
  return pids;
}

/**
 * The pids that may belong to the tree of `root`: for a tree younger than QUICK_TREE_MS, those handed out
 * after the agent's pid (cheap: a loop of short iterations scans almost nothing); then, in any case, those
 * that started no earlier than the agent (a descendant cannot be older than its ancestor).
 */
function candidates(root: TreeRoot | null): number[] {
  const all = (): number[] => (listPids() ?? []).filter((pid) => pid !== process.pid);
  if (root === null) return all();
  const last = Date.now() - root.spawnedAtMs < QUICK_TREE_MS ? lastPid() : null;
  const p = root.pid;
  const chosen = last === null ? all() : (probePids(p, last) ?? all().filter((pid) => (last >= p ? pid > p && pid <= last : pid > p || pid <= last)));
  const start = root.startTime;
  if (start === null) return chosen;
  return chosen.filter((pid) => {
    const stat = readStat(pid);
    return stat !== null && !isDead(stat) && stat.startTime >= start;
  });
}

/**
 * Live processes whose tag satisfies `match` (our own process excluded), among the possible members of
 * `root`'s tree (all processes when null). Environments of other users' processes cannot be read: an agent
 * runs as us, and so do the processes it starts (unless setuid).
 */
export function findTagged(match: (tag: string) => boolean, root: TreeRoot | null = null): TaggedProcess[] {
  const found: TaggedProcess[] = [];
  for (const pid of candidates(root)) {
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue; // gone, or not ours
    }
    const tag = tagInEnviron(environ);
    if (tag === null || !match(tag) || !isThreadGroupLeader(pid)) continue;
    const stat = readStat(pid);
    if (stat && !isDead(stat)) found.push({ pid, tag, startTime: stat.startTime });
  }
  return found;
}

/** Sends a signal to a found process only while it is still that process (same start time). */
export function signalTagged(p: TaggedProcess, signal: NodeJS.Signals): void {
  if (!stillThere(p)) return;
  try {
    process.kill(p.pid, signal);
  } catch {
    // gone meanwhile
  }
}

/** True while the process is the one found (same start time) and not dead. */
function stillThere(p: TaggedProcess): boolean {
  const stat = readStat(p.pid);
  return stat !== null && !isDead(stat) && stat.startTime === p.startTime;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Ends every live process whose tag satisfies `match`: SIGTERM, up to `graceMs` for them to exit, then
 * SIGKILL. A pid is signalled only while it is still the process found (same start time). Returns the pids found.
 */
export async function killTagged(match: (tag: string) => boolean, graceMs: number, root: TreeRoot | null = null): Promise<number[]> {
  const found = findTagged(match, root);
  if (found.length === 0) return [];
  for (const p of found) {
    signalTagged(p, 'SIGTERM');
    // A stopped process (`pause --now`) would hold SIGTERM pending until continued.
    signalTagged(p, 'SIGCONT');
  }
  const deadline = Date.now() + graceMs;
  while (found.some(stillThere) && Date.now() < deadline) await pause(10);
  for (const p of found) signalTagged(p, 'SIGKILL');
  const killDeadline = Date.now() + 5000;
  while (found.some(stillThere) && Date.now() < killDeadline) await pause(10);
  return found.map((p) => p.pid);
}

/** A tag for one iteration of a run: `<run id>/<iteration>` (leftovers of a run are found by its prefix). */
export function iterationTag(runId: string, iteration: number): string {
  return `${runId}/${iteration}`;
}

/** Matches every iteration tag of a run. */
export function runTagMatcher(runId: string): (tag: string) => boolean {
  return (tag) => tag.startsWith(`${runId}/`);
}
