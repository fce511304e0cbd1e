// Process facts for tests that check nothing is left behind.
import { readdirSync, readFileSync } from 'node:fs';

/** True while the process exists and is not a zombie (a killed orphan may wait unreaped in a container). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The state letter of a process (R, S, T = stopped, Z...), from /proc; null when it is gone. */
export function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

/** The parent of a process, from /proc; null when it is gone. */
export function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** The live children of a process whose command line (or title) is `name`, or whose argv `matches`. */
export function childrenNamed(pid: number, name: string, matches: (argv: string[]) => boolean = () => false): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const child = Number(entry);
    if (!Number.isInteger(child) || parentOf(child) !== pid || !alive(child)) continue;
    try {
      const argv = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0');
      if (argv[0] === name || matches(argv)) children.push(child);
    } catch {
      // gone meanwhile
    }
  }
  return children;
}
