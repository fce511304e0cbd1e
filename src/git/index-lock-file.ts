// Putting a prepared index file in place of a worktree's real index the way git itself does: take index.lock
// (created exclusively, so a running git keeps its own), write the new content into it, rename it over the index.
import { constants } from 'node:fs';
import { copyFile, open, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';

/**
 * Copies an index file keeping its modification time (at most that, to the millisecond below): git tells a file
 * changed within the same second as the index was written ("racily clean") by that time, so a copy with a later
 * time would make git trust stale stat data and miss a change of the same size.
 */
export async function copyIndexFile(source: string, target: string): Promise<void> {
  await copyFile(source, target);
  const st = await stat(source);
  const seconds = Math.floor(st.mtimeMs) / 1000;
  await utimes(target, seconds, seconds);
}

/** A held index.lock: `commit` puts the new index in place, `release` gives the lock up unchanged. */
export interface IndexLock {
  commit(source: string): Promise<void>;
  /**
   * Puts an index written out now in place (its entries changed in the last seconds are smudged, index-file.ts, so
   * its modification time needs no care).
   */
  commitData(data: Buffer): Promise<void>;
  release(): Promise<void>;
}

/** Takes `indexFile`'s lock; fails (naming index.lock) when another git holds it or a killed one left it. */
export async function lockIndex(indexFile: string): Promise<IndexLock> {
  const lock = `${indexFile}.lock`;
  try {
    const handle = await open(lock, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o644);
    await handle.close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(`cannot write the index: ${lock} exists (another git process, or one that was killed)`, { cause: error });
    throw error;
  }
  // The new index written into the lock, then renamed over the index; the lock removed if either fails.
  const install = async (write: () => Promise<void>): Promise<void> => {
    try {
      await write();
      await rename(lock, indexFile);
    } catch (error) {
      await rm(lock, { force: true });
      throw error;
    }
  };
  return {
    commit: (source) => install(() => copyIndexFile(source, lock)),
    commitData: (data) => install(() => writeFile(lock, data)),
    release: () => rm(lock, { force: true }),
  };
}

/** Replaces `indexFile` with a copy of `source` under its lock. */
export async function installIndex(indexFile: string, source: string): Promise<void> {
  await (await lockIndex(indexFile)).commit(source);
}
