// What one iteration of a run is started with: the program's step, the run's spec and what the loop knows (the
// agent, its session to resume, the runtime left, the spend guard), put together as an IterationInput.
import { dirname } from 'node:path';
import type { AgentAdapter } from '../agents/types.js';
import { runtimeUsedMs } from '../core/decide.js';
import type { LoopState } from '../core/types.js';
import { iterationTag } from '../os/process-tag.js';
import type { RunSpec } from '../spec/run-spec.js';
import type { AgentActivity, AgentActivityBody } from './events.js';
import type { IterationInput } from './iteration.js';
import type { LoopProgram, ProgramStep } from './program.js';
import type { RunDeps } from './run-deps.js';
import type { SpendGuard } from './spend-guard.js';

/** One iteration about to start. */
export interface Launch {
  runId: string;
  iteration: number;
  step: ProgramStep;
  /** The step's prompt with the notes the iteration claimed (runner/notes.ts). */
  prompt: string;
  adapter: AgentAdapter;
  agentSpec: IterationInput['agentSpec'];
  logPath: string;
  /** The agent session to resume, or null. */
  resumeId: string | null;
  /** What the resumed session had already reported spending. */
  resumeCostBaseline: number;
  state: LoopState;
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
}

/** The input of runIteration for a launch. */
export function iterationInput(spec: RunSpec, deps: RunDeps, program: LoopProgram, budget: SpendGuard, l: Launch): IterationInput {
  const { step, iteration, runId } = l;
  const limits = spec.limits;
  return {
    adapter: l.adapter,
    agentSpec: l.agentSpec,
    prompt: l.prompt,
    cwd: step.cwd ?? spec.workspace,
    logPath: l.logPath,
    model: step.agent?.model !== undefined ? step.agent.model : spec.agent.model,
    extraArgs: spec.agent.args,
    permissionMode: spec.agent.permissionMode,
    resumeSessionId: l.resumeId,
    resumeCostBaseline: l.resumeId ? l.resumeCostBaseline : 0,
    env: l.env,
    successSignals: step.successSignals ?? spec.successSignals,
    completion: step.completion ?? null,
    completionScanner: step.completionScanner ?? null,
    failureSignal: spec.failureSignal,
    ...(step.echoSignals ? { echoSignals: step.echoSignals } : {}),
    idleTimeoutMs: step.idleTimeoutMs !== undefined ? step.idleTimeoutMs : spec.idleTimeoutMs,
    hardTimeoutMs: spec.iterationTimeoutMs,
    deadlineMs: limits.maxRuntimeMs === null ? null : deps.now() + Math.max(0, limits.maxRuntimeMs - runtimeUsedMs(l.state, deps.now())),
    killGraceMs: spec.killGraceMs,
    maxLogBytes: spec.maxLogBytes,
    prices: spec.prices,
    signal: l.signal,
    ...budget.start(iteration),
    ...(deps.pause?.suspend ? { suspend: deps.pause.suspend } : {}),
    onSpawn: deps.onAgentSpawn ? (pid) => deps.onAgentSpawn?.(runId, iteration, pid) : undefined,
    tag: iterationTag(runId, iteration),
    sandbox: spec.sandbox ? { policy: spec.sandbox, dataDir: dirname(dirname(dirname(l.logPath))), readable: [] } : null,
    onActivity: activitySink(deps, program, step, iteration),
  };
}

/** Where the agent's live activity goes: the program's observer and the run's sink, or nowhere. */
function activitySink(deps: RunDeps, program: LoopProgram, step: ProgramStep, iteration: number): ((body: AgentActivityBody) => void) | null {
  const onActivity = deps.onActivity ?? null;
  const observe = program.observe ? program.observe.bind(program) : null;
  if (!onActivity && !observe) return null;
  return (body) => {
    const activity: AgentActivity = { ...body, iteration, time: deps.now() };
    observe?.(activity, step);
    onActivity?.(activity);
  };
}
