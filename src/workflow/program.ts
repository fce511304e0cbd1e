// The workflow as a LoopProgram: each iteration is one step's prompt (or one iteration of a loop step),
// judged by the workflow's own completion rules, folded into the pure state machine, and stored with the run
// (runs.meta) after every iteration so `ringmaster resume` continues where it stopped.
import { getAdapter } from '../agents/registry.js';
import { classifyOutcome } from '../core/decide.js';
import type { RunEventBody } from '../runner/events.js';
import type { LoopProgram, ProgramContext, ProgramSettlement, ProgramStep, ProgramStop, SettledIteration } from '../runner/program.js';
import type { RunSpec } from '../spec/run-spec.js';
import type { RunRow } from '../store/index.js';
import { initialWorkflowState, nextIteration, settleIteration, startStep, type WorkflowState } from './machine.js';
import { storedDefinition, type WorkflowRunDefinition } from './definition.js';
import { readWorkflowMeta, workflowMeta } from './meta.js';
import { maxIterationsMessage, workflowCompleteLine } from './progress.js';
import { iterationPrompt } from './prompt.js';
import type { ResolvedStep } from './resolve.js';
import { sessionWarnings, startsFreshSession } from './session.js';
import { runUntilCommand } from './until-command.js';
import { boundOutput } from './variables.js';

/** A step without a loop ends after one iteration whatever the agent prints: no completion signal is looked for. */

/** What a workflow program needs besides the workflow. */
export interface WorkflowProgramOptions {
  def: WorkflowRunDefinition;
  /** The machine's state to continue from (resume); default: before the first step. */
  state?: WorkflowState;
  /** Whether an agent can resume a session (Claude Code and Codex can; command and scripted cannot). */
  canResume: (agent: string) => boolean;
  /** Environment of until_command. */
  env: Readonly<Record<string, string | undefined>>;
  /** The run's own agent: a step that runs it leaves the choice to the runner, so fallback agents keep working. */
  runAgent: { name: string; model: string | null; command: string[] | null };
}

function loopOf(step: ResolvedStep): { until: string; max_iterations: number; fresh_context: boolean } | null {
  return step.loop === null ? null : { until: step.loop.until, max_iterations: step.loop.maxIterations, fresh_context: step.loop.freshContext };
}

/** Runs a resolved workflow, one iteration at a time. */
export class WorkflowProgram implements LoopProgram {
  readonly kind = 'workflow';
  private readonly def: WorkflowRunDefinition;
  private readonly options: WorkflowProgramOptions;
  private state: WorkflowState;
  /** The step whose step_started this process has emitted (-1: none yet). */
  private announced = -1;
  private started = false;

  constructor(options: WorkflowProgramOptions) {
    this.options = options;
    this.def = options.def;
    this.state = options.state ?? initialWorkflowState(options.def.steps);
  }

  /** The machine's state (tests, show). */
  get current(): WorkflowState {
    return this.state;
  }

  next(ctx: ProgramContext): Promise<ProgramStep | ProgramStop> {
    const { steps } = this.def;
    if (!this.started) {
      this.started = true;
      ctx.emit({
        type: 'workflow_started',
        time: ctx.now(),
        name: this.def.workflow.name,
        workflow_kind: this.def.workflow.kind,
        user_message: this.def.userMessage,
        steps: steps.map((s) => ({ name: s.step.name, agent: s.agent.name, loop: loopOf(s) })),
      });
      for (const message of sessionWarnings(steps, this.options.canResume, this.def.workflow.kind)) ctx.emit({ type: 'warning', time: ctx.now(), message });
    }
    const at = nextIteration(this.state, steps.length);
    if (at === null) return Promise.resolve(this.completed());
    const resolved = steps[at.step];
    const stepState = this.state.step;
    if (!resolved) throw new Error(`workflow: no step ${at.step + 1}`);
    // A resumed run whose loop already used every iteration fails again at once (resume --max-iterations gives it more);
    // a step without a loop that failed runs again (its one iteration, once more).
    if (stepState.status === 'failed' && resolved.loop !== null && at.iteration > resolved.maxIterations) {
      const message = `${stepState.message ?? maxIterationsMessage(resolved.maxIterations, resolved.loop?.until ?? '')} (resume with --max-iterations N to allow more)`;
      return Promise.resolve({ kind: 'stop', reason: 'max_iterations', status: 'failed', message });
    }
    if (stepState.status !== 'running') this.state = startStep(this.state, steps.length);
    const iteration = resolved.loop === null ? 1 : at.iteration;
    if (this.announced !== at.step) {
      this.announced = at.step;
      ctx.emit({ type: 'step_started', time: ctx.now(), step: at.step + 1, steps: steps.length, name: resolved.step.name, agent: resolved.agent.name, loop: loopOf(resolved) });
    }
    const prompt = iterationPrompt(resolved.step.prompt, {
      userMessage: this.def.userMessage,
      workflowId: ctx.runId,
      iteration,
      maxIterations: resolved.maxIterations,
      previousOutput: this.state.previous_output,
    });
    const { runAgent } = this.options;
    const sameAgent = resolved.agent.name === runAgent.name && resolved.agent.model === runAgent.model && JSON.stringify(resolved.agent.command) === JSON.stringify(runAgent.command);
    const loop = resolved.loop;
    return Promise.resolve({
      kind: 'step',
      prompt,
      unit: { id: resolved.step.name, title: resolved.step.name, iteration, maxIterations: resolved.maxIterations },
      agent: sameAgent ? null : { name: resolved.agent.name, model: resolved.agent.model, command: resolved.agent.command },
      freshSession: startsFreshSession(steps, at.step, iteration, this.options.canResume),
      completion: loop ? { kind: 'until', signal: loop.until } : { kind: 'none' },
      ...(resolved.idleTimeoutMs !== null ? { idleTimeoutMs: resolved.idleTimeoutMs } : {}),
    });
  }

  async settle(ctx: ProgramContext, settled: SettledIteration): Promise<ProgramSettlement> {
    const index = this.state.current;
    const resolved = this.def.steps[index];
    if (!resolved) throw new Error(`workflow: settle without a step (${index + 1})`);
    const result = settled.result;
    const events: RunEventBody[] = [];
    let untilCommandPassed: boolean | null = null;
    const untilCommand = resolved.loop?.untilCommand ?? null;
    if (untilCommand && classifyOutcome(result) === 'success') {
      const ran = await runUntilCommand({ argv: untilCommand, cwd: ctx.workspace, env: this.options.env, iterationLogPath: settled.logPath, signal: ctx.signal });
      untilCommandPassed = ran.passed;
      if (ran.problem !== null && !ctx.signal.aborted) events.push({ type: 'warning', time: ctx.now(), message: `step ${resolved.step.index} (${resolved.step.name}): until_command ${ran.problem} (see ${ran.logPath})` });
    }
    const { state, verdict } = settleIteration(this.def.steps, this.state, { result, untilCommandPassed, text: boundOutput(settled.text) }, this.def.workflow.kind);
    this.state = state;
    if (verdict.kind === 'again') return { result, completionEnds: 'unit', events };
    // The step's final state: the machine has moved on to the next step when this one completed.
    const stepState = verdict.kind === 'step_completed' ? verdict.ended : state.step;
    const ended = (status: 'completed' | 'failed', message: string | null): RunEventBody => ({
      type: 'step_completed',
      time: ctx.now(),
      step: index + 1,
      steps: this.def.steps.length,
      name: resolved.step.name,
      status,
      iterations: stepState.iterations,
      cost_usd: stepState.cost_usd,
      cost_unknown: stepState.cost_unknown,
      runtime_ms: Math.round(stepState.runtime_ms),
      message,
    });
    if (verdict.kind === 'failed') {
      events.push(ended('failed', verdict.message));
      return { result, completionEnds: 'unit', events, stop: { kind: 'stop', reason: verdict.reason, status: 'failed', message: verdict.message } };
    }
    if (resolved.loop) {
      events.push({
        type: 'loop_completed',
        time: ctx.now(),
        step: index + 1,
        name: resolved.step.name,
        iterations: stepState.iterations,
        max_iterations: resolved.maxIterations,
        until: resolved.loop.until,
        by: result.successSignal ? 'signal' : 'until_command',
      });
    }
    events.push(ended('completed', verdict.line));
    return { result, completionEnds: 'unit', events, stop: verdict.next === null ? this.completed() : null };
  }

  /** The current step's state only, whatever the number of steps (views put every step back: meta-view.ts). */
  metadata(): Record<string, unknown> {
    return workflowMeta(this.def, this.state);
  }

  /** The resolved steps, stored once apart from the metadata. */
  definition(): Record<string, unknown> {
    return storedDefinition(this.def);
  }

  /** The stop of a workflow whose last step completed. */
  private completed(): ProgramStop {
    const { workflow, steps } = this.def;
    const last = this.state.step;
    const message = workflow.kind === 'loop' && last.message ? last.message : workflowCompleteLine(workflow.name, steps.length, this.state.iterations);
    return { kind: 'stop', reason: 'success_signal', status: 'completed', message };
  }
}

/** Whether an agent can resume sessions. */
export function agentCanResume(command: string[] | null): (agent: string) => boolean {
  return (agent) => getAdapter({ name: agent, command }).supportsResume;
}

/**
 * Rebuilds the program of a stored workflow run (resume, a server restart) from its metadata and stored definition.
 * A new iteration limit given to `resume` (spec.limits.maxIterations) becomes every loop's max_iterations,
 * as `workflow run --max-iterations` does; the run itself keeps no run-wide iteration cap.
 */
export function workflowProgramFromRun(run: RunRow, spec: RunSpec, definition: Record<string, unknown> | null): WorkflowProgram {
  const { def, state } = readWorkflowMeta(run.id, run.meta, definition);
  const max = spec.limits.maxIterations;
  if (max !== null) {
    spec.limits.maxIterations = null;
    def.steps = def.steps.map((s) => (s.loop === null ? s : { ...s, maxIterations: max, loop: { ...s.loop, maxIterations: max }, step: { ...s.step, loop: { ...s.loop, maxIterations: max } } }));
  }
  return new WorkflowProgram({ def, state, canResume: agentCanResume(spec.agent.command), env: process.env, runAgent: spec.agent });
}
