// --worktree / `worktree: true`: a new run gets a fresh git worktree on branch ringmaster/<run-id>, and its spec
// is moved into it (the agent works there; a prompt file is read from the worktree's copy).
import { join, relative } from 'node:path';
import { createWorktree } from '../git/index.js';
import type { RunSpec } from '../spec/run-spec.js';

/** The worktree of a run, and whether the user's checkout had changes the worktree does not have. */
export interface PlacedWorktree {
  path: string;
  branch: string;
  sourceDirty: boolean;
}

/** Creates the run's worktree and points `spec` (workspace, prompt file) into it. */
export async function placeInWorktree(workspace: string, runId: string, spec: RunSpec): Promise<PlacedWorktree> {
  const created = await createWorktree(workspace, runId);
  spec.workspace = created.workdir;
  if (spec.prompt.kind === 'file') spec.prompt = { kind: 'file', path: join(created.workdir, relative(workspace, spec.prompt.path)) };
  return { path: created.path, branch: created.branch, sourceDirty: created.sourceDirty };
}
