// A run driven from the terminal: the user's store, one RunController, a control poller (pause / resume /
// stop from other terminals), process signals (INT/TERM/HUP interrupt the run), and the renderer.
import type { LoopProgram } from '../runner/program.js';
import type { RunSummary } from '../runner/run-loop.js';
import type { RunSpec } from '../spec/run-spec.js';
import { ControlPoller } from '../manager/control-poller.js';
import { RunController, type ClaimInfo } from '../manager/run-controller.js';
import { configuredDatabaseUrl } from '../config/database.js';
import { busyLine, lockedBy, openStore, type BusyNotice } from '../store/index.js';
import type { CliIO } from './command.js';
import { exitCodeFor } from './exit-codes.js';
import { boundHeapForAgentOutput } from './heap-flags.js';
import { humanRenderer, jsonRenderer, useColor, verboseActivity } from './render.js';

/** How a terminal run is set up. */
export interface SessionOptions {
  /** The user's workspace (where the run was started). */
  workspace: string;
  runId: string;
  spec: RunSpec;
  json?: boolean | undefined;
  verbose?: boolean | undefined;
  /** 'create' a new run, or 'claim' an existing one (resume). */
  mode: 'create' | 'claim';
  program?: LoopProgram;
  /** With --worktree: the worktree the agent works in, and its branch. No workspace lock is taken. */
  worktree?: { path: string; branch: string } | null;
  /** With mode 'claim': told what was taken over (the CLI prints it). */
  onClaim?: (info: ClaimInfo) => void;
}

/** Runs the loop in this process until it ends; returns the summary and the exit code. */
export async function runInTerminal(io: CliIO, options: SessionOptions): Promise<{ summary: RunSummary; exitCode: number }> {
  const { spec } = options;
  const target = { out: io.stdout, err: io.stderr, openLine: { value: false } };
  const render = options.json
    ? jsonRenderer(target)
    : humanRenderer(target, { color: useColor(io.stdout, io.env), maxRuntimeMs: spec.limits.maxRuntimeMs, maxCostUsd: spec.limits.maxCostUsd, verbose: options.verbose === true });
  let controller: RunController | null = null;
  // Another process holds the database: the run waits (nothing is lost) and says who it waits for.
  let waitingForDatabase = false;
  const onBusy = (notice: BusyNotice): void => {
    waitingForDatabase = notice.state === 'waiting';
    if (notice.state === 'waiting') io.stderr.write(`ringmaster: ${busyLine(notice)}\n`);
    else controller?.warn(`the database was ${lockedBy(notice.holders)}: the run's writes waited ${(notice.waitedMs / 1000).toFixed(1)}s, nothing was lost`);
  };
  const store = await openStore({ env: io.env, workspace: options.workspace, databaseUrl: configuredDatabaseUrl(options.workspace, io.env), onBusy });
  boundHeapForAgentOutput();
  controller = new RunController({
    store,
    env: io.env,
    runId: options.runId,
    spec,
    workspace: options.workspace,
    worktree: options.worktree ?? null,
    mode: options.mode,
    ...(options.program ? { program: options.program } : {}),
    onEvent: render,
    onActivity: options.verbose ? verboseActivity(target) : null,
    onStoreError: (message) => io.stderr.write(`WARNING: ${message}\n`),
    ...(options.onClaim ? { onClaim: options.onClaim } : {}),
  });
  const poller = new ControlPoller(store, { onError: (error) => io.stderr.write(`WARNING: control requests: ${error.message}\n`) });
  const unregister = poller.register(controller);
  // Ctrl+C, `kill`, or the terminal closing (SIGHUP): the agent must never go on unsupervised.
  let signals = 0;
  const removeSignal = io.onSignal((signal) => {
    // A second signal while the database is locked: stop waiting for it (the run's last rows are not written;
    // it is recovered later as after a crash).
    if (++signals > 1 && waitingForDatabase) {
      io.stderr.write(`\nReceived ${signal} again: giving up waiting for the database; 'ringmaster resume' recovers the run\n`);
      void store.close();
      return;
    }
    if (!options.json) io.stderr.write(`\nReceived ${signal}: stopping the agent...\n`);
    controller?.control({ kind: 'interrupt' });
  });
  try {
    const summary = await controller.run();
    return { summary, exitCode: exitCodeFor(summary.stopReason) };
  } finally {
    removeSignal();
    unregister();
    poller.stop();
    await store.close();
  }
}
