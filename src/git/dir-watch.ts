// The directories of a worktree watched for changes (inotify through fs.watch, one watch per directory): every name
// created, written, removed or moved in a watched directory is marked dirty, and the live tree (live-tree.ts) looks
// at those paths only. `settle` is a barrier: it writes a private watched file and waits for its event;
// inotify delivers one process's events in order, so every change made before the call has been marked by then.
// inotify drops events silently when its queue (fs.inotify.max_queued_events) overflows, and libuv does not report
// the overflow: a queue that may have been full shows as at least that many events delivered, so `settle` answers
// false (trust nothing) when this process's watchers received that many since the last settle.
import { watch, type FSWatcher } from 'node:fs';
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tempIndexPath } from './changes.js';

/** Dirty paths kept between two settles; more and the watch is not trusted (git stages instead). */
const MAX_DIRTY = 50_000;
const MAX_WATCHED_DIRS = 4096;
/** How long a barrier's own event may take (it comes within a millisecond or two). */
const SETTLE_MS = 5000;
const REWRITE_MS = 100;
const BYTE = Buffer.from('.');

/** Events delivered to every watcher of this thread (a full queue anywhere shows here). */
let delivered = 0;
/** A barrier's event never came: file events do not work here, and every live tree of this thread gives way to git. */
let eventsFailed = false;

/** Whether file events have worked in this thread so far (a barrier that never came back says they do not). */
export function fileEventsWork(): boolean {
  return !eventsFailed;
}

/** inotify's queue length (read once). */
let queueLength: number | undefined;
function queueLimit(): number {
  queueLength ??= readQueueLimit();
  return queueLength;
}

function readQueueLimit(): number {
  try {
    const n = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
    return Number.isInteger(n) && n > 0 ? n : 16384;
  } catch {
    return 16384;
  }
}

/** The watched directories of one worktree. */
export interface DirWatch {
  /**
   * Watches `dir` (relative to the root, '' for it), whose inode is `ino`; false when it cannot (the caller stops
   * trusting the watch).
   */
  add(dir: string, root: string, ino: bigint): boolean;
  /** Stops watching `dir` and every directory under it. */
  remove(dir: string): void;
  has(dir: string): boolean;
  /** The inode `dir` had when its watch was added (undefined: not watched). */
  inode(dir: string): bigint | undefined;
  /** Marks a path dirty by hand (one changed before its directory was watched). */
  mark(path: string): void;
  /** Takes the dirty paths marked so far (relative to the root). */
  take(): Set<string>;
  /** Waits until every change made before the call is marked; false when some may have been lost. */
  settle(): Promise<boolean>;
  close(): void;
}

/** A private watched file: `settle` writes it and waits for its event (false: none came). */
function openBarrier(): { settle(): Promise<boolean>; close(): void } {
  // Named as the temporary indexes are: what a ringmaster killed with kill -9 leaves is removed by the next one.
  const file = `${tempIndexPath()}-barrier`;
  const fd = openSync(file, 'w', 0o600);
  let waiting: (() => void) | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  const watcher = watch(file, () => {
    delivered++;
    waiting?.();
  });
  watcher.on('error', () => void (waiting = null));
  watcher.unref();
  return {
    settle() {
      const run = queue.then(async () => {
        // One byte written in place: exactly one event (IN_MODIFY), and no file created (slow on some disks). A queue
        // that overflowed drops it too: written again every REWRITE_MS until one arrives (any of them will do: each
        // comes after every event queued before it), for at most SETTLE_MS.
        const seen = new Promise<boolean>((resolve) => (waiting = () => resolve(true)));
        writeSync(fd, BYTE, 0, 1, 0);
        let timer: NodeJS.Timeout | undefined;
        const rewrite = setInterval(() => writeSync(fd, BYTE, 0, 1, 0), REWRITE_MS);
        const arrived = await Promise.race([seen, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), SETTLE_MS)))]);
        clearTimeout(timer);
        clearInterval(rewrite);
        waiting = null;
        if (!arrived) eventsFailed = true;
        return arrived;
      });
      queue = run.catch(() => undefined);
      return run;
    },
    close() {
      watcher.close();
      closeSync(fd);
      rmSync(file, { force: true });
    },
  };
}

export function openDirWatch(): DirWatch {
  const watchers = new Map<string, { watcher: FSWatcher; ino: bigint }>();
  let dirty = new Set<string>();
  const dead = new Set<string>();
  let broken = false;
  const limit = queueLimit();
  const barrier = openBarrier();
  let deliveredAtSettle = delivered;
  return {
    add(dir, root, ino) {
      if (watchers.has(dir)) return true;
      // A workspace of more directories than this is left to git: its watches would take the user's inotify limit
      // (fs.inotify.max_user_watches, 8,192 on older kernels) from editors and other tools.
      if (watchers.size >= MAX_WATCHED_DIRS) return false;
      try {
        const base = dir.slice(dir.lastIndexOf('/') + 1);
        const watcher = watch(join(root, dir), (_event, name) => {
          delivered++;
          // No name: something changed in the directory, but what is unknown.
          if (dirty.size >= MAX_DIRTY || name === null) broken = true;
          else dirty.add(dir === '' ? name : `${dir}/${name}`);
          // The directory itself removed or moved (libuv names such an event after the directory): its watch follows
          // a dead or moved inode, so it is dropped and the directory looked at again (a child of the same name too).
          if (name === base) {
            if (dir === '') broken = true;
            else {
              dead.add(dir);
              dirty.add(dir);
            }
          }
        });
        watcher.on('error', () => void (broken = true));
        // Never what keeps the process alive (a settle's timer is, while it waits).
        watcher.unref();
        watchers.set(dir, { watcher, ino });
        return true;
      } catch {
        broken = true;
        return false;
      }
    },
    remove(dir) {
      for (const [path, { watcher }] of watchers) {
        if (path === dir || dir === '' || path.startsWith(`${dir}/`)) {
          watcher.close();
          watchers.delete(path);
        }
      }
    },
    has: (dir) => watchers.has(dir),
    inode: (dir) => watchers.get(dir)?.ino,
    mark: (path) => void dirty.add(path),
    take() {
      for (const dir of dead) {
        watchers.get(dir)?.watcher.close();
        watchers.delete(dir);
      }
      dead.clear();
      const taken = dirty;
      dirty = new Set();
      return taken;
    },
    async settle() {
      if (!(await barrier.settle())) broken = true;
      const lost = delivered - deliveredAtSettle >= limit / 2;
      deliveredAtSettle = delivered;
      return !broken && !lost;
    },
    close() {
      for (const { watcher } of watchers.values()) watcher.close();
      watchers.clear();
      barrier.close();
    },
  };
}
