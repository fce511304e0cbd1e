// A little disk space kept aside in the data directory (`disk-reserve`, 1 MiB): when the disk fills up during a
// run, Ringmaster deletes it so that what it still has to record (the iteration that failed, the run's end) fits.
// Otherwise a full disk would leave the run looking like it is still running (orphaned). Made again, when there is
// room, by the next run.
import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Size of the reserve: room for the final store writes of a run (a few pages of the write-ahead log). */
export const RESERVE_BYTES = 1024 * 1024;

/** The reserve file of a data directory. */
export function reservePath(dataDir: string): string {
  return join(dataDir, 'disk-reserve');
}

/** Makes the reserve if it is missing (or short); best effort: on a full disk there is simply none. */
export function ensureReserve(dataDir: string): boolean {
  const path = reservePath(dataDir);
  try {
    if (statSync(path).size >= RESERVE_BYTES) return true;
  } catch {
    // missing: made below
  }
  try {
    const fd = openSync(path, 'w', 0o600);
    try {
      // Written, not just sized: a sparse file would give nothing back when deleted.
      const block = Buffer.alloc(64 * 1024);
      for (let at = 0; at < RESERVE_BYTES; at += block.length) writeSync(fd, block, 0, block.length, at);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch {
    rmSync(path, { force: true });
    return false;
  }
}

/** Deletes the reserve to give its space back; true when there was one. */
export function releaseReserve(dataDir: string): boolean {
  const path = reservePath(dataDir);
  try {
    statSync(path);
  } catch {
    return false;
  }
  rmSync(path, { force: true });
  return true;
}
