// The imperative shell of one run: it performs the actions of the pure step (core/run-step.ts) and tells it what
// happened: ask the program what to run, run an iteration, let the program judge it, pause or sleep at the
// boundary, repeat. Everything with side effects comes in through RunDeps; control requests through one channel
// (run-controls.ts). The state machine: docs/architecture.md "The run as a state machine".
import { getAdapter } from '../agents/registry.js';
import type { AgentAdapter } from '../agents/types.js';
import { initialState, overloadRetried, runtimeUsedMs } from '../core/decide.js';
import { UserError } from '../core/errors.js';
import { FATAL_END, finalEnd, INTERRUPTED_END, startState, step, type LoopAction, type LoopInput, type RunEnd, type RunLoopState, type StepOutput, type StepSetup } from '../core/run-step.js';
import type { IterationResult, LoopState, RunStatus, StopReason } from '../core/types.js';
import type { ResumePoint, RunDeps, RunSummary } from './run-deps.js';
import { dataDir, iterationLogPath } from '../store/paths.js';
import type { RunEventBody } from './events.js';
import { eventUnit, iterationEvents } from './iteration-events.js';
import { InFlight } from './in-flight.js';
import { discardFailed, isDiscardable, snapshotAfter, snapshotBefore, type BeforeSnapshot } from './change-tracking.js';
import { runSpendGuard, type SpendGuard } from './spend-guard.js';
import { BudgetWatch, budgetWaitAt, type BudgetNotice } from './budget-gate.js';
import { runIteration, type IterationOutcomeData } from './iteration.js';
import { iterationInput } from './iteration-launch.js';
import { loopControls, type LoopControls } from './run-controls.js';
import { sandboxProblem } from './sandboxed.js';
import { agentBinDirs, withBinDirs } from './agent-install.js';
import { promptWithNotes } from './notes.js';
import { promptProgram, type LoopProgram, type ProgramContext, type ProgramSettlement, type ProgramStep, type ProgramStop, type ProgramWait } from './program.js';
import type { RunSpec } from '../spec/run-spec.js';
import { repeatedWarnings } from './repeated-warnings.js';

export type { PauseControl, RunDeps, ResumePoint, RunSummary, WaitReason } from './run-deps.js';

/** Default sleep: a timer that an AbortSignal cuts short, safe for any length (os/timers.ts). */
export { sleep as abortableSleep } from '../os/timers.js';

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

/** What performing an action leads to: look at the boundary again, the run's end, or a hand-over. */
type Next = 'look' | 'end' | 'hand_over';

/** Runs a loop to its end and returns the summary. Throws only for bugs and invalid specs. */
export async function runLoop(spec: RunSpec, deps: RunDeps, resume?: ResumePoint): Promise<RunSummary> {
  return new LoopShell(spec, deps, resume).run();
}

/** One run's shell: the state of the step, and the handles its actions need (agents, sessions, logs, controls). */
class LoopShell {
  private readonly runId: string;
  private state: RunLoopState;
  private readonly setup: StepSetup;
  private readonly program: LoopProgram;
  /** The run's agent, then its fallbacks. */
  private readonly chain: string[];
  private runAgent: AgentAdapter;
  /** The last agent session of each lane (one lane unless iterations run at once). */
  private readonly sessions = new Map<string, { id: string; agent: string }>();
  private readonly sessionCost = new Map<string, number>();
  /** Iteration logs still being flushed: awaited before the run reports its end, never between iterations. */
  private readonly openLogs = new Set<Promise<void>>();
  /** One that comes back every iteration is said twice, not every time. */
  private readonly warning = repeatedWarnings();
  /** A plain copy: adapters spread the env into every invocation, and spreading process.env is slow. */
  private readonly env: Record<string, string | undefined>;
  private readonly controls: LoopControls;
  /** Above one iteration at once, a stop ends the others through `halt`. */
  private readonly halt = new AbortController();
  private readonly iterationSignal: AbortSignal;
  private readonly running = new InFlight<Ran>();
  /** What agents spend while they work: reported (cost_so_far), and max_cost enforced on it (spend-guard.ts). */
  private readonly spend: SpendGuard;
  /** The shared budget read while agents work (none without a gate). */
  private readonly watch: BudgetWatch | null;
  /** The program's step waiting to start (between the `start` action and the agent's start). */
  private pending: ProgramStep | null = null;

  constructor(
    private readonly spec: RunSpec,
    private readonly deps: RunDeps,
    private readonly resume: ResumePoint | undefined,
  ) {
    this.runId = resume?.runId ?? deps.newRunId();
    this.controls = loopControls(deps);
    const loop: LoopState = resume ? { ...resume.state, startedAtMs: deps.now() } : initialState(deps.now());
    const wait = resume?.wait ? { untilMs: resume.wait.until, reason: resume.wait.reason } : null;
    this.state = startState(loop, wait);
    this.program = deps.program ?? promptProgram(spec, deps.env);
    this.chain = [spec.agent.name, ...spec.agent.fallback.filter((n) => n !== spec.agent.name)];
    this.runAgent = getAdapter(this.runAgentSpec());
    if (resume?.lastSessionId) this.sessions.set('', { id: resume.lastSessionId, agent: this.runAgent.name });
    this.env = { ...deps.env };
    // Iterations at once (LoopProgram.concurrency); with 1 the loop is the plain one: start, wait, judge, decide.
    const capacity = Math.max(1, Math.floor(this.program.concurrency?.() ?? 1));
    this.setup = { limits: spec.limits, capacity, agents: this.chain.length, noProgressAfter: spec.noProgressAfter ?? 0 };
    this.iterationSignal = capacity > 1 ? AbortSignal.any([deps.signal, this.halt.signal]) : deps.signal;
    this.spend = runSpendGuard(spec.limits.maxCostUsd, () => this.state.loop.totalCostUsd, (e) => this.emit(e), () => deps.now(), deps.budgetGate !== undefined);
    this.watch = deps.budgetGate ? new BudgetWatch(deps.budgetGate, this.spend, () => deps.now(), () => this.running.size, (n) => this.budgetNotice(n)) : null;
  }

  async run(): Promise<RunSummary> {
    const { deps, spec } = this;
    // A run taken over before its first iteration (queued in a server, for a worker) starts: it resumes nothing.
    const resumed = this.resume !== undefined && this.resume.state.iteration > 0;
    const limits = spec.limits;
    this.emit({ type: 'run_started', time: deps.now(), kind: this.program.kind, label: spec.label, max_iterations: limits.maxIterations, workspace: spec.workspace, agent: this.runAgent.name, resumed });
    for (const message of deps.startWarnings ?? []) this.warn(message);
    if (limits.maxCostUsd !== null && limits.maxCostUsd > 0 && this.runAgent.format === 'text') this.warn(`agent '${this.runAgent.name}' reports no cost: max_cost ($${limits.maxCostUsd}) cannot be enforced`);
    const refused = await this.prepare();
    if (refused !== null) this.state = { ...this.state, end: refused };
    this.state = { ...this.state, suspendedAccountedMs: this.controls.suspendedMs() };
    this.watch?.start();
    try {
      if ((await this.drive()) === 'hand_over') return await this.handOver();
    } finally {
      this.watch?.stop();
      // The run ends (a stop, a limit, or a bug) while other iterations run: their agents are stopped and each is recorded.
      if (this.running.size > 0) this.halt.abort();
      while (this.running.size > 0) {
        const ran = await this.running.next(null, () => deps.now());
        // The run is ending (state.end): an ended iteration is only recorded, its action is 'look'.
        if (ran !== null) await this.finish(ran);
      }
    }
    return this.end();
  }

  /** The run's agents missing from PATH are installed first; a sandbox this machine cannot enforce ends the run. */
  private async prepare(): Promise<RunEnd | null> {
    const { spec, env } = this;
    if (spec.agent.command === null) {
      try {
        const binDirs = await agentBinDirs(this.chain, spec.agent.autoInstall, dataDir(env), env, (notice) => this.emit({ type: 'agent_install', time: this.deps.now(), ...notice }));
        Object.assign(env, withBinDirs(env, binDirs));
      } catch (error) {
        if (!(error instanceof UserError)) throw error;
        return { ...FATAL_END, message: error.message };
      }
    }
    // A run resumed or taken over elsewhere is never run unsandboxed.
    const refused = sandboxProblem(spec.sandbox);
    return refused === null ? null : { ...FATAL_END, message: refused };
  }

  /** Steps until the run ends or is handed over. */
  private async drive(): Promise<'end' | 'hand_over'> {
    while (this.state.end === null) {
      const budgetWait = await this.budgetWait();
      const controls = this.controls.read();
      const next = await this.perform(this.apply({ type: 'boundary', nowMs: this.deps.now(), controls, running: this.running.size, budgetExhausted: this.spend.exhausted, budgetWait }));
      if (next !== 'look') return next;
    }
    return 'end';
  }

  /** The shared budget's reset time when it is reached (budget-gate.ts); null without a gate or while no other iteration may start. */
  private async budgetWait(): Promise<number | null> {
    const gate = this.deps.budgetGate;
    if (gate === undefined || this.running.size >= this.setup.capacity) return null;
    return budgetWaitAt(gate, this.spend, { now: () => this.deps.now(), sleep: (ms) => this.controls.sleep(ms), warn: (m) => this.warn(m), notice: (n) => this.budgetNotice(n) });
  }

  /** Tells a shared budget's threshold (a notice claimed by this run: budget-gate.ts). */
  private budgetNotice(notice: BudgetNotice): void {
    this.emit({ type: 'budget_threshold', time: this.deps.now(), ...notice });
  }

  /** Feeds the step; the action it returns. */
  private apply(input: LoopInput): LoopAction {
    return this.take(step(this.state, input, this.setup));
  }

  private take(out: StepOutput): LoopAction {
    this.state = out.state;
    return out.action;
  }

  private async perform(action: LoopAction): Promise<Next> {
    switch (action.kind) {
      case 'collect': {
        const ran = await this.running.next(action.untilMs, () => this.deps.now());
        return ran === null ? 'look' : this.perform(await this.finish(ran));
      }
      case 'end':
        return 'end';
      case 'hand_over':
        return 'hand_over';
      case 'pause':
        return this.perform(this.apply({ type: 'resumed', pausedMs: await this.pauseHere(action.by) }));
      case 'wait': {
        this.emit({ type: 'waiting', time: this.deps.now(), iteration: this.state.loop.iteration, until: action.untilMs, reason: action.reason });
        const full = await this.controls.sleep(action.untilMs - this.deps.now());
        return this.perform(this.apply({ type: 'waited', nowMs: this.deps.now(), full }));
      }
      case 'sleep':
        await this.controls.sleep(action.ms);
        return 'look';
      case 'budget_wait': {
        const now = this.deps.now();
        if (action.announce) this.emit({ type: 'waiting', time: now, iteration: this.state.started + 1, until: action.untilMs, reason: 'budget' });
        await this.controls.sleep(Math.max(1, Math.min(this.deps.budgetGate?.pollMs ?? 0, action.untilMs - now)));
        return 'look';
      }
      case 'next':
        return this.perform(this.apply(await this.nextStep()));
      case 'start':
        return this.perform(await this.start(action.iteration));
      case 'switch_agent': {
        const previous = this.runAgent.name;
        this.runAgent = getAdapter(this.runAgentSpec());
        this.sessions.clear();
        this.emit({ type: 'agent_switched', time: this.deps.now(), from: previous, to: this.runAgent.name, reason: action.reason });
        return 'look';
      }
      case 'look':
        return 'look';
    }
  }

  /** The program's next step, as the step function's input. */
  private async nextStep(): Promise<LoopInput> {
    let next: ProgramStep | ProgramStop | ProgramWait;
    try {
      next = await this.program.next(this.context());
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      next = { kind: 'stop', reason: 'fatal_error', status: 'failed', message: error.message };
    }
    this.publishMetadata();
    if (next.kind === 'stop') return { type: 'program_stop', end: { reason: next.reason, status: next.status, message: next.message } };
    if (next.kind === 'wait') {
      if (this.running.size === 0) throw new Error(`the ${this.program.kind} program waits with no iteration running`);
      return { type: 'program_wait' };
    }
    this.pending = next;
    return { type: 'step', lane: next.lane ?? '', firstOfUnit: next.unit?.iteration === 1 };
  }

  /** Starts iteration `iteration` with the pending step: its row first, then its agent (not awaited). */
  private async start(iteration: number): Promise<LoopAction> {
    const { deps, spec } = this;
    const step = this.pending;
    this.pending = null;
    if (step === null) throw new Error('no program step to start');
    const stepAgentSpec = step.agent?.name ? { name: step.agent.name, command: step.agent.command ?? spec.agent.command } : null;
    const adapter = stepAgentSpec ? getAdapter(stepAgentSpec) : this.runAgent;
    const logPath = deps.logPath?.(this.runId, iteration) ?? iterationLogPath(dataDir(this.env), this.runId, iteration);
    this.emit({ type: 'iteration_started', time: deps.now(), iteration, max_iterations: this.displayMax(), agent: adapter.name, log_path: logPath, unit: eventUnit(step.unit) });
    if (deps.beforeIteration) {
      try {
        await deps.beforeIteration(this.runId, iteration, adapter.name, logPath, step.unit?.id ?? null);
      } catch (error) {
        // The iteration cannot be recorded (the store cannot be written): the agent does not start, the run ends.
        if (!(error instanceof UserError)) throw error;
        return this.apply({ type: 'not_started', end: { ...FATAL_END, message: error.message } });
      }
    }
    // Interrupted while the row was written (e.g. the run was taken over): no agent starts.
    if (deps.signal.aborted) return this.apply({ type: 'not_started', end: INTERRUPTED_END });
    const action = this.apply({ type: 'started', iteration });
    const before = await snapshotBefore(deps.changes, step.cwd ?? spec.workspace, (m) => this.warn(m));
    const session = this.sessions.get(step.lane ?? '') ?? null;
    const resumeId = !step.freshSession && adapter.supportsResume && session?.agent === adapter.name ? session.id : null;
    const input = iterationInput(spec, deps, this.program, this.spend, {
      runId: this.runId,
      iteration,
      step,
      prompt: await promptWithNotes(deps, iteration, step.prompt),
      adapter,
      agentSpec: stepAgentSpec ?? this.runAgentSpec(),
      logPath,
      resumeId,
      resumeCostBaseline: resumeId ? (this.sessionCost.get(resumeId) ?? 0) : 0,
      state: this.state.loop,
      env: this.env,
      signal: this.iterationSignal,
    });
    const outcome = (deps.runIteration ?? runIteration)(input);
    this.running.add(outcome.then((data) => ({ step, iteration, adapter, logPath, data, before })));
    return action;
  }

  /**
   * Takes in an iteration that ended: the program judges it, the step counts it and says what comes next, its
   * events are emitted; the step's next action is returned. While the run is ending (state.end set: the others are
   * being stopped) only the recording is done.
   */
  private async finish(ran: Ran): Promise<LoopAction> {
    const { deps } = this;
    const { step: programStep, iteration, adapter, logPath, data: outcome } = ran;
    const lane = programStep.lane ?? '';
    this.openLogs.add(outcome.logClosed);
    void outcome.logClosed.then(() => this.openLogs.delete(outcome.logClosed));
    if (outcome.result.sessionId) {
      this.sessions.set(lane, { id: outcome.result.sessionId, agent: adapter.name });
      if (outcome.sessionCumulativeCost !== null) this.sessionCost.set(outcome.result.sessionId, outcome.sessionCumulativeCost);
    }
    // Time agents spent suspended (`pause --now`) does not count toward max runtime, like a pause.
    this.apply({ type: 'suspended', totalMs: this.controls.suspendedMs() });
    const changes = await snapshotAfter(deps.changes, ran.before, (m) => this.warn(m));
    const result = overloadRetried(this.sharedCut(outcome.result, iteration), this.state.loop, this.spec.limits);
    // An interrupted iteration is not the program's to judge: the run ends as interrupted.
    const settled: ProgramSettlement =
      result.errorKind === 'interrupted'
        ? { result, completionEnds: 'run', stop: null, events: [] }
        : await this.program.settle(this.context(), { iteration, step: programStep, result, text: outcome.text, logPath, changes });
    this.publishMetadata();
    const stop = settled.stop ? { reason: settled.stop.reason, status: settled.stop.status, message: settled.stop.message } : null;
    const ranRunAgent = adapter === this.runAgent;
    const out = step(this.state, { type: 'iteration_ended', nowMs: deps.now(), lane, result: settled.result, completionEnds: settled.completionEnds, unitEnded: settled.unitEnded ?? false, programStop: stop, stopRequested: this.controls.read().stop, ranRunAgent, filesChanged: changes ? changes.files.length : null }, this.setup);
    const decided = out.decided;
    if (decided === undefined) throw new Error('an ended iteration was not decided');
    this.state = out.state;
    this.spend.end(iteration);
    if (changes && deps.changes?.discardFailed && !this.program.discardsFailed && isDiscardable(decided.outcome, settled.result)) await discardFailed(changes, this.runId, iteration, (m) => this.warn(m));
    await changes?.dispose({ reusable: this.program.worktreeUntouched === true && !settled.verify });
    for (const e of iterationEvents({ time: deps.now(), iteration, maxIterations: this.displayMax(), result: settled.result, decided, limits: this.spec.limits, malformedLines: outcome.malformedLines, agent: adapter.name, unit: programStep.unit, changes: changes?.record() ?? null, verify: settled.verify ?? null })) this.emit(e);
    for (const warning of outcome.warnings) this.warn(`iteration ${iteration}: ${warning}`);
    for (const to of outcome.blocked ?? []) this.emit({ type: 'sandbox_blocked', time: deps.now(), iteration, host: to.host, port: to.port });
    if (outcome.malformedLines > 0) this.warn(`iteration ${iteration}: ${outcome.malformedLines} malformed output line(s) from ${adapter.name} skipped (see ${logPath})`);
    for (const e of settled.events ?? []) this.emit(e);
    if (deps.afterIteration) {
      try {
        await deps.afterIteration(this.runId, iteration, this.state.loop);
      } catch (error) {
        this.warn(`after iteration ${iteration}: ${(error as Error).message}`);
      }
    }
    return out.action;
  }

  /** An iteration the shared budget stopped ends with `budget` (the run waits), not with the run's own max_cost. */
  private sharedCut(result: IterationResult, iteration: number): IterationResult {
    if (!this.spend.takeSharedCut(iteration) || result.errorKind !== 'max_cost') return result;
    return { ...result, errorKind: 'budget', errorMessage: 'the shared budget was reached while the agent worked: agent stopped' };
  }

  /** The loop stopped at a boundary to hand the run over: the next owner starts from this state. */
  private async handOver(): Promise<RunSummary> {
    await Promise.all(this.openLogs);
    // A worker pushed the last checkpoint; a wait or cooldown the run was in is cut short (the next owner goes on waiting until the same time).
    await this.finishHook('running', 'interrupted');
    return { runId: this.runId, status: 'running', stopReason: 'interrupted', state: this.state.loop, message: null, handedOver: true };
  }

  /** The run's end: the finish hook, then its final events. */
  private async end(): Promise<RunSummary> {
    const { deps } = this;
    await Promise.all(this.openLogs);
    const end = finalEnd(this.state.end ?? INTERRUPTED_END, this.controls.read());
    const state = this.state.loop;
    const limits = this.spec.limits;
    await this.finishHook(end.status, end.reason);
    const time = deps.now();
    if (end.status === 'completed') this.emit({ type: 'completed', time, stop_reason: end.reason });
    else if (end.status === 'failed') this.emit({ type: 'failed', time, stop_reason: end.reason, message: end.message });
    else this.emit({ type: 'stopped', time, stop_reason: end.reason });
    this.emit({
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
      message: end.message,
    });
    return { runId: this.runId, status: end.status, stopReason: end.reason, state, message: end.message };
  }

  private async finishHook(status: RunStatus, reason: StopReason): Promise<void> {
    if (!this.deps.beforeFinish) return;
    try {
      await this.deps.beforeFinish(this.runId, this.state.loop, status, reason);
    } catch (error) {
      this.warn(`finishing the run: ${(error as Error).message}`);
    }
  }

  /** Pauses at the boundary until resumed; how long it was paused (not counted toward max runtime). */
  private async pauseHere(by: string | null): Promise<number> {
    const { deps } = this;
    const at = deps.now();
    this.emit({ type: 'paused', time: at, after_iteration: this.state.loop.iteration, by, suspended: false });
    await this.controls.waitUntilResumed();
    const pausedMs = Math.max(0, deps.now() - at);
    const controls = this.controls.read();
    if (!controls.interrupted && !controls.stop && !controls.handOver) this.emit({ type: 'resumed', time: deps.now(), paused_ms: pausedMs });
    return pausedMs;
  }

  private runAgentSpec(): { name: string; command: readonly string[] | null } {
    return { name: this.chain[this.state.agentIndex] ?? this.spec.agent.name, command: this.spec.agent.command };
  }

  private context(): ProgramContext {
    const { deps } = this;
    return { runId: this.runId, workspace: this.spec.workspace, state: this.state.loop, nextIteration: this.state.started + 1, now: () => deps.now(), signal: deps.signal, emit: (e) => this.emit(e) };
  }

  private displayMax(): number | null {
    const max = this.spec.limits.maxIterations;
    return max === null ? null : max + this.state.loop.waitedIterations;
  }

  private publishMetadata(): void {
    this.deps.onMetadata?.(this.program.metadata());
  }

  private emit(event: RunEventBody): void {
    this.deps.onEvent(event);
  }

  private warn(message: string): void {
    const shown = this.warning(message);
    if (shown !== null) this.emit({ type: 'warning', time: this.deps.now(), message: shown });
  }
}
