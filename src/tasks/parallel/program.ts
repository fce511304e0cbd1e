// Parallel task loops (tasks.parallelism above 1): up to N independent tasks at once, each in its own git worktree on
// its own branch, every iteration an ordinary iteration of the one run (the runner runs them at once, see
// LoopProgram.concurrency). A complete task's commit waits for the tasks started before it, then merges into the
// workspace's branch as one merge commit; a conflicting merge blocks the task and keeps its branch. The tracker,
// progress.jsonl and learning.jsonl are written by the run in the workspace only. docs/tasks.md#parallelism.
import { UserError } from '../../core/errors.js';
import { commitWorkspace } from '../../git/checkpoint.js';
import { headSha, isGitRepo } from '../../git/repo.js';
import { snapshotWorkingState } from '../../git/snapshot.js';
import type { AgentActivity, RunEventBody } from '../../runner/events.js';
import type { LoopProgram, ProgramContext, ProgramSettlement, ProgramStep, ProgramStop, ProgramWait, SettledIteration } from '../../runner/program.js';
import { attemptLimitReached, startAttempt } from '../attempt.js';
import { composeTaskPrompt } from '../compose-task-prompt.js';
import { taskRef, type HookRunner } from '../hooks.js';
import type { ProgressEntry } from '../journal.js';
import { mergeLane, recordLaneBlocked } from './lane-end.js';
import { effectiveLimits } from '../limits.js';
import { explainSelection } from '../pick.js';
import { TASK_ECHO_SIGNALS } from '../result.js';
import { asUserError, isoNow, loadWithVerdicts, maxTasksStop, noTaskStop, onFailureStop, queueToolCall, taskHookRunner, taskRunSetup } from '../program-parts.js';
import type { StoredSetup } from '../run-settings.js';
import { EMPTY_TASK_RUN_STATE, loadAttempt, storeAttempt, taskRunMeta, type StoredLane, type TaskRunState } from '../run-state.js';
import type { TaskEndContext } from '../task-end.js';
import { branchExists, branchTip, createTaskWorktree, deleteBranch, isAncestor, keepFailedWorktree, reopenTaskWorktree, removeTaskWorktree, taskCommitMessage, taskWorktreeBranch } from '../task-git.js';
import type { TaskProgramOptions } from '../task-program.js';
import type { Task } from '../task.js';
import { failureThresholdReached, judgeTaskIteration, taskTurn, type TaskInProgress } from '../verdict.js';

/** A task in its own worktree. */
interface Lane extends TaskInProgress {
  worktree: { path: string; branch: string; workdir: string };
  /** running: the agent works on it; complete: its commit waits for the tasks started before it to merge. */
  phase: 'running' | 'complete';
  /** Its progress lines, written to progress.jsonl when the task ends. */
  entries: ProgressEntry[];
  /** One of its iterations is running. */
  busy: boolean;
}

/** Creates the program of a parallel task run (its workspace must be a git repository with a commit). */
export function createParallelTaskProgram(options: TaskProgramOptions & { lanes?: StoredLane[] }): ParallelTaskProgram {
  return new ParallelTaskProgram(options);
}

/** The parallel task loop: a LoopProgram of kind 'tasks' running up to tasks.parallelism iterations at once. */
export class ParallelTaskProgram implements LoopProgram {
  readonly kind = 'tasks';
  // A failed iteration is discarded under the task's rules (verdict.ts), not the runner's.
  readonly discardsFailed = true;
  private readonly options: TaskProgramOptions;
  private readonly setup: StoredSetup;
  private state: TaskRunState;
  /** The tasks in hand, in the order they started (the order they merge in). */
  private lanes: Lane[] = [];
  /** Lanes of a resumed run, taken up again on the first next(). */
  private stored: StoredLane[];
  private hooks: HookRunner | null = null;
  private started = false;
  private units: Array<{ id: string; title: string; status: string }> = [];

  constructor(options: TaskProgramOptions & { lanes?: StoredLane[] }) {
    this.options = options;
    this.setup = taskRunSetup(options);
    this.state = options.state ?? EMPTY_TASK_RUN_STATE;
    this.stored = options.lanes ?? [];
  }

  concurrency(): number {
    return this.options.settings.parallelism;
  }

  metadata(): Record<string, unknown> {
    const lanes = this.started ? this.lanes.map((l): StoredLane => ({ attempt: storeAttempt(l.attempt), worktree: l.worktree, phase: l.phase, entries: l.entries })) : this.stored;
    return { ...taskRunMeta(this.setup, { ...this.state, current: null }), lanes, units: this.units };
  }

  observe(activity: AgentActivity, step: ProgramStep): void {
    const lane = this.lanes.find((l) => l.task.id === step.lane);
    if (lane) queueToolCall(this.hooks, activity, lane.attempt.runId, lane.task, step.unit?.iteration ?? lane.attempt.iterations + 1);
  }

  async next(ctx: ProgramContext): Promise<ProgramStep | ProgramStop | ProgramWait> {
    try {
      if (!this.started) {
        const stop = await this.start(ctx);
        if (stop) return stop;
      }
      const stop = await this.mergeInOrder(ctx);
      if (stop) return stop;
      const idle = this.lanes.find((l) => l.phase === 'running' && !l.busy);
      if (idle) return await this.step(ctx, idle);
      if (this.lanes.filter((l) => l.phase === 'running').length < this.options.settings.parallelism) {
        const picked = await this.pick(ctx);
        if (picked.kind === 'task') return await this.step(ctx, await this.begin(ctx, picked.task));
        if (picked.kind === 'stop') return picked;
      }
      if (this.lanes.some((l) => l.busy)) return { kind: 'wait' };
      throw new Error(`parallel task loop: tasks in hand (${this.lanes.map((l) => l.task.id).join(', ')}) but none runs`);
    } catch (error) {
      throw asUserError(error);
    }
  }

  async settle(ctx: ProgramContext, settled: SettledIteration): Promise<ProgramSettlement> {
    const lane = this.lanes.find((l) => l.task.id === settled.step.lane);
    if (!lane) return { result: settled.result, completionEnds: 'unit' };
    lane.busy = false;
    // The program's events about this iteration are reported after the iteration's own (ProgramSettlement.events).
    const events: RunEventBody[] = [];
    const later: ProgramContext = { ...ctx, emit: (event) => events.push(event) };
    try {
      const deps = { workdir: lane.worktree.workdir, git: true, env: this.options.env, settings: this.options.settings, hooks: this.hooks, record: (entry: ProgressEntry) => {
          lane.entries.push(entry);
          return Promise.resolve();
        } };
      const judged = await judgeTaskIteration(later, deps, lane, settled);
      const settlement = (extra: Partial<ProgramSettlement> = {}): ProgramSettlement => ({ result: judged.result, completionEnds: 'unit', events, ...extra });
      const turn = taskTurn(judged, lane, this.options.spec.limits.failureThreshold);
      if (turn.kind === 'go_on') return settlement();
      if (turn.kind === 'complete') {
        // Its work is committed on its branch now; it merges when the tasks started before it have ended.
        await commitWorkspace(lane.worktree.workdir, taskCommitMessage(lane.task));
        lane.phase = 'complete';
        return settlement({ stop: await this.mergeInOrder(later) });
      }
      return settlement({ unitEnded: true, stop: await this.block(later, lane, turn.reason) });
    } catch (error) {
      // A tracker, journal or git failure ends the run (resumable) instead of leaving it half-recorded.
      return { result: settled.result, completionEnds: 'unit', events, stop: { kind: 'stop', reason: 'fatal_error', status: 'failed', message: asUserError(error).message } };
    }
  }

  /** Once per process: a git repository, hooks, and the tasks a resumed run had in hand (their worktrees reopened). */
  private async start(ctx: ProgramContext): Promise<ProgramStop | null> {
    this.started = true;
    if (!(await isGitRepo(ctx.workspace)) || (await headSha(ctx.workspace)) === null) {
      throw new UserError(`tasks.parallelism is ${this.options.settings.parallelism}: each task works in its own git worktree, and ${ctx.workspace} is not a git repository with a commit`);
    }
    this.hooks = taskHookRunner(ctx, this.options.settings, this.options.callbacks ?? null, this.options.env);
    const stored = this.stored;
    this.stored = [];
    if (stored.length === 0) return null;
    const tasks = await this.load(ctx);
    for (const s of stored) {
      const attempt = loadAttempt(s.attempt, ctx.runId);
      const task = tasks.find((t) => t.id === attempt.taskId);
      const { worktree } = s;
      if (task?.status === 'done' && s.phase === 'complete') {
        // Merged when the run stopped, before the run could record it: what is left uncommitted is committed now.
        const commit = await commitWorkspace(ctx.workspace, taskCommitMessage(task));
        await removeTaskWorktree(ctx.workspace, worktree);
        // Its branch goes only when the merge commit keeps its commits reachable.
        const merged = commit.sha !== null && (await branchExists(ctx.workspace, worktree.branch)) && (await isAncestor(ctx.workspace, await branchTip(ctx.workspace, worktree.branch), commit.sha));
        if (merged) await deleteBranch(ctx.workspace, worktree.branch);
        this.state = { ...this.state, done: [...this.state.done, task.id] };
        ctx.emit({ type: 'warning', time: ctx.now(), message: `task ${task.id} was merged when the run stopped${commit.committed ? `; its records are committed now (${commit.sha ?? ''})` : ''}` });
        continue;
      }
      if (!task || task.status === 'done' || task.status === 'blocked') {
        await removeTaskWorktree(ctx.workspace, worktree);
        ctx.emit({ type: 'warning', time: ctx.now(), message: `task ${attempt.taskId}, in progress when the run stopped, is ${task ? task.status : 'no longer in the task list'}: its worktree is removed, its branch ${worktree.branch} kept` });
        continue;
      }
      const lane: Lane = { task: { ...task, status: 'in_progress' }, attempt, limits: effectiveLimits(task.limits, this.options.settings.defaults), snapshot: null, previousTrace: null, worktree, phase: s.phase, entries: s.entries, busy: false };
      this.lanes.push(lane);
      if (s.phase === 'complete') continue;
      const how = await reopenTaskWorktree(ctx.workspace, worktree, attempt.base ?? 'HEAD');
      if (how !== 'reused') {
        const from = how === 'from_branch' ? `its branch ${worktree.branch}` : `the commit it started from (${attempt.base ?? 'HEAD'}): its branch was gone too`;
        ctx.emit({ type: 'warning', time: ctx.now(), message: `the worktree of task ${task.id} (${worktree.path}) was gone: made again from ${from}; uncommitted work in it is lost` });
      }
      ctx.emit({ type: 'task_started', time: ctx.now(), task_id: task.id, title: task.title, base: attempt.base, resumed: true, tasks_started: this.state.tasksStarted, max_tasks: this.options.settings.maxTasks, worktree: worktree.path, branch: worktree.branch });
      // The run may have stopped right after the task reached a limit, before it was blocked.
      const reached = attemptLimitReached(attempt, lane.limits) ?? failureThresholdReached(attempt, this.options.spec.limits.failureThreshold);
      const stop = reached === null ? null : await this.block(ctx, lane, reached);
      if (stop) return stop;
    }
    return null;
  }

  private async load(ctx: ProgramContext): Promise<Task[]> {
    const seen = await loadWithVerdicts(this.options.source, this.state, ctx.signal);
    const inHand = new Set(this.lanes.map((l) => l.task.id));
    this.units = seen.map((t) => ({ id: t.id, title: t.title, status: inHand.has(t.id) ? 'in_progress' : t.status }));
    return seen;
  }

  /** The next task to start; 'none' when none can start before a task in hand ends; a stop when none ever will. */
  private async pick(ctx: ProgramContext): Promise<{ kind: 'task'; task: Task } | { kind: 'none' } | ProgramStop> {
    const tasks = await this.load(ctx);
    const selection = explainSelection(tasks, { priorityOrder: this.options.source.priorityOrder, exclude: new Set(this.lanes.map((l) => l.task.id)) });
    if (selection.task === null || this.state.tasksStarted >= this.options.settings.maxTasks) {
      if (this.lanes.length > 0) return { kind: 'none' };
      return selection.task === null ? noTaskStop(tasks, this.state) : maxTasksStop(this.state);
    }
    return { kind: 'task', task: selection.task };
  }

  /**
   * Takes up a task: tracker `in_progress` committed in the workspace with anything left uncommitted there (the
   * task's base), then a worktree on its own branch from that commit.
   */
  private async begin(ctx: ProgramContext, task: Task): Promise<Lane> {
    const branch = await taskWorktreeBranch(ctx.workspace, ctx.runId, task);
    if (task.status !== 'in_progress') await this.options.source.setStatus({ id: task.id, status: 'in_progress', blocker: null }, ctx.signal);
    await commitWorkspace(ctx.workspace, taskCommitMessage(task, `started on ${branch}`));
    const wt = await createTaskWorktree(ctx.workspace, ctx.runId, task);
    const attempt = startAttempt(ctx.runId, task, wt.base);
    const lane: Lane = {
      task: { ...task, status: 'in_progress' },
      attempt,
      limits: effectiveLimits(task.limits, this.options.settings.defaults),
      snapshot: null,
      previousTrace: null,
      worktree: { path: wt.path, branch: wt.branch, workdir: wt.workdir },
      phase: 'running',
      entries: [{ time: isoNow(ctx), run_id: ctx.runId, task_id: task.id, event: 'task_started', title: task.title, attempt_base: wt.base }],
      busy: false,
    };
    this.lanes.push(lane);
    this.state = { ...this.state, tasksStarted: this.state.tasksStarted + 1 };
    ctx.emit({ type: 'task_started', time: ctx.now(), task_id: task.id, title: task.title, base: wt.base, resumed: false, tasks_started: this.state.tasksStarted, max_tasks: this.options.settings.maxTasks, worktree: wt.path, branch: wt.branch });
    await this.hooks?.fire({ event: 'task_start', time: ctx.now(), run_id: ctx.runId, task: taskRef(lane.task) }, lane.task);
    return lane;
  }

  /** The next iteration of a task in hand, in its worktree. */
  private async step(ctx: ProgramContext, lane: Lane): Promise<ProgramStep> {
    const { task, attempt, limits } = lane;
    const { spec, settings } = this.options;
    const iteration = attempt.iterations + 1;
    const prompt = await composeTaskPrompt({ spec, template: settings.template, tracker: this.options.source.name, task, iteration, maxIterations: limits.maxIterations, feedback: attempt.feedback, pendingProgress: lane.entries });
    lane.snapshot = await snapshotWorkingState(lane.worktree.workdir);
    await this.hooks?.fire({ event: 'iteration_start', time: ctx.now(), run_id: ctx.runId, task: taskRef(task), iteration, run_iteration: ctx.nextIteration }, task);
    lane.busy = true;
    return {
      kind: 'step',
      prompt,
      unit: { id: task.id, title: task.title, iteration, maxIterations: limits.maxIterations },
      freshSession: iteration === 1 || spec.freshContext,
      echoSignals: [...TASK_ECHO_SIGNALS],
      cwd: lane.worktree.workdir,
      lane: task.id,
    };
  }

  private endContext(ctx: ProgramContext): TaskEndContext {
    return { workspace: ctx.workspace, git: true, source: this.options.source, signal: ctx.signal, time: isoNow(ctx) };
  }

  /** Merges the complete tasks whose turn it is (every task started before them has ended), in the order they started. */
  private async mergeInOrder(ctx: ProgramContext): Promise<ProgramStop | null> {
    for (let lane = this.lanes[0]; lane?.phase === 'complete'; lane = this.lanes[0]) {
      const merge = await mergeLane(this.endContext(ctx), lane);
      this.lanes.shift();
      const { task, attempt } = lane;
      if (!merge.merged) {
        const reason = `merge conflict in ${merge.conflicts.join(', ')} with the work merged since the task started; its work is kept on branch ${lane.worktree.branch}`;
        await removeTaskWorktree(ctx.workspace, lane.worktree);
        const stop = await this.recordBlocked(ctx, lane, reason, lane.worktree.branch);
        if (stop) return stop;
        continue;
      }
      this.state = { ...this.state, done: [...this.state.done, task.id] };
      ctx.emit({ type: 'task_completed', time: ctx.now(), task_id: task.id, title: task.title, iterations: attempt.iterations, cost_usd: attempt.costUsd, cost_unknown: attempt.costUnknown, duration_ms: Math.round(attempt.runtimeMs), commit_sha: merge.commit });
      const done = { ...task, status: 'done' as const };
      await this.hooks?.fire({ event: 'task_end', time: ctx.now(), run_id: ctx.runId, task: taskRef(done), success: true, reason: null }, done);
    }
    return null;
  }

  /** Blocks a running task: its attempt kept on `ringmaster/failed/<id>`, its worktree removed, the block recorded. */
  private async block(ctx: ProgramContext, lane: Lane, reason: string): Promise<ProgramStop | null> {
    this.lanes = this.lanes.filter((l) => l !== lane);
    const branch = await keepFailedWorktree(ctx.workspace, lane.worktree, lane.task, lane.attempt.base ?? 'HEAD', reason);
    return this.recordBlocked(ctx, lane, reason, branch);
  }

  private async recordBlocked(ctx: ProgramContext, lane: Lane, reason: string, branch: string | null): Promise<ProgramStop | null> {
    const { task, attempt } = lane;
    await recordLaneBlocked(this.endContext(ctx), lane, reason, branch);
    this.state = { ...this.state, blocked: [...this.state.blocked, task.id] };
    ctx.emit({ type: 'task_blocked', time: ctx.now(), task_id: task.id, title: task.title, reason, iterations: attempt.iterations, cost_usd: attempt.costUsd, cost_unknown: attempt.costUnknown, duration_ms: Math.round(attempt.runtimeMs), failed_branch: branch, rolled_back_to: null });
    const final = { ...task, status: 'blocked' as const, blocker: reason };
    await this.hooks?.fire({ event: 'task_end', time: ctx.now(), run_id: ctx.runId, task: taskRef(final), success: false, reason }, final);
    return this.options.settings.onFailure === 'stop' ? onFailureStop(task.id, reason) : null;
  }
}
