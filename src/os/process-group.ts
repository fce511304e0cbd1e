// Process-group helpers: signal a whole group, see which members are still alive (zombies count as gone).
import { isDead, listProcesses } from './proc.js';

/**
 * process.kill without the stack trace of its error: a group or process that is gone (ESRCH) is the common answer
 * after every agent, and capturing the stack of that error was most of the call's cost (bench/FINDINGS.md).
 */
function kill(pid: number, signal: NodeJS.Signals | 0): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    process.kill(pid, signal);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Sends a signal to every process of a group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Pids of the live (non-zombie) members of a process group, read from /proc (Linux). */
export function groupMembers(pgid: number): number[] {
  const processes = listProcesses();
  if (processes === null) return groupExists(pgid) ? [pgid] : [];
  return processes.filter((p) => p.pgrp === pgid && !isDead(p)).map((p) => p.pid);
}

function groupExists(pgid: number): boolean {
  try {
    kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True while a process with this pid exists (one of another user counts: signalling it is refused, EPERM). */
export function processAlive(pid: number): boolean {
  try {
    kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True while any member of the group is alive. Cheap check first (kill 0), /proc scan only if it exists. */
export function groupAlive(pgid: number): boolean {
  return groupExists(pgid) && groupMembers(pgid).length > 0;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits until the group is gone or the time is up; returns true when gone. */
export async function waitGroupGone(pgid: number, timeoutMs: number, pollMs = 10): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(pollMs);
  }
}

/** SIGKILL to the whole group at once, no grace: nothing in it runs another instruction. Resolves when it is gone. */
export async function killGroupAtOnce(pgid: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGKILL')) return;
  await waitGroupGone(pgid, 5000);
}

/** SIGTERM the group, wait up to `graceMs`, then SIGKILL and wait until every member is gone. */
export async function killGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  // A suspended group (`pause --now`) would hold SIGTERM pending: continued, it receives it.
  signalGroup(pgid, 'SIGCONT');
  if (await waitGroupGone(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await waitGroupGone(pgid, 5000);
}
