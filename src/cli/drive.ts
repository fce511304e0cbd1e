// Drives one run from the CLI with everything around the loop: workspace lock, store, git exclusion and
// checkpoints, worktree, signals, rendering. Shared by `run`, `resume` and `demo`.
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { ensureExcluded, isGitRepo } from '../git/index.js';
import { acquireLock, type HeldLock } from '../runner/lock.js';
import { createRecorder, stopRequestPath } from '../runner/recorder.js';
import { runLoop, type ResumePoint } from '../runner/run-loop.js';
import { specForStorage, type RunSpec } from '../runner/spec.js';
import { redactor } from '../core/redact.js';
import { openStore, type Store } from '../store/index.js';
import type { CliIO } from './command.js';
import { cliRunDeps, exitCodeFor } from './commands/run.js';

/** How a CLI run is set up. */
export interface DriveOptions {
  /** The user's workspace: holds .ringmaster/ (store, lock, logs). */
  workspace: string;
  runId: string;
  spec: RunSpec;
  json?: boolean;
  verbose?: boolean;
  /** Continue this run instead of creating it. */
  resume?: ResumePoint;
  /** With --worktree: the worktree the agent works in, and its branch. No workspace lock is taken. */
  worktree?: { path: string; branch: string } | null;
  /** Registers the run in the store instead of creating it (resume: claims it and returns where to continue). */
  register?(store: Store): Promise<ResumePoint>;
}

/** Runs the loop with lock, store and checkpoints; returns the exit code. */
export async function driveRun(io: CliIO, options: DriveOptions): Promise<number> {
  const { workspace, runId, spec } = options;
  const lock: HeldLock | null = options.worktree ? null : await acquireLock(workspace, runId);
  const store = openStore(workspace);
  const controller = new AbortController();
  const removeSignal = io.onSignal((signal) => {
    if (!controller.signal.aborted) {
      if (!options.json) io.stderr.write(`\nReceived ${signal}: stopping the agent...\n`);
      controller.abort();
    }
  });
  try {
    const gitEnabled = await isGitRepo(spec.workspace);
    const base = cliRunDeps(io, { json: options.json, verbose: options.verbose }, spec, controller.signal);
    if (gitEnabled) await ensureExcluded(spec.workspace);
    const owner = { pid: process.pid, host: hostname() };
    let resume = options.resume;
    if (options.register) resume = await options.register(store);
    else {
      await store.createRun({
        id: runId,
        agent: spec.agent.name,
        spec: specForStorage(spec, redactor(io.env)),
        workspace,
        worktree: options.worktree?.path ?? null,
        branch: options.worktree?.branch ?? null,
        owner,
        now: Date.now(),
      });
    }
    const recorder = createRecorder({
      store,
      runId,
      workspace,
      agentDir: spec.workspace,
      owner,
      checkpointInterval: spec.checkpointInterval,
      gitEnabled,
      now: () => Date.now(),
      onLostOwnership: () => {
        base.onEvent({ type: 'warning', time: Date.now(), message: `run ${runId} was taken over by another process: stopping here` });
        controller.abort();
      },
    });
    const onEvent = recorder.wrap(base.onEvent);
    if (!gitEnabled && spec.checkpointInterval > 0) {
      onEvent({ type: 'warning', time: Date.now(), message: `${spec.workspace} is not a git repository: checkpoints are off` });
    }
    const stopFile = stopRequestPath(workspace, runId);
    try {
      const summary = await runLoop(
        spec,
        { ...base, ...recorder.deps, onEvent, newRunId: () => runId, stopRequested: () => existsSync(stopFile) },
        resume,
      );
      return exitCodeFor(summary.stopReason);
    } finally {
      await recorder.close();
    }
  } finally {
    removeSignal();
    await store.close();
    await lock?.release();
  }
}
