// The imperative shell of one run: compose the prompt, run an iteration, ask decide(), repeat.
// Everything with side effects (clock, ids, sleeping, env, events) comes in through RunDeps.
import { join } from 'node:path';
import { getAdapter } from '../agents/registry.js';
import type { AgentAdapter } from '../agents/types.js';
import { decide, initialState, limitReached, runtimeUsedMs } from '../core/decide.js';
import type { Decision, LoopState, RunStatus, StopReason } from '../core/types.js';
import { iterationTag } from '../os/process-tag.js';
import { composePrompt } from '../prompt/compose.js';
import type { RunEvent, RunEventSink } from './events.js';
import { runIteration } from './iteration.js';
import type { RunSpec } from './spec.js';

/** Side effects a run needs, injected so tests and the library can replace them. */
export interface RunDeps {
  now(): number;
  newRunId(): string;
  /** Sleeps, resolving early (with false) when the signal aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<boolean>;
  env: Readonly<Record<string, string | undefined>>;
  onEvent: RunEventSink;
  /** Aborting it interrupts the run (SIGINT/SIGTERM): the agent's process group is killed. */
  signal: AbortSignal;
  /** Polled between iterations: an external stop request (e.g. `ringmaster stop`). */
  stopRequested?(): boolean;
  /** Stream the agent's output as agent_output events (--verbose). */
  streamOutput: boolean;
  /** Awaited before each agent process starts (the store writes the iteration row here). */
  beforeIteration?(runId: string, iteration: number, agent: string, logPath: string): Promise<void>;
  /** Called with the agent's pid (= its process group id) once it is spawned. */
  onAgentSpawn?(runId: string, iteration: number, pid: number): void;
  /** Called after each iteration (checkpoints, heartbeat); errors become warnings. */
  afterIteration?(runId: string, iteration: number, state: LoopState): Promise<void>;
  /** Called once at the end, before run_finished. */
  beforeFinish?(runId: string, state: LoopState, status: RunStatus, reason: StopReason): Promise<void>;
}

/** Continuing an existing run (resume after a crash or stop). */
export interface ResumePoint {
  runId: string;
  state: LoopState;
  lastSessionId: string | null;
}

/** How a run ended. */
export interface RunSummary {
  runId: string;
  status: RunStatus;
  stopReason: StopReason;
  state: LoopState;
  message: string | null;
}

/** Log file of one iteration. */
export function iterationLogPath(workspace: string, runId: string, iteration: number): string {
  return join(workspace, '.ringmaster', 'runs', runId, `iteration-${iteration}.log`);
}

/** Default sleep: a timer that an AbortSignal cuts short, safe for any length (os/timers.ts). */
export { sleep as abortableSleep } from '../os/timers.js';

/** Runs a loop to its end and returns the summary. Throws only for bugs and invalid specs. */
export async function runLoop(spec: RunSpec, deps: RunDeps, resume?: ResumePoint): Promise<RunSummary> {
  const runId = resume?.runId ?? deps.newRunId();
  let state: LoopState = resume ? { ...resume.state, startedAtMs: deps.now() } : initialState(deps.now());
  const limits = spec.limits;
  const chain = [spec.agent.name, ...spec.agent.fallback.filter((n) => n !== spec.agent.name)];
  let agentIndex = 0;
  let adapter: AgentAdapter = getAdapter({ name: chain[0] ?? spec.agent.name, command: spec.agent.command });
  let lastSessionId: string | null = resume?.lastSessionId ?? null;
  const sessionCost = new Map<string, number>();
  // Iteration logs still being flushed: awaited before the run reports its end, never between iterations.
  const openLogs = new Set<Promise<void>>();
  const emit = (event: RunEvent): void => deps.onEvent(event);
  // A plain copy: adapters spread the env into every invocation, and spreading process.env is slow.
  const env = { ...deps.env };
  const displayMax = (): number | null => (limits.maxIterations === null ? null : limits.maxIterations + state.waitedIterations);

  // Validate the prompt before announcing the run: a missing prompt file is the user's error, not an iteration's.
  composePrompt(spec.prompt, spec.context);

  emit({ type: 'run_started', time: deps.now(), run_id: runId, label: spec.label, max_iterations: limits.maxIterations, workspace: spec.workspace, agent: adapter.name });
  if (limits.maxCostUsd !== null && adapter.format === 'text') {
    emit({ type: 'warning', time: deps.now(), message: `agent '${adapter.name}' reports no cost: max_cost ($${limits.maxCostUsd}) cannot be enforced` });
  }

  let decision: Decision | null = limitReached(state, limits, deps.now(), deps.stopRequested?.() ?? false);
  let message: string | null = null;
  while (decision === null || decision.kind !== 'stop') {
    if (deps.signal.aborted) {
      decision = { kind: 'stop', reason: 'interrupted', status: 'stopped' };
      break;
    }
    const iteration = state.iteration + 1;
    const logPath = iterationLogPath(spec.workspace, runId, iteration);
    const prompt = composePrompt(spec.prompt, spec.context);
    emit({ type: 'iteration_started', time: deps.now(), iteration, max_iterations: displayMax(), agent: adapter.name, log_path: logPath });
    if (deps.beforeIteration) await deps.beforeIteration(runId, iteration, adapter.name, logPath);
    const resumeId = !spec.freshContext && adapter.supportsResume ? lastSessionId : null;
    const outcome = await runIteration({
      adapter,
      prompt,
      cwd: spec.workspace,
      logPath,
      model: spec.agent.model,
      extraArgs: spec.agent.args,
      permissionMode: spec.agent.permissionMode,
      resumeSessionId: resumeId,
      resumeCostBaseline: resumeId ? (sessionCost.get(resumeId) ?? 0) : 0,
      env,
      successSignals: spec.successSignals,
      failureSignal: spec.failureSignal,
      idleTimeoutMs: spec.idleTimeoutMs,
      hardTimeoutMs: spec.iterationTimeoutMs,
      deadlineMs: limits.maxRuntimeMs === null ? null : deps.now() + Math.max(0, limits.maxRuntimeMs - runtimeUsedMs(state, deps.now())),
      killGraceMs: spec.killGraceMs,
      maxLogBytes: spec.maxLogBytes,
      prices: spec.prices,
      signal: deps.signal,
      onSpawn: deps.onAgentSpawn ? (pid) => deps.onAgentSpawn?.(runId, iteration, pid) : undefined,
      tag: iterationTag(runId, iteration),
      onOutput: deps.streamOutput ? (stream, text) => emit({ type: 'agent_output', time: deps.now(), iteration, stream, text }) : null,
    });
    const { result } = outcome;
    openLogs.add(outcome.logClosed);
    void outcome.logClosed.then(() => openLogs.delete(outcome.logClosed));
    if (result.sessionId) {
      lastSessionId = result.sessionId;
      if (outcome.sessionCumulativeCost !== null) sessionCost.set(result.sessionId, outcome.sessionCumulativeCost);
    }
    const decided = decide({ state, result, limits, nowMs: deps.now(), stopRequested: deps.stopRequested?.() ?? false });
    state = decided.state;
    decision = decided.decision;
    emit({
      type: 'iteration_completed',
      time: deps.now(),
      iteration,
      max_iterations: displayMax(),
      outcome: decided.outcome,
      duration_ms: result.durationMs,
      exit_code: result.exitCode,
      exit_signal: result.exitSignal,
      consecutive_failures: state.consecutiveFailures,
      failure_threshold: limits.failureThreshold,
      completion_signal_found: result.successSignal,
      failure_signal_found: result.failureSignal,
      error_kind: result.errorKind,
      error_message: result.errorMessage,
      tokens_in: result.usage?.tokensIn ?? null,
      tokens_out: result.usage?.tokensOut ?? null,
      cache_read: result.usage?.cacheRead ?? null,
      cache_write: result.usage?.cacheWrite ?? null,
      cost_usd: result.costUsd,
      session_id: result.sessionId,
      model: result.model,
      malformed_lines: outcome.malformedLines,
      agent: adapter.name,
    });
    for (const warning of outcome.warnings) emit({ type: 'warning', time: deps.now(), message: `iteration ${iteration}: ${warning}` });
    if (outcome.malformedLines > 0) {
      emit({ type: 'warning', time: deps.now(), message: `iteration ${iteration}: ${outcome.malformedLines} malformed output line(s) from ${adapter.name} skipped (see ${logPath})` });
    }
    if (deps.afterIteration) {
      try {
        await deps.afterIteration(runId, iteration, state);
      } catch (error) {
        emit({ type: 'warning', time: deps.now(), message: `after iteration ${iteration}: ${(error as Error).message}` });
      }
    }
    if (decision.kind === 'stop') {
      if (decision.reason === 'fatal_error') message = result.errorMessage;
      break;
    }
    if (decision.kind === 'wait') {
      const next = chain[agentIndex + 1];
      if (next !== undefined && decision.reason !== 'overloaded') {
        agentIndex += 1;
        const previous = adapter.name;
        adapter = getAdapter({ name: next, command: spec.agent.command });
        lastSessionId = null;
        emit({ type: 'agent_switched', time: deps.now(), from: previous, to: adapter.name, reason: result.errorMessage ?? decision.reason });
        continue;
      }
      emit({ type: 'waiting', time: deps.now(), iteration, until: decision.untilMs, reason: decision.reason });
      if (!(await deps.sleep(Math.max(0, decision.untilMs - deps.now()), deps.signal))) {
        decision = { kind: 'stop', reason: 'interrupted', status: 'stopped' };
        break;
      }
    } else if (!(await deps.sleep(decision.delayMs, deps.signal))) {
      decision = { kind: 'stop', reason: 'interrupted', status: 'stopped' };
      break;
    }
    decision = limitReached(state, limits, deps.now(), deps.stopRequested?.() ?? false);
  }

  // An interrupt that `ringmaster stop` asked for is a user stop, not a crash-like interruption.
  await Promise.all(openLogs);
  const final: Extract<Decision, { kind: 'stop' }> =
    decision.reason === 'interrupted' && deps.stopRequested?.() ? { kind: 'stop', reason: 'user_stop', status: 'stopped' } : decision;
  if (deps.beforeFinish) {
    try {
      await deps.beforeFinish(runId, state, final.status, final.reason);
    } catch (error) {
      emit({ type: 'warning', time: deps.now(), message: `finishing the run: ${(error as Error).message}` });
    }
  }
  emit({
    type: 'run_finished',
    time: deps.now(),
    run_id: runId,
    status: final.status,
    stop_reason: final.reason,
    iterations: state.iteration,
    total_ms: runtimeUsedMs(state, deps.now()),
    cost_usd: state.totalCostUsd,
    cost_unknown: state.costUnknown,
    tokens_in: state.totalUsage.tokensIn,
    tokens_out: state.totalUsage.tokensOut,
    consecutive_failures: state.consecutiveFailures,
    failure_threshold: limits.failureThreshold,
    max_iterations: limits.maxIterations,
    message,
  });
  return { runId, status: final.status, stopReason: final.reason, state, message };
}
