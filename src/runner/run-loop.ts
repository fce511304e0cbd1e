// The imperative shell of one run: ask the program what to run, run an iteration, let the program judge it,
// ask decide(), pause or sleep at the boundary, repeat. Everything with side effects comes in through RunDeps.
import { dirname } from 'node:path';
import { getAdapter } from '../agents/registry.js';
import type { AgentAdapter } from '../agents/types.js';
import { decide, initialState, limitReached, overloadRetried, runtimeUsedMs } from '../core/decide.js';
import { UserError } from '../core/errors.js';
import type { Decision, LoopState, RunStatus, StopReason } from '../core/types.js';
import type { ResumePoint, RunDeps, RunSummary, WaitReason } from './run-deps.js';
import { iterationTag } from '../os/process-tag.js';
import { dataDir, iterationLogPath } from '../store/paths.js';
import type { AgentActivity, AgentActivityBody, RunEventBody } from './events.js';
import { eventUnit, iterationEvents } from './iteration-events.js';
import { InFlight } from './in-flight.js';
import { discardFailed, isDiscardable, snapshotAfter, snapshotBefore, type BeforeSnapshot } from './change-tracking.js';
import { runSpendGuard } from './spend-guard.js';
import { runIteration, type IterationOutcomeData } from './iteration.js';
import { sandboxProblem } from './sandboxed.js';
import { agentBinDirs, withBinDirs } from './agent-install.js';
import { promptProgram, type ProgramContext, type ProgramSettlement, type ProgramStep, type ProgramStop, type ProgramWait } from './program.js';
import type { RunSpec } from '../spec/run-spec.js';

export type { PauseControl, RunDeps, ResumePoint, RunSummary, WaitReason } from './run-deps.js';

/** Default sleep: a timer that an AbortSignal cuts short, safe for any length (os/timers.ts). */
export { sleep as abortableSleep } from '../os/timers.js';

type Stop = Extract<Decision, { kind: 'stop' }>;
/** An iteration that ended, with what it was started with. */
interface Ran {
  step: ProgramStep;
  iteration: number;
  adapter: AgentAdapter;
  logPath: string;
  data: IterationOutcomeData;
  /** The worktree before the agent started (change tracking), or null. */
  before: BeforeSnapshot | null;
}
const INTERRUPTED: Stop = { kind: 'stop', reason: 'interrupted', status: 'stopped' };
const FATAL: Stop = { kind: 'stop', reason: 'fatal_error', status: 'failed' };

/** Runs a loop to its end and returns the summary. Throws only for bugs and invalid specs. */
// eslint-disable-next-line max-lines-per-function -- too long today; to be split by concern (docs/architecture.md "Layers and size")
export async function runLoop(spec: RunSpec, deps: RunDeps, resume?: ResumePoint): Promise<RunSummary> {
  const runId = resume?.runId ?? deps.newRunId();
  let state: LoopState = resume ? { ...resume.state, startedAtMs: deps.now() } : initialState(deps.now());
  const limits = spec.limits;
  const program = deps.program ?? promptProgram(spec, deps.env);
  const chain = [spec.agent.name, ...spec.agent.fallback.filter((n) => n !== spec.agent.name)];
  let agentIndex = 0;
  let runAgentSpec = { name: chain[0] ?? spec.agent.name, command: spec.agent.command };
  let runAgent: AgentAdapter = getAdapter(runAgentSpec);
  // The last agent session of each lane (one lane unless iterations run at once).
  const sessions = new Map<string, { id: string; agent: string }>();
  if (resume?.lastSessionId) sessions.set('', { id: resume.lastSessionId, agent: runAgent.name });
  const sessionCost = new Map<string, number>();
  // Iteration logs still being flushed: awaited before the run reports its end, never between iterations.
  const openLogs = new Set<Promise<void>>();
  const emit = (event: RunEventBody): void => deps.onEvent(event);
  const warn = (message: string): void => emit({ type: 'warning', time: deps.now(), message });
  // A plain copy: adapters spread the env into every invocation, and spreading process.env is slow.
  const env = { ...deps.env };
  const logsRoot = deps.logPath ? null : dataDir(env);
  const logPathOf = (iteration: number): string => deps.logPath?.(runId, iteration) ?? iterationLogPath(logsRoot ?? '', runId, iteration);
  const displayMax = (): number | null => (limits.maxIterations === null ? null : limits.maxIterations + state.waitedIterations);
  const stopRequested = (): boolean => deps.stopRequested?.() ?? false;
  // Iterations at once (LoopProgram.concurrency). Above 1, a stop ends the others through `halt`, and each lane
  // (a task) keeps its own consecutive failures; with 1 the loop is the plain one: start, wait, judge, decide.
  const capacity = Math.max(1, Math.floor(program.concurrency?.() ?? 1));
  const halt = new AbortController();
  const iterationSignal = capacity > 1 ? AbortSignal.any([deps.signal, halt.signal]) : deps.signal;
  const running = new InFlight<Ran>();
  // What agents spend while they work: reported (cost_so_far), and max_cost enforced on it (spend-guard.ts).
  const budget = runSpendGuard(limits.maxCostUsd, () => state.totalCostUsd, emit, () => deps.now());
  /** Iteration numbers handed out (started iterations); state.iteration counts finished ones. */
  let numbered = state.iteration;
  const laneFailures = new Map<string, number>();
  const failuresOf = (lane: string): number => (capacity === 1 ? state.consecutiveFailures : (laneFailures.get(lane) ?? 0));
  const context = (): ProgramContext => ({ runId, workspace: spec.workspace, state, nextIteration: numbered + 1, now: () => deps.now(), signal: deps.signal, emit });
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

  // A run taken over before its first iteration (queued in a server, for a worker) starts: it resumes nothing.
  const resumed = resume !== undefined && resume.state.iteration > 0;
  emit({ type: 'run_started', time: deps.now(), kind: program.kind, label: spec.label, max_iterations: limits.maxIterations, workspace: spec.workspace, agent: runAgent.name, resumed });
  for (const message of deps.startWarnings ?? []) emit({ type: 'warning', time: deps.now(), message });
  if (limits.maxCostUsd !== null && runAgent.format === 'text') {
    emit({ type: 'warning', time: deps.now(), message: `agent '${runAgent.name}' reports no cost: max_cost ($${limits.maxCostUsd}) cannot be enforced` });
  }

  let final: Stop | ProgramStop | null = null;
  let message: string | null = null;
  // The run's agents missing from PATH run from the data directory (doctor --install), installed there first with agent.auto_install.
  if (spec.agent.command === null) {
    try {
      const binDirs = await agentBinDirs(chain, spec.agent.autoInstall, dataDir(env), env, (notice) => emit({ type: 'agent_install', time: deps.now(), ...notice }));
      Object.assign(env, withBinDirs(env, binDirs));
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      final = FATAL;
      message = error.message;
    }
  }
  // A sandbox this machine cannot enforce (a run resumed or taken over elsewhere) ends the run: never unsandboxed.
  const refused = final === null ? sandboxProblem(spec.sandbox) : null;
  if (refused !== null) [final, message] = [FATAL, refused];
  /** The time agents spent suspended (`pause --now`) already taken out of the runtime. */
  let suspendedAccounted = deps.pause?.suspend?.suspendedMs() ?? 0;
  let waitUntil: number | null = resume?.wait?.until ?? null;
  let waitReason: WaitReason = resume?.wait?.reason ?? 'usage_limit';
  /** When the next iteration may start (cooldown, backoff); null = now. */
  let notBefore: number | null = null;
  /** The program answered 'wait': nothing starts until a running iteration ends. */
  let programWaits = false;
  const fatalError = (): string | null => deps.fatalError?.() ?? null;
  const handingOver = (): boolean => deps.handOver?.() ?? false;
  /** While iterations run: whether another may start now, or when to look again (null: when one ends). */
  const startable = (): { now: boolean; at: number | null } => {
    const now = deps.now();
    if (fatalError() !== null || deps.signal.aborted || programWaits || (deps.pause?.requested() ?? null) !== null || handingOver()) return { now: false, at: null };
    if (budget.exhausted || limitReached({ ...state, iteration: state.iteration + running.size }, limits, now, stopRequested())) return { now: false, at: null };
    const at = Math.max(waitUntil ?? 0, notBefore ?? 0);
    return at > now ? { now: false, at } : { now: true, at: null };
  };
  try {
    while (final === null) {
      if (running.size > 0) {
        const can = running.size < capacity ? startable() : { now: false, at: null };
        if (!can.now) {
          const ran = await running.next(can.at, () => deps.now());
          if (ran !== null) await finish(ran);
          continue;
        }
      }
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
      if (pause && !stopRequested() && !handingOver()) {
        notBefore = null;
        await pauseHere(pause.by);
        continue;
      }
      final = limitReached(state, limits, deps.now(), stopRequested()) as Stop | null;
      if (final) break;
      if (handingOver()) {
        await Promise.all(openLogs);
        // The next owner starts from this state (a worker pushed the last checkpoint); a wait or cooldown it was
        // in is cut short here: the next owner goes on waiting until the same time.
        await finishHook(state, 'running', 'interrupted');
        return { runId, status: 'running', stopReason: 'interrupted', state, message: null, handedOver: true };
      }
      if (waitUntil !== null && waitUntil > deps.now()) {
        emit({ type: 'waiting', time: deps.now(), iteration: state.iteration, until: waitUntil, reason: waitReason });
        if (!(await sleepAwake(waitUntil - deps.now()))) continue;
      }
      waitUntil = null;
      if (notBefore !== null) {
        // The pause after an iteration (cooldown, backoff), cut short by a pause or stop request; then look again.
        const ms = Math.max(0, notBefore - deps.now());
        notBefore = null;
        await sleepAwake(ms);
        continue;
      }

      // The shared budget (budget-gate.ts): reached, the run waits here; cut short, it looks at the boundary again.
      if (deps.budgetGate && !(await deps.budgetGate.admit({ iteration: numbered + 1, emit, now: () => deps.now(), sleep: sleepAwake }))) continue;

      let step: ProgramStep | ProgramStop | ProgramWait;
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
      if (step.kind === 'wait') {
        if (running.size === 0) throw new Error(`the ${program.kind} program waits with no iteration running`);
        programWaits = true;
        continue;
      }
      const lane = step.lane ?? '';
      // A new unit (task, workflow step) starts with no consecutive failures: they were the previous unit's.
      if (step.unit?.iteration === 1 && failuresOf(lane) > 0) {
        laneFailures.set(lane, 0);
        state = { ...state, consecutiveFailures: 0 };
      }
      const iteration = numbered + 1;
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
      numbered = iteration;
      const before = await snapshotBefore(deps.changes, step.cwd ?? spec.workspace, warn);
      const session = sessions.get(lane) ?? null;
      const resumeId = !step.freshSession && adapter.supportsResume && session?.agent === adapter.name ? session.id : null;
      const onActivity = deps.onActivity ?? null;
      const observe = program.observe ? program.observe.bind(program) : null;
      const ranStep = step;
      const activitySink =
        onActivity || observe
          ? (body: AgentActivityBody): void => {
              const activity: AgentActivity = { ...body, iteration, time: deps.now() };
              observe?.(activity, ranStep);
              onActivity?.(activity);
            }
          : null;
      const outcome = (deps.runIteration ?? runIteration)({
        adapter,
        agentSpec: stepAgentSpec ?? runAgentSpec,
        prompt: step.prompt,
        cwd: step.cwd ?? spec.workspace,
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
        ...(step.echoSignals ? { echoSignals: step.echoSignals } : {}),
        idleTimeoutMs: step.idleTimeoutMs !== undefined ? step.idleTimeoutMs : spec.idleTimeoutMs,
        hardTimeoutMs: spec.iterationTimeoutMs,
        deadlineMs: limits.maxRuntimeMs === null ? null : deps.now() + Math.max(0, limits.maxRuntimeMs - runtimeUsedMs(state, deps.now())),
        killGraceMs: spec.killGraceMs,
        maxLogBytes: spec.maxLogBytes,
        prices: spec.prices,
        signal: iterationSignal,
        ...budget.start(iteration),
        ...(deps.pause?.suspend ? { suspend: deps.pause.suspend } : {}),
        onSpawn: deps.onAgentSpawn ? (pid) => deps.onAgentSpawn?.(runId, iteration, pid) : undefined,
        tag: iterationTag(runId, iteration),
        sandbox: spec.sandbox ? { policy: spec.sandbox, dataDir: dirname(dirname(dirname(logPath))), readable: [] } : null,
        onActivity: activitySink,
      });
      running.add(outcome.then((data) => ({ step: ranStep, iteration, adapter, logPath, data, before })));
    }
  } finally {
    // The run ends (a stop, a limit, or a bug) while other iterations run: their agents are stopped and each is recorded.
    if (running.size > 0) halt.abort();
    while (running.size > 0) {
      const ran = await running.next(null, () => deps.now());
      if (ran !== null) await finish(ran);
    }
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

  /**
   * Takes in an iteration that ended: the program judges it, decide() counts it and says what comes next, its
   * events are emitted. While the run is ending (`final` set: the others are being stopped) only the recording is done.
   */
  async function finish(ran: Ran): Promise<void> {
    const { step, iteration, adapter, logPath, data: outcome } = ran;
    const lane = step.lane ?? '';
    openLogs.add(outcome.logClosed);
    void outcome.logClosed.then(() => openLogs.delete(outcome.logClosed));
    if (outcome.result.sessionId) {
      sessions.set(lane, { id: outcome.result.sessionId, agent: adapter.name });
      if (outcome.sessionCumulativeCost !== null) sessionCost.set(outcome.result.sessionId, outcome.sessionCumulativeCost);
    }
    // Time agents spent suspended (`pause --now`) does not count toward max runtime, like a pause (counted once
    // however many iterations were suspended together).
    const suspendedMs = deps.pause?.suspend?.suspendedMs() ?? 0;
    state = { ...state, startedAtMs: state.startedAtMs + Math.max(0, suspendedMs - suspendedAccounted) };
    suspendedAccounted = suspendedMs;
    // An interrupted iteration is not the program's to judge: the run ends as interrupted.
    const changes = await snapshotAfter(deps.changes, ran.before, warn);
    const result = overloadRetried(outcome.result, state, limits);
    const settled: ProgramSettlement =
      result.errorKind === 'interrupted'
        ? { result, completionEnds: 'run', stop: null, events: [] }
        : await program.settle(context(), { iteration, step, result, text: outcome.text, logPath, changes });
    publishMetadata();
    const decided = decide({ state: { ...state, consecutiveFailures: failuresOf(lane) }, result: settled.result, limits, nowMs: deps.now(), stopRequested: stopRequested(), completionEnds: settled.completionEnds, unitEnded: settled.unitEnded ?? false });
    state = decided.state;
    budget.end(iteration);
    laneFailures.set(lane, state.consecutiveFailures);
    programWaits = false;
    if (changes && deps.changes?.discardFailed && !program.discardsFailed && isDiscardable(decided.outcome, settled.result)) await discardFailed(changes, runId, iteration, warn);
    await changes?.dispose();
    for (const e of iterationEvents({ time: deps.now(), iteration, maxIterations: displayMax(), result: settled.result, decided, limits, malformedLines: outcome.malformedLines, agent: adapter.name, unit: step.unit, changes: changes?.record() ?? null, verify: settled.verify ?? null })) emit(e);
    for (const warning of outcome.warnings) emit({ type: 'warning', time: deps.now(), message: `iteration ${iteration}: ${warning}` });
    for (const to of outcome.blocked ?? []) emit({ type: 'sandbox_blocked', time: deps.now(), iteration, host: to.host, port: to.port });
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
    if (final !== null) return;
    const decision = decided.decision;
    // The program's stop comes first: it says more (the workflow completed, which step failed) than a limit reached at the same iteration.
    if (settled.stop) {
      final = settled.stop;
      message = settled.stop.message;
      return;
    }
    if (decision.kind === 'stop') {
      final = decision;
      if (decision.reason === 'fatal_error') message = settled.result.errorMessage;
      return;
    }
    if (decision.kind === 'wait') {
      const next = chain[agentIndex + 1];
      if (next !== undefined && decision.reason !== 'overloaded' && adapter === runAgent) {
        agentIndex += 1;
        const previous = runAgent.name;
        runAgentSpec = { name: next, command: spec.agent.command };
        runAgent = getAdapter(runAgentSpec);
        sessions.clear();
        emit({ type: 'agent_switched', time: deps.now(), from: previous, to: runAgent.name, reason: settled.result.errorMessage ?? decision.reason });
        return;
      }
      waitUntil = decision.untilMs;
      waitReason = decision.reason;
      return;
    }
    notBefore = deps.now() + decision.delayMs;
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
    if (!deps.signal.aborted && !stopRequested() && !handingOver()) emit({ type: 'resumed', time: deps.now(), paused_ms: pausedMs });
  }
}
