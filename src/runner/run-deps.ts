// What a run needs from its surroundings (RunDeps: clock, events, store hooks, pause and stop), where it continues
// from (ResumePoint), and how it ended (RunSummary): the contract of runLoop (run-loop.ts).
import type { SuspendSignal } from '../agents/suspend-signal.js';
import type { LoopState, RunStatus, StopReason } from '../core/types.js';
import type { WaitReason } from '../core/run-step.js';
import type { ChangeTracker } from './change-tracking.js';
import type { AgentActivitySink, RunEventBodySink } from './events.js';
import type { IterationRunner } from './iteration.js';
import type { LoopProgram } from './program.js';
import type { BudgetGate } from './budget-gate.js';
import type { NoteInbox } from './notes.js';

/** Pause requests as the loop sees them: taken at the next iteration boundary. */
export interface PauseControl {
  /** The pending pause request (who asked), or null. */
  requested(): { by: string | null } | null;
  /** Resolves when the run is resumed, stopped or interrupted. */
  waitUntilResumed(): Promise<void>;
  /** Suspends the running agents (`pause --now`); the time they are suspended does not count toward max runtime. */
  suspend?: SuspendSignal & { suspendedMs(): number };
}

/** Side effects a run needs, injected so tests and the library can replace them. */
export interface RunDeps {
  now(): number;
  newRunId(): string;
  /** Sleeps, resolving early (with false) when the signal aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<boolean>;
  env: Readonly<Record<string, string | undefined>>;
  /** Receives the run's events (bodies: the run controller stamps run_id and seq). */
  onEvent: RunEventBodySink;
  /** Receives live agent activity (output, text, tool calls); null/absent = not wanted. */
  onActivity?: AgentActivitySink | null;
  /** Aborting it interrupts the run (SIGINT/SIGTERM, server shutdown): the agent's process group is killed. */
  signal: AbortSignal;
  /** Checked at every boundary: an external stop request (user, manager). */
  stopRequested?(): boolean;
  /** A fresh signal per sleep that aborts when a pause or stop is requested, so the loop acts at once. */
  wakeSignal?(): AbortSignal;
  /** Pause requests; without it the run cannot be paused. */
  pause?: PauseControl;
  /** Checked at every boundary: true ends the loop there without ending the run (a worker hands it to its next job). */
  handOver?(): boolean;
  /** Warnings known before the loop starts (e.g. no git repository), reported right after run_started. */
  startWarnings?: readonly string[];
  /** What the run runs; default: the spec's prompt (promptProgram). */
  program?: LoopProgram;
  /** Runs each iteration (default: in this process; a server hands a pool of helper processes). */
  runIteration?: IterationRunner;
  /** The run's notes (docs/notes.md): each iteration claims the pending ones for its prompt; absent = none. */
  notes?: NoteInbox;
  /** Where iteration logs go; default: the data directory's logs/<run>/iteration-<n>.log. */
  logPath?(runId: string, iteration: number): string;
  /** Awaited before each agent process starts (the store writes the iteration row here). */
  beforeIteration?(runId: string, iteration: number, agent: string, logPath: string, unitId: string | null): Promise<void>;
  /** Snapshots the worktree before and after each iteration (files_changed, loop.discard_failed); absent = no tracking. */
  changes?: ChangeTracker;
  /** Called with the agent's pid (= its process group id) once it is spawned. */
  onAgentSpawn?(runId: string, iteration: number, pid: number): void;
  /** Called after each iteration (checkpoints, heartbeat); errors become warnings. */
  afterIteration?(runId: string, iteration: number, state: LoopState): Promise<void>;
  /** Called when the program's metadata may have changed (after each next() and settle()). */
  onMetadata?(metadata: Record<string, unknown>): void;
  /** Called once at the end, before the final events. */
  beforeFinish?(runId: string, state: LoopState, status: RunStatus, reason: StopReason): Promise<void>;
  /**
   * Why the run cannot go on (the store or the disk cannot be written), or null. Checked at every boundary and
   * when the run is interrupted: the run then ends failed (fatal_error) with this message.
   */
  fatalError?(): string | null;
  /** The shared budget (budget-gate.ts): read at every iteration boundary; absent = none. */
  budgetGate?: BudgetGate;
}

/** Why a run waits before its next iteration. */
export type { WaitReason } from '../core/run-step.js';

/** Continuing an existing run (resume after a crash, a stop or a limit; a worker's continuation job). */
export interface ResumePoint {
  runId: string;
  state: LoopState;
  lastSessionId: string | null;
  /** The wait for a usage or rate limit the run was in when its previous owner let it go: it goes on waiting. */
  wait?: { until: number; reason: WaitReason } | null;
}

/** How a run ended. */
export interface RunSummary {
  runId: string;
  status: RunStatus;
  stopReason: StopReason;
  state: LoopState;
  message: string | null;
  /** The loop stopped at a boundary to hand the run over (status still running; nothing terminal was emitted). */
  handedOver?: boolean;
}
