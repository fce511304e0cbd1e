// Change tracking of iterations (loop.track_changes): the worktree an agent works in is written as a git tree just
// before the agent starts and just after it ends; the two give the iteration's files_changed, and a failed
// iteration can be discarded exactly from them (loop.discard_failed). Each directory (a task's worktree) on its own.
import { rm } from 'node:fs/promises';
import { diffTrees, gitIndexPath, MAX_FILES_CHANGED, removeStaleTempIndexes, stageWorktree, tempIndexPath, writeIndexTree, writeWorktreeTree, type FileChange } from '../git/changes.js';
import { copyIndexFile } from '../git/index-lock-file.js';
import { discardChanges, discardedRef } from '../git/discard.js';
import type { IterationOutcome, IterationResult } from '../core/types.js';
import type { EventBodyOf } from './events.js';

/** The changes of one iteration as events and rows carry them. */
export type IterationChangesRecord = NonNullable<EventBodyOf<'iteration_completed'>['changes']>;

/** The worktree just before an agent started. */
export interface BeforeSnapshot {
  dir: string;
  /**
   * Its tree: the files were staged (their contents stored) before the agent started; the tree is written from the
   * index while the agent already runs, so it costs the iteration no time. Awaited by `after` before it stages again.
   */
  tree: Promise<string>;
  /** The real index and a copy of it from that moment (put back when the iteration is discarded). */
  index: { file: string; copy: string };
  /** The temporary index the directory's snapshots go through. */
  work: string;
}

/** One finished iteration's changes; `discard` puts its files back (once), `dispose` frees its temporary files. */
export interface TrackedIteration {
  readonly files: readonly FileChange[];
  record(): IterationChangesRecord;
  /** Discards the iteration's file changes, kept under a ref (its name; null when nothing changed). */
  discard(runId: string, iteration: number): Promise<string | null>;
  dispose(): Promise<void>;
}

/** Takes the snapshots of a run's iterations (RunDeps.changes). */
export interface ChangeTracker {
  /** loop.discard_failed: the runner discards every failed iteration (unless its program does it itself). */
  readonly discardFailed: boolean;
  before(dir: string): Promise<BeforeSnapshot>;
  after(before: BeforeSnapshot): Promise<TrackedIteration>;
}

/** The index a directory's snapshots go through (kept for the run) and the real index it was seeded from. */
interface WorkIndex {
  file: string;
  work: string;
}

/** A tracker for git workspaces: one temporary index per directory for the whole run (close() removes them). */
export function createChangeTracker(options: { discardFailed: boolean }): ChangeTracker & { close(): Promise<void> } {
  // What a ringmaster killed with kill -9 left in the temp directory goes now (off the run's path, errors ignored).
  void removeStaleTempIndexes().catch(() => undefined);
  const indexes = new Map<string, Promise<WorkIndex>>();
  const indexOf = (dir: string): Promise<WorkIndex> => {
    let entry = indexes.get(dir);
    if (entry === undefined) {
      entry = (async () => {
        const file = await gitIndexPath(dir);
        const work = tempIndexPath();
        await copyIndexFile(file, work).catch(() => undefined);
        return { file, work };
      })();
      indexes.set(dir, entry);
    }
    return entry;
  };
  return {
    discardFailed: options.discardFailed,
    async before(dir) {
      const { file, work } = await indexOf(dir);
      const copy = tempIndexPath();
      try {
        await copyIndexFile(file, copy).catch(() => undefined);
        await stageWorktree(dir, work);
        const tree = writeIndexTree(dir, work);
        // Seen by `after`; a failure here must not be an unhandled rejection meanwhile.
        tree.catch(() => undefined);
        return { dir, tree, index: { file, copy }, work };
      } catch (error) {
        await rm(copy, { force: true });
        throw error;
      }
    },
    async after(before) {
      try {
        const beforeTree = await before.tree;
        const tree = await writeWorktreeTree(before.dir, before.work);
        return trackedIteration(before, beforeTree, tree, await diffTrees(before.dir, beforeTree, tree));
      } catch (error) {
        await rm(before.index.copy, { force: true });
        throw error;
      }
    },
    async close() {
      const all = await Promise.allSettled([...indexes.values()]);
      indexes.clear();
      for (const entry of all) if (entry.status === 'fulfilled') await rm(entry.value.work, { force: true });
    },
  };
}

function trackedIteration(before: BeforeSnapshot, beforeTree: string, after: string, files: FileChange[]): TrackedIteration {
  let discarded: Promise<string | null> | null = null;
  let ref: string | null = null;
  return {
    files,
    record: () => ({
      tree_before: beforeTree,
      tree_after: after,
      files_changed: files.slice(0, MAX_FILES_CHANGED),
      files_changed_total: files.length,
      discarded_ref: ref,
    }),
    discard(runId, iteration) {
      discarded ??= (async () => {
        if (files.length === 0) return null;
        const name = discardedRef(runId, iteration);
        const message = `[ringmaster] discarded iteration ${iteration} of run ${runId}`;
        await discardChanges({ dir: before.dir, before: beforeTree, after, changes: files, ref: name, message, index: before.index });
        ref = name;
        return name;
      })();
      return discarded;
    },
    dispose: () => rm(before.index.copy, { force: true }),
  };
}

/** The snapshot before an iteration, or null (no tracking, or it failed: a warning, never a reason to stop). */
export async function snapshotBefore(tracker: ChangeTracker | undefined, dir: string, warn: (message: string) => void): Promise<BeforeSnapshot | null> {
  if (!tracker) return null;
  try {
    return await tracker.before(dir);
  } catch (error) {
    warn(`change tracking: ${(error as Error).message}`);
    return null;
  }
}

/** The iteration's changes from its snapshot before, or null. */
export async function snapshotAfter(tracker: ChangeTracker | undefined, before: BeforeSnapshot | null, warn: (message: string) => void): Promise<TrackedIteration | null> {
  if (!tracker || before === null) return null;
  try {
    return await tracker.after(before);
  } catch (error) {
    warn(`change tracking: ${(error as Error).message}`);
    return null;
  }
}

/** A failed iteration the agent failed (one stopped by the run's own max_cost or max_runtime is kept). */
export function isDiscardable(outcome: IterationOutcome, result: IterationResult): boolean {
  return outcome === 'failure' && result.errorKind !== 'max_cost' && result.errorKind !== 'max_runtime';
}

/** Discards a failed iteration's changes (loop.discard_failed); a discard that fails is a warning. */
export async function discardFailed(tracked: TrackedIteration, runId: string, iteration: number, warn: (message: string) => void): Promise<void> {
  try {
    await tracked.discard(runId, iteration);
  } catch (error) {
    warn(`discarding the changes of iteration ${iteration}: ${(error as Error).message}`);
  }
}
