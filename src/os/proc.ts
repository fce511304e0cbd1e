// What the machine says about its processes, read from /proc (Linux): state, group, start time, working
// directory, environment. Every function answers "unknown" (null) rather than throwing when /proc is absent
// or a process vanished, so callers decide how careful to be.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The fields of /proc/<pid>/stat that Ringmaster uses. */
export interface ProcStat {
  pid: number;
  /** The command name (at most 15 characters), e.g. `git`, `node`. */
  comm: string;
  /** R, S, D, Z (zombie), X (dead), T... */
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  /** Start time in clock ticks after boot: with the boot id, it tells one process from a later one with the same pid. */
  startTime: number;
}

/** Parses the text of /proc/<pid>/stat (the command name may contain spaces and parentheses). */
export function parseStat(pid: number, text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const rest = text.slice(close + 2).split(' ');
  // After the name: state(3) ppid(4) pgrp(5) session(6) tty(7) tpgid(8) flags(9) minflt..cstime(10-17)
  // priority(18) nice(19) num_threads(20) itrealvalue(21) starttime(22): rest[0] is field 3.
  const num = (i: number): number => Number(rest[i]);
  const stat = { pid, comm: text.slice(open + 1, close), state: rest[0] ?? '?', ppid: num(1), pgrp: num(2), session: num(3), startTime: num(19) };
  return Number.isFinite(stat.startTime) && Number.isFinite(stat.pgrp) ? stat : null;
}

/** The stat of one process, or null when it does not exist (or /proc is not there). */
export function readStat(pid: number): ProcStat | null {
  try {
    return parseStat(pid, readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** True when /proc can be read (Linux). */
export function hasProc(): boolean {
  try {
    readFileSync('/proc/self/stat', 'utf8');
    return true;
  } catch {
    return false;
  }
}

/** Pids of every process, or null without /proc. */
export function listPids(): number[] | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  return entries.filter((e) => /^\d+$/.test(e)).map(Number);
}

/** False for the id of a thread that is not its process's main one (/proc answers for those too, unlisted). */
export function isThreadGroupLeader(pid: number): boolean {
  try {
    const m = /^Tgid:\s*(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null || Number(m[1]) === pid;
  } catch {
    return false;
  }
}

/** Every process's stat (processes that vanish while reading are skipped), or null without /proc. */
export function listProcesses(): ProcStat[] | null {
  const pids = listPids();
  if (pids === null) return null;
  const out: ProcStat[] = [];
  for (const pid of pids) {
    const stat = readStat(pid);
    if (stat) out.push(stat);
  }
  return out;
}

/** True for a process that has exited but not been reaped (it holds nothing any more). */
export function isDead(stat: ProcStat): boolean {
  return stat.state === 'Z' || stat.state === 'X';
}

/** The working directory of a process, or null when it cannot be read (gone, or another user's). */
export function processCwd(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/** The environment a process started with, or null when it cannot be read (gone, or another user's). */
export function processEnv(pid: number): Map<string, string> | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return null;
  }
  const env = new Map<string, string>();
  for (const entry of text.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

let thisBoot: string | null | undefined;

/** This boot's id (changes at every reboot), or null off Linux. Read once: it cannot change while we run. */
export function bootId(): string | null {
  if (thisBoot !== undefined) return thisBoot;
  try {
    thisBoot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    thisBoot = null;
  }
  return thisBoot;
}

/**
 * Identity of a live process: boot id + start time. A pid saved in a file (pid file, lock) is only ours to
 * signal if its identity still matches: after a reboot or once the pid is reused, it does not.
 */
export interface ProcessIdentity {
  pid: number;
  startTime: number | null;
  bootId: string | null;
}

/** The identity of a running process now, or null when it does not exist. Without /proc, start time and boot id are null. */
export function identityOf(pid: number): ProcessIdentity | null {
  const stat = readStat(pid);
  if (stat) return isDead(stat) ? null : { pid, startTime: stat.startTime, bootId: bootId() };
  if (hasProc()) return null;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  return { pid, startTime: null, bootId: null };
}

/**
 * True when `saved` still names the same process: same boot and same start time. When either side lacks
 * them (no /proc, or an old file without them), only the pid's existence can be checked.
 */
export function sameProcess(saved: ProcessIdentity, now: ProcessIdentity | null): boolean {
  if (now === null || now.pid !== saved.pid) return false;
  if (saved.bootId !== null && now.bootId !== null && saved.bootId !== now.bootId) return false;
  if (saved.startTime !== null && now.startTime !== null && saved.startTime !== now.startTime) return false;
  return true;
}

/** Clock ticks per second of /proc start times (USER_HZ: 100 on every Linux ABI Node runs on). */
const CLOCK_TICKS_PER_SECOND = 100;

/** Boot time in epoch ms (whole seconds, from /proc/stat btime), or null off Linux. */
export function bootTimeMs(): number | null {
  try {
    const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    return m ? Number(m[1]) * 1000 : null;
  } catch {
    return null;
  }
}

/** When a live process started, in epoch ms (to about a second), or null when unknown or gone. */
export function processStartedAtMs(pid: number): number | null {
  const stat = readStat(pid);
  const boot = bootTimeMs();
  if (!stat || isDead(stat) || boot === null) return null;
  return boot + (stat.startTime * 1000) / CLOCK_TICKS_PER_SECOND;
}

/**
 * How far apart two clocks may be when telling whether a process started before or after a moment: boot time
 * is in whole seconds and start times in ticks.
 */
export const START_TIME_TOLERANCE_MS = 2000;

/**
 * True when the process now holding `pid` may be the one that wrote a record at `writtenAtMs` right after it
 * started (a lock, a pid file): false when it started clearly later (the pid was reused, or the machine or
 * container restarted) or, with `startedJustBefore`, clearly earlier than the record. Unknown start = true.
 */
export function couldHaveWritten(pid: number, writtenAtMs: number, options: { startedJustBefore?: boolean } = {}): boolean {
  const started = processStartedAtMs(pid);
  if (started === null) return true;
  if (started > writtenAtMs + START_TIME_TOLERANCE_MS) return false;
  if (options.startedJustBefore === true && started < writtenAtMs - START_TIME_TOLERANCE_MS) return false;
  return true;
}
