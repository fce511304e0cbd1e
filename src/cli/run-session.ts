// A run driven from the terminal: the user's store, one RunController, a control poller (pause / resume /
// stop from other terminals), process signals (INT/TERM/HUP interrupt the run), and the renderer.
import type { LoopProgram } from '../runner/program.js';
import type { RunSummary } from '../runner/run-loop.js';
import type { RunSpec } from '../runner/spec.js';
import { ControlPoller } from '../manager/control-poller.js';
import { RunController, type ClaimInfo } from '../manager/run-controller.js';
import { configuredDatabaseUrl } from '../config/database.js';
import { openStore } from '../store/index.js';
import type { CliIO } from './command.js';
import { exitCodeFor } from './exit-codes.js';
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
  const target = { out: io.stdout, err: io.stderr };
  const render = options.json
    ? jsonRenderer(target)
    : humanRenderer(target, { color: useColor(io.stdout, io.env), maxRuntimeMs: spec.limits.maxRuntimeMs, maxCostUsd: spec.limits.maxCostUsd, verbose: options.verbose === true });
  const store = await openStore({ env: io.env, workspace: options.workspace, databaseUrl: configuredDatabaseUrl(options.workspace, io.env) });
  const controller = new RunController({
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
  const removeSignal = io.onSignal((signal) => {
    if (!options.json) io.stderr.write(`\nReceived ${signal}: stopping the agent...\n`);
    controller.interrupt();
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
