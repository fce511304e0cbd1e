// The seam between the loop and what it runs: a LoopProgram says what each iteration runs (prompt, unit of
// work, agent, session) and judges each result before the run's limits are checked. The plain prompt loop,
// task loops and workflows are programs; every iteration stays an ordinary recorded iteration.
import type { SignalScanner } from '../core/signals.js';
import type { CompletionRule } from './completion-rule.js';
import type { IterationResult, LoopState, RunStatus, StopReason } from '../core/types.js';
import { composePrompt } from '../prompt/compose.js';
import type { TrackedIteration } from './change-tracking.js';
import type { AgentActivity, RunEventBody } from './events.js';
import type { RunSpec } from '../spec/run-spec.js';
import type { VerifyRecord } from '../store/rows.js';
import { verifyGate } from './verify-gate.js';

/** The unit of work an iteration belongs to (a task, a workflow step): stored on the iteration row. */
export interface ProgramUnit {
  /** Task id or step name; stored as the iteration's `unit_id`. */
  id: string;
  title: string;
  /** 1-based iteration number within the unit. */
  iteration: number;
  /** The unit's own iteration limit, if it has one. */
  maxIterations: number | null;
}

/** What one iteration runs: produced by the program before each iteration. */
export interface ProgramStep {
  kind: 'step';
  /** The full prompt text of this iteration. */
  prompt: string;
  unit: ProgramUnit | null;
  /** Per-step agent overrides (workflow steps); null = the run's agent. */
  agent?: { name?: string; model?: string | null; command?: string[] | null } | null;
  /** true = a new agent session; false = resume the previous iteration's session when the agent can. */
  freshSession: boolean;
  /** This iteration's completion signals (workflow `until`); null = the run's. */
  successSignals?: string[] | null;
  /**
   * How this iteration's completion is judged instead of the run's signals (plain data: it crosses threads):
   * `until` = a workflow loop's signal (docs/workflows.md), `none` = no signal ends it.
   */
  completion?: CompletionRule | null;
  /**
   * A scanner that decides completion instead (a library's own rule), fed the agent's own text as it streams; it
   * keeps the iteration in the thread that runs the loop. Prefer `completion`.
   */
  completionScanner?: (() => SignalScanner) | null;
  /**
   * Other markers this iteration's answer is read from (a task's `<ringmaster-result>` block): like the signals,
   * an occurrence the agent reproduces from the prompt is blanked before anything reads it (core/echo-filter.ts).
   */
  echoSignals?: string[] | null;
  /** This iteration's idle timeout in ms (undefined = the run's; null = none). */
  idleTimeoutMs?: number | null;
  /** The directory the agent works in for this iteration (a task's own worktree); absent/null = the run's workspace. */
  cwd?: string | null;
  /**
   * The lane this iteration belongs to when iterations run at once (LoopProgram.concurrency): each lane has its
   * own consecutive failures and agent session. Absent/null = the run's one lane.
   */
  lane?: string | null;
}

/** Nothing to start until a running iteration ends: only while iterations run at once (LoopProgram.concurrency). */
export interface ProgramWait {
  kind: 'wait';
}

/** The program has nothing left to run, or decided to stop the run. */
export interface ProgramStop {
  kind: 'stop';
  reason: StopReason;
  status: RunStatus;
  /** Shown in the final line and stored. */
  message: string | null;
}

/** What the runner tells the program after an iteration, before the run's limits are checked. */
export interface SettledIteration {
  /** Run-wide iteration number (1-based). */
  iteration: number;
  step: ProgramStep;
  result: IterationResult;
  /** The agent's own text of this iteration (not tool output, not the echoed prompt), its last 64 KiB. */
  text: string;
  logPath: string;
  /** What the iteration changed in its worktree (loop.track_changes), with its discard; null when not tracked. */
  changes?: TrackedIteration | null;
}

/** The program's verdict on an iteration. */
export interface ProgramSettlement {
  /** The result as the program judges it (a verify gate may turn a claimed completion into a failure). */
  result: IterationResult;
  /** 'run': a completion ends the run; 'unit': it ends the current unit only and the run goes on. */
  completionEnds: 'run' | 'unit';
  /**
   * The program gave up the current unit after this iteration (a task blocked at its limit): a failed
   * iteration then neither trips the run's failure threshold nor backs off, and the next unit starts
   * with no consecutive failures.
   */
  unitEnded?: boolean;
  /** Stop the run now whatever the limits say (a task limit with on_failure: stop, a workflow loop out of iterations). */
  stop?: ProgramStop | null;
  /** The program's own events about this iteration (a step ended), emitted after the iteration's events. */
  events?: RunEventBody[];
  /** The verify gate's evidence when its check ran after this iteration (stored on the iteration row). */
  verify?: VerifyRecord | null;
}

/** What a program may use; everything with side effects comes from the runner. */
export interface ProgramContext {
  runId: string;
  /** The directory the agent works in. */
  workspace: string;
  /** Run-wide counters before the next iteration (or after the settled one): `state.iteration` counts finished iterations. */
  state: LoopState;
  /** The run-wide number the next iteration started will get (state.iteration + 1 unless iterations run at once). */
  nextIteration: number;
  now(): number;
  /** Aborted when the run is interrupted or stopped: bound child processes by it. */
  signal: AbortSignal;
  emit(event: RunEventBody): void;
}

/** A source of iterations. */
export interface LoopProgram {
  /** Stored as the run's kind: 'prompt', 'tasks', 'workflow'. */
  readonly kind: string;
  /**
   * Before each iteration: what to run, or a stop when nothing is left. With a concurrency above 1 it is asked
   * again while iterations run, and answers 'wait' when nothing more can start until one of them ends.
   */
  next(ctx: ProgramContext): Promise<ProgramStep | ProgramStop | ProgramWait>;
  /** After each iteration, before the run's limits are checked. */
  settle(ctx: ProgramContext, iteration: SettledIteration): Promise<ProgramSettlement>;
  /** Run metadata to store with the run (JSON object); stored after every next() and settle(): keep it small. */
  metadata(): Record<string, unknown>;
  /**
   * What the program is made of and does not change from iteration to iteration (a workflow's resolved steps), stored
   * once apart from the metadata (Store.updateRunDefinition): when the run is created and when it is resumed. Given
   * back to the program's factory on resume (manager/programs.ts).
   */
  definition?(): Record<string, unknown>;
  /** Sees what the agent does while an iteration runs (tool calls, text), e.g. for lifecycle hooks. Must not throw. */
  observe?(activity: AgentActivity, step: ProgramStep): void;
  /**
   * How many iterations may run at once (asked once, when the run starts; default 1). Above 1 the runner keeps up to
   * that many running, each in its step's `cwd` and `lane`; a stop (the program's, a limit's) ends them all.
   */
  concurrency?(): number;
  /**
   * True when the program itself discards the failed iterations it judges so (SettledIteration.changes.discard, under
   * its own rules): the runner then leaves loop.discard_failed to it.
   */
  readonly discardsFailed?: boolean;
  /**
   * True when next() and settle() change no file in the worktree, or say so (SettledIteration's `verify`: the gate's
   * command ran): change tracking may then take an iteration's before-tree from the previous one's after-tree.
   */
  readonly worktreeUntouched?: boolean;
}

/**
 * The plain loop: the spec's prompt (files re-read every iteration); a completion ends the run. With `verify` a
 * claimed completion ends it only when the verify command passes (verify-gate.ts), run with `env`.
 */
export function promptProgram(spec: Pick<RunSpec, 'prompt' | 'context' | 'freshContext' | 'verify'>, env: Readonly<Record<string, string | undefined>> = process.env): LoopProgram {
  const gate = spec.verify ? verifyGate(spec.verify) : null;
  return {
    kind: 'prompt',
    worktreeUntouched: true,
    next() {
      const prompt = composePrompt(spec.prompt, spec.context);
      const feedback = gate?.feedback() ?? null;
      return Promise.resolve({ kind: 'step', prompt: feedback === null ? prompt : `${prompt.trimEnd()}\n\n## The verify command\n\n${feedback}\n`, unit: null, freshSession: spec.freshContext });
    },
    async settle(ctx, settled) {
      if (!gate) return { result: settled.result, completionEnds: 'run' };
      const gated = await gate.settle(settled.result, { workspace: ctx.workspace, env, signal: ctx.signal });
      return { result: gated.result, completionEnds: 'run', verify: gated.record };
    },
    metadata() {
      return {};
    },
  };
}
