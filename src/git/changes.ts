// What an iteration changed in a workspace, as change tracking records it (the snapshots themselves go through a
// run's private index: work-index.ts), and the temporary index files Ringmaster's git commands go through.
import { randomUUID } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../os/process-group.js';

/** How a path changed between two trees. */
export type FileChangeKind = 'added' | 'modified' | 'deleted';

/** One changed path, relative to the workspace. */
export interface FileChange {
  path: string;
  change: FileChangeKind;
}

/** Paths kept in an iteration's record (the total is always counted). */
export const MAX_FILES_CHANGED = 1000;

const TEMP_PREFIX = 'ringmaster-index-';

/** A fresh path for a temporary index (in the system's temp directory), named after this process. */
export function tempIndexPath(): string {
  return join(tmpdir(), `${TEMP_PREFIX}${process.pid}-${randomUUID()}`);
}

/** Removes the temporary indexes of processes that are gone (a ringmaster killed with kill -9); returns how many. */
export async function removeStaleTempIndexes(): Promise<number> {
  let removed = 0;
  for (const name of await readdir(tmpdir())) {
    const pid = Number(/^ringmaster-index-(\d+)-/.exec(name)?.[1] ?? NaN);
    if (!Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    await rm(join(tmpdir(), name), { force: true });
    removed++;
  }
  return removed;
}
