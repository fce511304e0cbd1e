// Who holds a file lock: the processes /proc/locks names for a set of files (Linux). SQLite takes POSIX (fcntl)
// locks: in WAL mode a writer holds a WRITE lock on byte 120 of the `-shm` file, an exclusive user one on the
// database file itself. Used to say which process keeps the database locked; elsewhere it knows nobody.
import { readFileSync, statSync } from 'node:fs';

/** One line of /proc/locks: its type (READ / WRITE), the pid holding it, and the inode of the file. */
interface LockLine {
  access: string;
  pid: number;
  inode: number;
}

/** Parses /proc/locks ("1: POSIX  ADVISORY  WRITE 11341 fe:00:2155307 120 120"); skips what it cannot read. */
export function parseProcLocks(text: string): LockLine[] {
  const lines: LockLine[] = [];
  for (const line of text.split('\n')) {
    // A blocked request ("1: -> POSIX ...") is a waiter, not a holder.
    const m = /^\d+:\s+(?!->)\S+\s+\S+\s+(READ|WRITE|UNLCK)\s+(-?\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s/i.exec(line);
    if (m) lines.push({ access: (m[1] as string).toUpperCase(), pid: Number(m[2]), inode: Number(m[3]) });
  }
  return lines;
}

/**
 * The pids (other than `self`) holding a lock on any of `paths`: those with a WRITE lock first; when none holds
 * one, any holder. Empty when nothing is known (not Linux, no /proc, files gone, open file description locks).
 */
export function lockHolders(paths: readonly string[], self = process.pid): number[] {
  const inodes = new Set<number>();
  for (const path of paths) {
    try {
      inodes.add(statSync(path).ino);
    } catch {
      // Not there (yet): nobody locks it.
    }
  }
  let text: string;
  try {
    text = readFileSync('/proc/locks', 'utf8');
  } catch {
    return [];
  }
  const held = parseProcLocks(text).filter((l) => inodes.has(l.inode) && l.pid > 0 && l.pid !== self);
  const writers = held.filter((l) => l.access === 'WRITE');
  return [...new Set((writers.length > 0 ? writers : held).map((l) => l.pid))];
}
