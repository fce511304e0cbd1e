// Change tracking of iterations (loop.track_changes): the worktree an agent works in is written as a git tree just
// before the agent starts and just after it ends; the two give the iteration's files_changed, and a failed
// iteration can be discarded exactly from them (loop.discard_failed). Each directory (a task's worktree) on its own.
import { rm } from 'node:fs/promises';
import { MAX_FILES_CHANGED, removeStaleTempIndexes, tempIndexPath, type FileChange } from '../git/changes.js';
import type { CheckpointResult } from '../git/checkpoint.js';
import { copyIndexFile } from '../git/index-lock-file.js';
import { checkpointSettled } from '../git/work-checkpoint.js';
import { openWorkIndex, type WorkIndex } from '../git/work-index.js';
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
   * Taken as the previous iteration's after-tree when nothing ran in the directory since (see `dispose`).
   */
  tree: Promise<string>;
  /** The real index and a copy of it from that moment (put back when the iteration is discarded). */
  index: { file: string; copy: string };
  /** The private index the directory's snapshots go through. */
  work: WorkIndex;
}

/** The next iteration in a directory starts at most this long after the last one was disposed of as reusable. */
export const REUSE_WITHIN_MS = 1000;

/**
 * One finished iteration's changes; `discard` puts its files back (once), `dispose` frees its temporary files. With
 * `reusable` (nothing but the agent changes files between iterations: no command of the program ran since the
 * snapshot after, none will before the next agent), the next iteration in the directory takes this one's after-tree
 * as its before-tree, no git run, if it starts within REUSE_WITHIN_MS (no pause, wait or cooldown) and none was discarded.
 */
export interface TrackedIteration {
  readonly files: readonly FileChange[];
  record(): IterationChangesRecord;
  /** Discards the iteration's file changes, kept under a ref (its name; null when nothing changed). */
  discard(runId: string, iteration: number): Promise<string | null>;
  dispose(options?: { reusable?: boolean }): Promise<void>;
}

/** Takes the snapshots of a run's iterations (RunDeps.changes). */
export interface ChangeTracker {
  /** loop.discard_failed: the runner discards every failed iteration (unless its program does it itself). */
  readonly discardFailed: boolean;
  before(dir: string): Promise<BeforeSnapshot>;
  after(before: BeforeSnapshot): Promise<TrackedIteration>;
  /**
   * A checkpoint of the tree the last snapshot after an iteration in `dir` wrote (work-checkpoint.ts), while no
   * iteration runs there and only if that iteration was disposed of as reusable (nothing else wrote in the worktree
   * since); null when that is not the fast case (the caller takes git/checkpoint.ts's path).
   */
  checkpoint(dir: string, message: string): Promise<CheckpointResult | null>;
}

/** A tracker for git workspaces: one private index per directory for the whole run (close() removes them). */
export function createChangeTracker(options: { discardFailed: boolean }): ChangeTracker & { close(): Promise<void> } {
  // What a ringmaster killed with kill -9 left in the temp directory goes now (off the run's path, errors ignored).
  void removeStaleTempIndexes().catch(() => undefined);
  const indexes = new Map<string, Promise<WorkIndex>>();
  /** Iterations between their snapshots, per directory. */
  const running = new Map<string, number>();
  const indexOf = (dir: string): Promise<WorkIndex> => {
    let entry = indexes.get(dir);
    if (entry === undefined) {
      entry = openWorkIndex(dir);
      indexes.set(dir, entry);
    }
    return entry;
  };
  const count = (dir: string, by: number): void => void running.set(dir, (running.get(dir) ?? 0) + by);
  /** When each directory's last iteration was disposed of as reusable. */
  const reusable = new Map<string, number>();
  return {
    discardFailed: options.discardFailed,
    async before(dir) {
      const work = await indexOf(dir);
      const copy = tempIndexPath();
      try {
        // Put back by a discard, which only loop.discard_failed (tasks.rollback_failed_iterations) asks for.
        if (options.discardFailed) await copyIndexFile(work.real, copy).catch(() => undefined);
        const since = performance.now() - (reusable.get(dir) ?? -Infinity);
        reusable.delete(dir);
        if (work.stale) await work.reseed();
        const carried = since <= REUSE_WITHIN_MS && (running.get(dir) ?? 0) === 0 ? work.settled : null;
        let tree: Promise<string>;
        if (carried !== null) tree = Promise.resolve(carried.tree);
        else {
          await work.stage();
          tree = work.writeTree();
          // Seen by `after`; a failure here must not be an unhandled rejection meanwhile.
          tree.catch(() => undefined);
        }
        count(dir, 1);
        return { dir, tree, index: { file: work.real, copy }, work };
      } catch (error) {
        // An iteration that runs untracked: the tree the private index holds is no longer the worktree's.
        work.settled = null;
        await rm(copy, { force: true });
        throw error;
      }
    },
    async after(before) {
      const { work } = before;
      try {
        const beforeTree = await before.tree;
        await work.stage();
        const tree = await work.writeTree();
        // In process from the loose trees write-tree just wrote (git only when one is packed): no git process.
        const diff = await work.diffTrees(beforeTree, tree);
        if ((running.get(before.dir) ?? 0) === 1) work.settled = { before: beforeTree, tree, own: diff.own };
        return trackedIteration(before, beforeTree, tree, diff.changes, (at) => void reusable.set(before.dir, at));
      } catch (error) {
        await rm(before.index.copy, { force: true });
        throw error;
      } finally {
        count(before.dir, -1);
      }
    },
    async checkpoint(dir, message) {
      const entry = indexes.get(dir);
      if (entry === undefined || (running.get(dir) ?? 0) > 0) return null;
      return checkpointSettled(await entry, message);
    },
    async close() {
      const all = await Promise.allSettled([...indexes.values()]);
      indexes.clear();
      for (const entry of all) if (entry.status === 'fulfilled') await entry.value.dispose();
    },
  };
}

function trackedIteration(before: BeforeSnapshot, beforeTree: string, after: string, files: FileChange[], reusableAt: (at: number) => void): TrackedIteration {
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
        // The files go back to the before-tree: the private index no longer holds the worktree's tree.
        before.work.settled = null;
        const name = discardedRef(runId, iteration);
        const message = `[ringmaster] discarded iteration ${iteration} of run ${runId}`;
        await discardChanges({ dir: before.dir, before: beforeTree, after, changes: files, ref: name, message, index: before.index });
        ref = name;
        return name;
      })();
      return discarded;
    },
    async dispose(how = {}) {
      if (how.reusable === true && discarded === null) reusableAt(performance.now());
      // Something else may write in the worktree now (the program's commands, a task's progress): its tree is not the one
      // the private index holds any more, for the next snapshot or a checkpoint.
      else before.work.settled = null;
      await rm(before.index.copy, { force: true });
    },
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
