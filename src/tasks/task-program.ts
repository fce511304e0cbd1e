// The task loop as a LoopProgram (docs/tasks.md): pick one task, iterate on it until it is complete (its check
// passing), commit it, update the tracker, record what was learned, move on. Every task iteration is an
// ordinary recorded iteration of the run (unit = the task); per-task limits, the verify gate, rollback and
// hooks are this program's, run-wide limits stay the runner's.
import { join } from 'node:path';
import { headSha, isGitRepo } from '../git/repo.js';
import { snapshotWorkingState } from '../git/snapshot.js';
import type { AgentActivity, RunEventBody } from '../runner/events.js';
import type { LoopProgram, ProgramContext, ProgramSettlement, ProgramStep, ProgramStop, SettledIteration } from '../runner/program.js';
import { attemptLimitReached, startAttempt } from './attempt.js';
import { taskRef, type HookRunner } from './hooks.js';
import type { TaskProgramOptions } from './program-options.js';
import { TASK_ECHO_SIGNALS } from './result.js';
import { asUserError, isoNow, loadWithVerdicts, maxTasksStop, noTaskStop, onFailureStop, queueToolCall, taskHookRunner, taskRunSetup } from './program-parts.js';
import { PROGRESS_FILE, appendEntries } from './journal.js';
import { effectiveLimits } from './limits.js';
import { explainSelection } from './pick.js';
import { composeTaskPrompt } from './compose-task-prompt.js';
import type { StoredSetup } from './run-settings.js';
import { EMPTY_TASK_RUN_STATE, taskRunMeta, type TaskRunState } from './run-state.js';
import { blockTask, completeTask, type TaskEndContext } from './task-end.js';
import { beginTask, commitTask } from './task-git.js';
import type { Task } from './task.js';
import { failureThresholdReached, judgeTaskIteration, taskTurn, type TaskInProgress, type VerdictDeps } from './verdict.js';


/** The task in hand. */

/** Creates the program of a task run. */
export function createTaskProgram(options: TaskProgramOptions): TaskProgram {
  return new TaskProgram(options);
}

/** The task loop: a LoopProgram of kind 'tasks'. */
export class TaskProgram implements LoopProgram {
  readonly kind = 'tasks';
  // A failed iteration is discarded under the task's rules (verdict.ts), not the runner's.
  readonly discardsFailed = true;
  private readonly options: TaskProgramOptions;
  private readonly setup: StoredSetup;
  private state: TaskRunState;
  private current: TaskInProgress | null = null;
  private git = false;
  private hooks: HookRunner | null = null;
  private started = false;
  private units: Array<{ id: string; title: string; status: string }> = [];

  constructor(options: TaskProgramOptions) {
    this.options = options;
    this.setup = taskRunSetup(options);
    this.state = options.state ?? EMPTY_TASK_RUN_STATE;
  }

  metadata(): Record<string, unknown> {
    // `units`: the task list as last read, for views that show every task with its status (the API's units).
    return { ...taskRunMeta(this.setup, { ...this.state, current: this.current?.attempt ?? this.state.current }), units: this.units };
  }

  observe(activity: AgentActivity): void {
    const current = this.current;
    if (current) queueToolCall(this.hooks, activity, current.attempt.runId, current.task, current.attempt.iterations + 1);
  }

  async next(ctx: ProgramContext): Promise<ProgramStep | ProgramStop> {
    try {
      if (!this.started) {
        const stop = await this.start(ctx);
        if (stop) return stop;
      }
      if (this.current === null) {
        const picked = await this.pick(ctx);
        if (picked.kind === 'stop') return picked;
        await this.begin(ctx, picked.task);
      }
      return await this.step(ctx);
    } catch (error) {
      throw asUserError(error);
    }
  }

  async settle(ctx: ProgramContext, settled: SettledIteration): Promise<ProgramSettlement> {
    const current = this.current;
    if (current === null) return { result: settled.result, completionEnds: 'unit' };
    // The program's events about this iteration are reported after the iteration's own (ProgramSettlement.events).
    const events: RunEventBody[] = [];
    const later: ProgramContext = { ...ctx, emit: (event) => events.push(event) };
    try {
      return { ...(await this.judge(later, current, settled)), events };
    } catch (error) {
      // A tracker, journal or git failure ends the run (resumable) instead of leaving it half-recorded.
      return { result: settled.result, completionEnds: 'unit', events, stop: { kind: 'stop', reason: 'fatal_error', status: 'failed', message: asUserError(error).message } };
    }
  }

  /** Once per process: git or not, hooks, and the task a resumed run was working on. */
  private async start(ctx: ProgramContext): Promise<ProgramStop | null> {
    this.started = true;
    const { settings, env } = this.options;
    this.git = await isGitRepo(ctx.workspace);
    if (!this.git) ctx.emit({ type: 'warning', time: ctx.now(), message: `${ctx.workspace} is not a git repository: tasks are not committed and a blocked task is not rolled back` });
    if (settings.parallelism > 1) {
      // Parallel tasks work in git worktrees made from a commit (createTaskLoop picks this program when there is none).
      const why = !this.git ? 'it is not a git repository' : (await headSha(ctx.workspace)) === null ? 'it has no commit yet' : 'this task program runs one task at a time (createTaskLoop runs them at once)';
      ctx.emit({ type: 'warning', time: ctx.now(), message: `tasks.parallelism is ${settings.parallelism}, but parallel tasks each work in a git worktree of ${ctx.workspace} and ${why}: tasks run one at a time` });
    }
    this.hooks = taskHookRunner(ctx, settings, this.options.callbacks ?? null, env);
    const resumed = this.state.current;
    if (resumed === null) return null;
    this.state = { ...this.state, current: null };
    const task = (await this.load(ctx)).find((t) => t.id === resumed.taskId);
    if (task?.status === 'done' && this.git) {
      // Marked done when the run stopped, before its commit: the task's work is committed now.
      const commit = await commitTask(ctx.workspace, task);
      if (commit.committed) {
        this.state = { ...this.state, done: [...this.state.done, task.id] };
        ctx.emit({ type: 'warning', time: ctx.now(), message: `task ${task.id} was done when the run stopped; its work is committed now (${commit.sha ?? ''})` });
        return null;
      }
    }
    if (!task || task.status === 'done' || task.status === 'blocked') {
      ctx.emit({ type: 'warning', time: ctx.now(), message: `task ${resumed.taskId}, in progress when the run stopped, is ${task ? task.status : 'no longer in the task list'}: going on with the next task` });
      return null;
    }
    const limits = effectiveLimits(task.limits, settings.defaults);
    this.current = { task, attempt: resumed, limits, snapshot: null, previousTrace: null };
    ctx.emit({ type: 'task_started', time: ctx.now(), task_id: task.id, title: task.title, base: resumed.base, resumed: true, tasks_started: this.state.tasksStarted, max_tasks: settings.maxTasks });
    // The run may have stopped right after the task reached a limit, before it was blocked.
    const reached = attemptLimitReached(resumed, limits) ?? failureThresholdReached(resumed, this.options.spec.limits.failureThreshold);
    return reached === null ? null : this.block(ctx, this.current, reached);
  }

  /** The tasks, with this run's own verdicts over a source that may not record them (a command without a status command). */
  private async load(ctx: ProgramContext): Promise<Task[]> {
    const seen = await loadWithVerdicts(this.options.source, this.state, ctx.signal);
    this.units = seen.map((t) => ({ id: t.id, title: t.title, status: t.id === this.current?.task.id ? 'in_progress' : t.status }));
    return seen;
  }

  private async pick(ctx: ProgramContext): Promise<{ kind: 'task'; task: Task } | ProgramStop> {
    const tasks = await this.load(ctx);
    const selection = explainSelection(tasks, { priorityOrder: this.options.source.priorityOrder });
    if (selection.task === null) return noTaskStop(tasks, this.state);
    if (this.state.tasksStarted >= this.options.settings.maxTasks) return maxTasksStop(this.state);
    return { kind: 'task', task: selection.task };
  }

  /** Takes up a task: leftovers committed (the task's base), tracker `in_progress`, task_started everywhere. */
  private async begin(ctx: ProgramContext, task: Task): Promise<void> {
    const base = this.git ? await beginTask(ctx.workspace, task) : null;
    if (task.status !== 'in_progress') await this.options.source.setStatus({ id: task.id, status: 'in_progress', blocker: null }, ctx.signal);
    const attempt = startAttempt(ctx.runId, task, base);
    this.state = { ...this.state, tasksStarted: this.state.tasksStarted + 1 };
    this.current = { task: { ...task, status: 'in_progress' }, attempt, limits: effectiveLimits(task.limits, this.options.settings.defaults), snapshot: null, previousTrace: null };
    await appendEntries(join(ctx.workspace, PROGRESS_FILE), [{ time: isoNow(ctx), run_id: ctx.runId, task_id: task.id, event: 'task_started', title: task.title, attempt_base: base }]);
    ctx.emit({ type: 'task_started', time: ctx.now(), task_id: task.id, title: task.title, base, resumed: false, tasks_started: this.state.tasksStarted, max_tasks: this.options.settings.maxTasks });
    await this.hooks?.fire({ event: 'task_start', time: ctx.now(), run_id: ctx.runId, task: taskRef(this.current.task) }, this.current.task);
  }

  /** The next iteration of the task in hand. */
  private async step(ctx: ProgramContext): Promise<ProgramStep> {
    const current = this.current;
    if (current === null) throw new Error('no task in hand');
    const { task, attempt, limits } = current;
    const { spec, settings } = this.options;
    const iteration = attempt.iterations + 1;
    const prompt = await composeTaskPrompt({ spec, template: settings.template, tracker: this.options.source.name, task, iteration, maxIterations: limits.maxIterations, feedback: attempt.feedback });
    current.snapshot = this.git ? await snapshotWorkingState(ctx.workspace) : null;
    await this.hooks?.fire({ event: 'iteration_start', time: ctx.now(), run_id: ctx.runId, task: taskRef(task), iteration, run_iteration: ctx.state.iteration + 1 }, task);
    return {
      kind: 'step',
      prompt,
      unit: { id: task.id, title: task.title, iteration, maxIterations: limits.maxIterations },
      freshSession: iteration === 1 || spec.freshContext,
      echoSignals: [...TASK_ECHO_SIGNALS],
    };
  }

  /** The verdict on one iteration: structured result, check, verify gate, limits; then complete or block. */
  private async judge(ctx: ProgramContext, current: TaskInProgress, settled: SettledIteration): Promise<ProgramSettlement> {
    const deps: VerdictDeps = { workdir: ctx.workspace, git: this.git, env: this.options.env, settings: this.options.settings, hooks: this.hooks, record: (entry) => appendEntries(join(ctx.workspace, PROGRESS_FILE), [entry]) };
    const judged = await judgeTaskIteration(ctx, deps, current, settled);
    const settlement = (extra: Partial<ProgramSettlement> = {}): ProgramSettlement => ({ result: judged.result, completionEnds: 'unit', ...extra });
    const turn = taskTurn(judged, current, this.options.spec.limits.failureThreshold);
    if (turn.kind === 'go_on') return settlement();
    if (turn.kind === 'complete') {
      await this.complete(ctx, current);
      return settlement();
    }
    return settlement({ unitEnded: true, stop: await this.block(ctx, current, turn.reason) });
  }

  private endContext(ctx: ProgramContext): TaskEndContext {
    return { workspace: ctx.workspace, git: this.git, source: this.options.source, signal: ctx.signal, time: isoNow(ctx) };
  }

  private async complete(ctx: ProgramContext, current: TaskInProgress): Promise<void> {
    const { task, attempt } = current;
    const commit = await completeTask(this.endContext(ctx), task, attempt);
    this.current = null;
    this.state = { ...this.state, current: null, done: [...this.state.done, task.id] };
    ctx.emit({ type: 'task_completed', time: ctx.now(), task_id: task.id, title: task.title, iterations: attempt.iterations, cost_usd: attempt.costUsd, cost_unknown: attempt.costUnknown, duration_ms: Math.round(attempt.runtimeMs), commit_sha: commit });
    await this.hooks?.fire({ event: 'task_end', time: ctx.now(), run_id: ctx.runId, task: { ...taskRef(task), status: 'done' }, success: true, reason: null }, { ...task, status: 'done' });
  }

  /** Blocks the task in hand; returns the stop of the run when tasks.on_failure is stop. */
  private async block(ctx: ProgramContext, current: TaskInProgress, reason: string): Promise<ProgramStop | null> {
    const { task, attempt } = current;
    const blocked = await blockTask(this.endContext(ctx), task, attempt, reason);
    this.current = null;
    this.state = { ...this.state, current: null, blocked: [...this.state.blocked, task.id] };
    ctx.emit({
      type: 'task_blocked',
      time: ctx.now(),
      task_id: task.id,
      title: task.title,
      reason,
      iterations: attempt.iterations,
      cost_usd: attempt.costUsd,
      cost_unknown: attempt.costUnknown,
      duration_ms: Math.round(attempt.runtimeMs),
      failed_branch: blocked.branch,
      rolled_back_to: blocked.rolledBackTo,
    });
    const final = { ...task, status: 'blocked' as const, blocker: reason };
    await this.hooks?.fire({ event: 'task_end', time: ctx.now(), run_id: ctx.runId, task: taskRef(final), success: false, reason }, final);
    return this.options.settings.onFailure === 'stop' ? onFailureStop(task.id, reason) : null;
  }
}

export type { TaskProgramOptions } from './program-options.js';
