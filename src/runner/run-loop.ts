// The imperative shell of one run: ask the program what to run, run an iteration, let the program judge it,
// ask decide(), pause or sleep at the boundary, repeat. Everything with side effects comes in through RunDeps.
import { getAdapter } from '../agents/registry.js';
import type { SuspendSignal } from '../agents/suspend-signal.js';
import type { AgentAdapter } from '../agents/types.js';
import { decide, initialState, limitReached, runtimeUsedMs } from '../core/decide.js';
import { UserError } from '../core/errors.js';
import type { Decision, IterationResult, LoopState, RunStatus, StopReason } from '../core/types.js';
import { iterationTag } from '../os/process-tag.js';
import { dataDir, iterationLogPath } from '../store/paths.js';
import type { AgentActivity, AgentActivityBody, AgentActivitySink, RunEventBody, RunEventBodySink } from './events.js';
import { eventUnit, iterationEvents } from './iteration-events.js';
import { runIteration, type IterationRunner } from './iteration.js';
import { ensureAgentClis, withBinDirs } from './agent-install.js';
import { promptProgram, type LoopProgram, type ProgramContext, type ProgramStep, type ProgramStop } from './program.js';
import type { RunSpec } from './spec.js';

/** Pause requests as the loop sees them: taken at the next iteration boundary. */
export interface PauseControl {
  /** The pending pause request (who asked), or null. */
  requested(): { by: string | null } | null;
  /** Resolves when the run is resumed, stopped or interrupted. */
  waitUntilResumed(): Promise<void>;
  /** Suspends the running agent (`pause --now`); the time it is suspended does not count toward max runtime. */
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
  /** Runs each iteration (default: in this thread; a server hands a pool of worker threads). */
  runIteration?: IterationRunner;
  /** Where iteration logs go; default: the data directory's logs/<run>/iteration-<n>.log. */
  logPath?(runId: string, iteration: number): string;
  /** Awaited before each agent process starts (the store writes the iteration row here). */
  beforeIteration?(runId: string, iteration: number, agent: string, logPath: string, unitId: string | null): Promise<void>;
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
}

/** Continuing an existing run (resume after a crash, a stop or a limit). */
export interface ResumePoint {
  runId: string;
  state: LoopState;
  lastSessionId: string | null;
  /** The wait for a usage or rate limit the run was in when its previous owner let it go: it goes on waiting. */
  wait?: { until: number; reason: WaitReason } | null;
}

/** Why a run waits before its next iteration. */
export type WaitReason = 'usage_limit' | 'rate_limit' | 'overloaded';

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

/** Default sleep: a timer that an AbortSignal cuts short, safe for any length (os/timers.ts). */
export { sleep as abortableSleep } from '../os/timers.js';

type Stop = Extract<Decision, { kind: 'stop' }>;
const INTERRUPTED: Stop = { kind: 'stop', reason: 'interrupted', status: 'stopped' };
const FATAL: Stop = { kind: 'stop', reason: 'fatal_error', status: 'failed' };

/** Runs a loop to its end and returns the summary. Throws only for bugs and invalid specs. */
export async function runLoop(spec: RunSpec, deps: RunDeps, resume?: ResumePoint): Promise<RunSummary> {
  const runId = resume?.runId ?? deps.newRunId();
  let state: LoopState = resume ? { ...resume.state, startedAtMs: deps.now() } : initialState(deps.now());
  const limits = spec.limits;
  const program = deps.program ?? promptProgram(spec);
  const chain = [spec.agent.name, ...spec.agent.fallback.filter((n) => n !== spec.agent.name)];
  let agentIndex = 0;
  let runAgentSpec = { name: chain[0] ?? spec.agent.name, command: spec.agent.command };
  let runAgent: AgentAdapter = getAdapter(runAgentSpec);
  let lastSession: { id: string; agent: string } | null = resume?.lastSessionId ? { id: resume.lastSessionId, agent: runAgent.name } : null;
  const sessionCost = new Map<string, number>();
  // Iteration logs still being flushed: awaited before the run reports its end, never between iterations.
  const openLogs = new Set<Promise<void>>();
  const emit = (event: RunEventBody): void => deps.onEvent(event);
  // A plain copy: adapters spread the env into every invocation, and spreading process.env is slow.
  const env = { ...deps.env };
  const logsRoot = deps.logPath ? null : dataDir(env);
  const logPathOf = (iteration: number): string => deps.logPath?.(runId, iteration) ?? iterationLogPath(logsRoot ?? '', runId, iteration);
  const displayMax = (): number | null => (limits.maxIterations === null ? null : limits.maxIterations + state.waitedIterations);
  const stopRequested = (): boolean => deps.stopRequested?.() ?? false;
  const context = (): ProgramContext => ({ runId, workspace: spec.workspace, state, now: () => deps.now(), signal: deps.signal, emit });
  const publishMetadata = (): void => deps.onMetadata?.(program.metadata());
  /** Sleeps unless interrupted or woken by a pause/stop request; true when the full time passed. */
  const sleepAwake = async (ms: number): Promise<boolean> => {
    if (!deps.wakeSignal) return deps.sleep(ms, deps.signal);
    // Combined by hand with listeners removed after each sleep: nothing accumulates on the run's long-lived signal.
    const wake = deps.wakeSignal();
    const combined = new AbortController();
    const onAbort = (): void => combined.abort();
    if (deps.signal.aborted || wake.aborted) combined.abort();
    deps.signal.addEventListener('abort', onAbort, { once: true });
    wake.addEventListener('abort', onAbort, { once: true });
    try {
      return await deps.sleep(ms, combined.signal);
    } finally {
      deps.signal.removeEventListener('abort', onAbort);
      wake.removeEventListener('abort', onAbort);
    }
  };

  emit({ type: 'run_started', time: deps.now(), kind: program.kind, label: spec.label, max_iterations: limits.maxIterations, workspace: spec.workspace, agent: runAgent.name, resumed: resume !== undefined });
  for (const message of deps.startWarnings ?? []) emit({ type: 'warning', time: deps.now(), message });
  if (limits.maxCostUsd !== null && runAgent.format === 'text') {
    emit({ type: 'warning', time: deps.now(), message: `agent '${runAgent.name}' reports no cost: max_cost ($${limits.maxCostUsd}) cannot be enforced` });
  }

  let final: Stop | ProgramStop | null = null;
  let message: string | null = null;
  // agent.auto_install: the run's agents missing from PATH are installed in the data directory first.
  if (spec.agent.autoInstall !== undefined && spec.agent.autoInstall !== false && spec.agent.command === null) {
    try {
      const binDirs = await ensureAgentClis(chain, spec.agent.autoInstall, dataDir(env), env, (notice) => emit({ type: 'agent_install', time: deps.now(), ...notice }));
      Object.assign(env, withBinDirs(env, binDirs));
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      final = FATAL;
      message = error.message;
    }
  }
  let waitUntil: number | null = resume?.wait?.until ?? null;
  let waitReason: WaitReason = resume?.wait?.reason ?? 'usage_limit';
  const fatalError = (): string | null => deps.fatalError?.() ?? null;
  while (final === null) {
    if (fatalError() !== null) {
      final = FATAL;
      break;
    }
    if (deps.signal.aborted) {
      final = INTERRUPTED;
      break;
    }
    const pause = deps.pause?.requested() ?? null;
    // A paused run being handed over goes to its next owner paused (its stored status), not through another pause.
    if (pause && !stopRequested() && !deps.handOver?.()) {
      await pauseHere(pause.by);
      continue;
    }
    final = limitReached(state, limits, deps.now(), stopRequested()) as Stop | null;
    if (final) break;
    if (deps.handOver?.()) {
      await Promise.all(openLogs);
      // The next owner starts from this state: the last checkpoint (pushed by a worker) holds the work so far.
      await finishHook(state, 'running', 'interrupted');
      return { runId, status: 'running', stopReason: 'interrupted', state, message: null, handedOver: true };
    }
    if (waitUntil !== null && waitUntil > deps.now()) {
      emit({ type: 'waiting', time: deps.now(), iteration: state.iteration, until: waitUntil, reason: waitReason });
      if (!(await sleepAwake(waitUntil - deps.now()))) continue;
    }
    waitUntil = null;

    let step: ProgramStep | ProgramStop;
    try {
      step = await program.next(context());
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      step = { kind: 'stop', reason: 'fatal_error', status: 'failed', message: error.message };
    }
    publishMetadata();
    if (step.kind === 'stop') {
      final = step;
      message = step.message;
      break;
    }
    // A new unit (task, workflow step) starts with no consecutive failures: they were the previous unit's.
    if (step.unit?.iteration === 1 && state.consecutiveFailures > 0) state = { ...state, consecutiveFailures: 0 };
    const iteration = state.iteration + 1;
    const stepAgentSpec = step.agent?.name ? { name: step.agent.name, command: step.agent.command ?? spec.agent.command } : null;
    const adapter = stepAgentSpec ? getAdapter(stepAgentSpec) : runAgent;
    const logPath = logPathOf(iteration);
    emit({ type: 'iteration_started', time: deps.now(), iteration, max_iterations: displayMax(), agent: adapter.name, log_path: logPath, unit: eventUnit(step.unit) });
    if (deps.beforeIteration) {
      try {
        await deps.beforeIteration(runId, iteration, adapter.name, logPath, step.unit?.id ?? null);
      } catch (error) {
        // The iteration cannot be recorded (the store cannot be written): the agent does not start, the run ends.
        if (!(error instanceof UserError)) throw error;
        final = FATAL;
        message = error.message;
        break;
      }
    }
    // Interrupted while the row was written (e.g. the run was taken over): no agent starts.
    if (deps.signal.aborted) {
      final = INTERRUPTED;
      break;
    }
    const resumeId = !step.freshSession && adapter.supportsResume && lastSession?.agent === adapter.name ? lastSession.id : null;
    const onActivity = deps.onActivity ?? null;
    const observe = program.observe ? program.observe.bind(program) : null;
    const activitySink =
      onActivity || observe
        ? (body: AgentActivityBody): void => {
            const activity: AgentActivity = { ...body, iteration, time: deps.now() };
            observe?.(activity);
            onActivity?.(activity);
          }
        : null;
    const suspend = deps.pause?.suspend;
    const suspendedBefore = suspend?.suspendedMs() ?? 0;
    const outcome = await (deps.runIteration ?? runIteration)({
      adapter,
      agentSpec: stepAgentSpec ?? runAgentSpec,
      prompt: step.prompt,
      cwd: spec.workspace,
      logPath,
      model: step.agent?.model !== undefined ? step.agent.model : spec.agent.model,
      extraArgs: spec.agent.args,
      permissionMode: spec.agent.permissionMode,
      resumeSessionId: resumeId,
      resumeCostBaseline: resumeId ? (sessionCost.get(resumeId) ?? 0) : 0,
      env,
      successSignals: step.successSignals ?? spec.successSignals,
      completion: step.completion ?? null,
      completionScanner: step.completionScanner ?? null,
      failureSignal: spec.failureSignal,
      idleTimeoutMs: step.idleTimeoutMs !== undefined ? step.idleTimeoutMs : spec.idleTimeoutMs,
      hardTimeoutMs: spec.iterationTimeoutMs,
      deadlineMs: limits.maxRuntimeMs === null ? null : deps.now() + Math.max(0, limits.maxRuntimeMs - runtimeUsedMs(state, deps.now())),
      killGraceMs: spec.killGraceMs,
      maxLogBytes: spec.maxLogBytes,
      prices: spec.prices,
      signal: deps.signal,
      ...(suspend ? { suspend } : {}),
      onSpawn: deps.onAgentSpawn ? (pid) => deps.onAgentSpawn?.(runId, iteration, pid) : undefined,
      tag: iterationTag(runId, iteration),
      onActivity: activitySink,
    });
    // Time the agent spent suspended (`pause --now`) does not count toward max runtime, like a pause.
    if (suspend) state = { ...state, startedAtMs: state.startedAtMs + Math.max(0, suspend.suspendedMs() - suspendedBefore) };
    openLogs.add(outcome.logClosed);
    void outcome.logClosed.then(() => openLogs.delete(outcome.logClosed));
    if (outcome.result.sessionId) {
      lastSession = { id: outcome.result.sessionId, agent: adapter.name };
      if (outcome.sessionCumulativeCost !== null) sessionCost.set(outcome.result.sessionId, outcome.sessionCumulativeCost);
    }
    const settled = await settle(step, iteration, outcome.result, outcome.text, logPath);
    publishMetadata();
    const decided = decide({ state, result: settled.result, limits, nowMs: deps.now(), stopRequested: stopRequested(), completionEnds: settled.completionEnds, unitEnded: settled.unitEnded ?? false });
    state = decided.state;
    for (const e of iterationEvents({ time: deps.now(), iteration, maxIterations: displayMax(), result: settled.result, decided, limits, malformedLines: outcome.malformedLines, agent: adapter.name, unit: step.unit })) emit(e);
    for (const warning of outcome.warnings) emit({ type: 'warning', time: deps.now(), message: `iteration ${iteration}: ${warning}` });
    if (outcome.malformedLines > 0) {
      emit({ type: 'warning', time: deps.now(), message: `iteration ${iteration}: ${outcome.malformedLines} malformed output line(s) from ${adapter.name} skipped (see ${logPath})` });
    }
    for (const e of settled.events ?? []) emit(e);
    if (deps.afterIteration) {
      try {
        await deps.afterIteration(runId, iteration, state);
      } catch (error) {
        emit({ type: 'warning', time: deps.now(), message: `after iteration ${iteration}: ${(error as Error).message}` });
      }
    }
    const decision = decided.decision;
    // The program's stop comes first: it says more (the workflow completed, which step failed) than a limit reached at the same iteration.
    if (settled.stop) {
      final = settled.stop;
      message = settled.stop.message;
      break;
    }
    if (decision.kind === 'stop') {
      final = decision;
      if (decision.reason === 'fatal_error') message = settled.result.errorMessage;
      break;
    }
    if (decision.kind === 'wait') {
      const next = chain[agentIndex + 1];
      if (next !== undefined && decision.reason !== 'overloaded' && adapter === runAgent) {
        agentIndex += 1;
        const previous = runAgent.name;
        runAgentSpec = { name: next, command: spec.agent.command };
        runAgent = getAdapter(runAgentSpec);
        lastSession = null;
        emit({ type: 'agent_switched', time: deps.now(), from: previous, to: runAgent.name, reason: settled.result.errorMessage ?? decision.reason });
        continue;
      }
      waitUntil = decision.untilMs;
      waitReason = decision.reason;
      continue;
    }
    await sleepAwake(decision.delayMs);
  }

  // An interrupt that a stop request caused is a user stop, not a crash-like interruption.
  await Promise.all(openLogs);
  const fatal = fatalError();
  if (fatal !== null) message = fatal;
  const end: Stop | ProgramStop = fatal !== null ? FATAL : final.reason === 'interrupted' && stopRequested() ? { kind: 'stop', reason: 'user_stop', status: 'stopped' } : final;
  await finishHook(state, end.status, end.reason);
  const time = deps.now();
  if (end.status === 'completed') emit({ type: 'completed', time, stop_reason: end.reason });
  else if (end.status === 'failed') emit({ type: 'failed', time, stop_reason: end.reason, message });
  else emit({ type: 'stopped', time, stop_reason: end.reason });
  emit({
    type: 'run_finished',
    time,
    status: end.status,
    stop_reason: end.reason,
    iterations: state.iteration,
    total_ms: Math.round(runtimeUsedMs(state, time)),
    cost_usd: state.totalCostUsd,
    cost_unknown: state.costUnknown,
    tokens_in: state.totalUsage.tokensIn,
    tokens_out: state.totalUsage.tokensOut,
    consecutive_failures: state.consecutiveFailures,
    failure_threshold: limits.failureThreshold,
    max_iterations: limits.maxIterations,
    message,
  });
  return { runId, status: end.status, stopReason: end.reason, state, message };

  async function settle(step: ProgramStep, iteration: number, result: IterationResult, text: string, logPath: string) {
    // An interrupted iteration is not the program's to judge: the run ends as interrupted.
    if (result.errorKind === 'interrupted') return { result, completionEnds: 'run' as const, stop: null, events: [] };
    return program.settle(context(), { iteration, step, result, text, logPath });
  }

  async function finishHook(at: LoopState, status: RunStatus, reason: StopReason): Promise<void> {
    if (!deps.beforeFinish) return;
    try {
      await deps.beforeFinish(runId, at, status, reason);
    } catch (error) {
      emit({ type: 'warning', time: deps.now(), message: `finishing the run: ${(error as Error).message}` });
    }
  }

  async function pauseHere(by: string | null): Promise<void> {
    const at = deps.now();
    emit({ type: 'paused', time: at, after_iteration: state.iteration, by, suspended: false });
    await deps.pause?.waitUntilResumed();
    const pausedMs = Math.max(0, deps.now() - at);
    // Time spent paused does not count toward max runtime.
    state = { ...state, startedAtMs: state.startedAtMs + pausedMs };
    if (!deps.signal.aborted && !stopRequested() && !deps.handOver?.()) emit({ type: 'resumed', time: deps.now(), paused_ms: pausedMs });
  }
}
