// Temporary directories and child processes of a test file, all removed / ended after its last test, even
// when a test failed half-way (a live CLI gets SIGTERM, so it kills its agents before it exits).
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** The file's scratch space. */
export interface Scratch {
  /** A new temporary directory, removed after the file's tests. */
  temp(prefix: string): string;
  /** Removes `dir` (made elsewhere, e.g. by tempRepo) after the file's tests too; returns it. */
  adopt(dir: string): string;
  /** A child process to end (SIGTERM) after the file's tests if it still runs. */
  track(child: ChildProcess): void;
}

/** Registers the cleanup hook and returns the file's scratch space. */
export function useScratch(): Scratch {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    // A repository's run worktrees live next to it (<repo>.ringmaster-worktrees): removed with it.
    for (const dir of dirs) for (const path of [dir, `${dir}.ringmaster-worktrees`]) rmSync(path, { recursive: true, force: true });
  });
  return {
    temp(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    adopt(dir) {
      dirs.push(dir);
      return dir;
    },
    track(child) {
      children.push(child);
    },
  };
}
