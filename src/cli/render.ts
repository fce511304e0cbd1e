// Turns run events into what the terminal shows: the run's progress lines (README "Quick start") (a workflow's own lines come from
// render-workflow.ts), or one JSON object per line.
import { budgetNoticeText, limitText } from '../core/budget.js';
import { formatDuration, formatElapsed } from '../core/duration.js';
import { redactor, type Redactor } from '../core/redact.js';
import type { AgentActivitySink, RunEvent, RunEventSink } from '../runner/events.js';
import { createWorkflowView, workflowLine, type WorkflowView } from './render-workflow.js';

/** Output streams a renderer writes to. */
export interface RenderTarget {
  out: { write(chunk: string): unknown; isTTY?: boolean };
  err: { write(chunk: string): unknown };
  /**
   * Shared by --verbose's raw output and the progress lines of one terminal: true while the agent's output left a
   * line unfinished (a progress line then starts on a line of its own).
   */
  openLine?: { value: boolean };
}

/** Whether to use ANSI colors: only on a TTY and never when NO_COLOR is set (https://no-color.org). */
export function useColor(stream: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '') && env.TERM !== 'dumb';
}

const paint = (on: boolean, code: string, text: string): string => (on ? `\u001b[${code}m${text}\u001b[0m` : text);

/** [HH:MM:SS] in local time. */
export function clock(epochMs: number): string {
  const d = new Date(epochMs);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function counter(iteration: number, max: number | null): string {
  return max === null ? `${iteration}` : `${iteration}/${max}`;
}

/** What a unit of work is called in progress lines, by the run's kind. */
function unitWord(kind: string): string {
  return kind === 'tasks' ? 'task ' : kind === 'workflow' ? 'step ' : '';
}

/** "Iteration 3" plus, in a run with units, which unit and which of its iterations: "Iteration 3 (task A-1 2/10)". */
function iterationLabel(e: { iteration: number; max_iterations: number | null; unit: { id: string; iteration: number; max_iterations: number | null } | null }, kind: string): string {
  const unit = e.unit === null ? '' : ` (${unitWord(kind)}${e.unit.id} ${counter(e.unit.iteration, e.unit.max_iterations)})`;
  return `Iteration ${counter(e.iteration, e.max_iterations)}${unit}`;
}

const usd = (amount: number, unknown: boolean): string => (unknown && amount === 0 ? 'cost unknown' : `$${amount.toFixed(4)}${unknown ? ' (some cost unknown)' : ''}`);

function outcomeText(e: Extract<RunEvent, { type: 'iteration_completed' }>): string {
  switch (e.outcome) {
    case 'failure':
      // The agent was stopped by the run's own limit: not a failure that counts.
      if (e.error_kind === 'max_cost' || e.error_kind === 'max_runtime') return `stopped: ${e.error_kind.replace('_', ' ')} reached`;
      return `failure, consecutive: ${e.consecutive_failures}/${e.failure_threshold}`;
    case 'waiting':
      // Stopped by the shared budget: the run waits for it (a `waiting` line follows).
      if (e.error_kind === 'budget') return 'stopped: the shared budget reached';
      return e.error_kind.replace('_', ' ');
    default:
      return e.outcome;
  }
}

/** `, 3 files changed` (and where a discarded attempt is kept), for the --verbose iteration line. */
function changesText(e: Extract<RunEvent, { type: 'iteration_completed' }>): string {
  if (!e.changes) return '';
  const discarded = e.changes.discarded_ref === null ? '' : `, discarded: kept as ${e.changes.discarded_ref}`;
  return `, ${plural(e.changes.files_changed_total, 'file')} changed${discarded}`;
}

function finishedText(e: Extract<RunEvent, { type: 'run_finished' }>, maxRuntime: string | null, maxCost: number | null): string {
  const total = formatElapsed(e.total_ms);
  const done = `${plural(e.iterations, 'iteration')} completed, total: ${total}`;
  // A program's own account of why it stopped (a task run's tally) says more than the stop reason.
  if (e.message !== null && e.stop_reason !== 'fatal_error') return `${e.message[0]?.toUpperCase() ?? ''}${e.message.slice(1)} (${done})`;
  switch (e.stop_reason) {
    case 'success_signal':
      return `Success signal received: job complete after ${plural(e.iterations, 'iteration')} (total: ${total})`;
    case 'max_iterations':
      return `Reached max iterations: ${e.max_iterations ?? e.iterations} (total: ${total})`;
    case 'failure_threshold':
      return `ERROR: Aborting after ${e.consecutive_failures === 1 ? '1 failed iteration' : `${e.consecutive_failures} consecutive failures`} (${done})`;
    case 'max_runtime':
      return `Reached max runtime: ${maxRuntime ?? '?'} (${done})`;
    case 'max_cost':
      return `Reached max cost: $${limitText(maxCost ?? 0)} (spent $${e.cost_usd.toFixed(4)}, ${done})`;
    case 'interrupted':
      return `Interrupted (${done})`;
    case 'user_stop':
      return `Stopped by user (${done})`;
    case 'stalled':
      return `Stalled (${done})`;
    case 'no_progress':
      return `No progress: the last iterations changed no file (${done})`;
    case 'fatal_error':
      return `ERROR: ${e.message ?? 'fatal error'} (${done})`;
  }
}

/** Options of the human renderer. */
export interface HumanOptions {
  color: boolean;
  maxRuntimeMs: number | null;
  maxCostUsd: number | null;
  /** --verbose: the iteration line also counts the files it changed. */
  verbose?: boolean;
  /** Replaces secrets in everything shown; default: the secrets of this process's environment. */
  redact?: Redactor;
}

/** Where the human renderer writes its lines. */
interface Lines {
  color: boolean;
  /** The standard output, redacted. */
  out: { write(text: string): unknown; isTTY?: boolean };
  /** A timed line, painted `color` when given. */
  line(time: number, text: string, color?: string): void;
  /** An indented dim line under the last one. */
  note(text: string): void;
  /** A warning, on the standard error. */
  warn(text: string): void;
  /** The run's cost and tokens, when there were any. */
  cost(e: Extract<RunEvent, { type: 'run_finished' }>): void;
}

/** The lines of a human renderer on `target`; events come redacted, what is composed is redacted again on the way out. */
function humanLines(target: RenderTarget, c: boolean, redact: Redactor): Lines {
  const out = { write: (text: string): unknown => target.out.write(redact(text)), isTTY: target.out.isTTY };
  return {
    color: c,
    out,
    line: (time, text, color) => out.write(`${fresh(target)}${paint(c, '2', `[${clock(time)}]`)} ${color ? paint(c, color, text) : text}\n`),
    note: (text) => out.write(`${fresh(target)}  ${paint(c, '2', text)}\n`),
    warn: (text) => target.err.write(redact(`${fresh(target)}${paint(c, '33', 'WARNING:')} ${text}\n`)),
    cost: (e) => {
      if (e.tokens_in > 0 || e.tokens_out > 0 || e.cost_usd > 0) {
        const cost = e.cost_unknown ? `$${e.cost_usd.toFixed(4)} (some iterations' cost unknown)` : `$${e.cost_usd.toFixed(4)}`;
        out.write(`  cost: ${cost}, tokens: ${e.tokens_in} in / ${e.tokens_out} out\n`);
      }
    },
  };
}

/** Renders events as the human progress lines (README "Quick start"). */
export function humanRenderer(target: RenderTarget, options: HumanOptions): RunEventSink {
  const lines = humanLines(target, options.color, options.redact ?? redactor(process.env));
  // On a terminal a wait shows a live countdown on its own line, cleared by the next event.
  let countdown: NodeJS.Timeout | null = null;
  const stopCountdown = (): void => {
    if (countdown) {
      clearInterval(countdown);
      countdown = null;
      lines.out.write('\r\u001b[2K');
    }
  };
  // A workflow run has its own lines (steps, the loop's iteration numbers); the rest is common.
  let workflow: WorkflowView | null = null;
  let kind = 'prompt';
  return (e) => {
    stopCountdown();
    if (e.type === 'run_started' && e.kind === 'workflow') workflow = createWorkflowView();
    const own = workflow ? workflowLine(e, workflow) : undefined;
    if (own === null) return;
    if (own !== undefined) {
      lines.line(e.time, own.text, own.color);
      if (own.detail) lines.note(own.detail);
      if (e.type === 'run_finished') lines.cost(e);
      return;
    }
    if (e.type === 'run_started') kind = e.kind;
    if (e.type === 'waiting') {
      const why = e.reason === 'budget' ? 'the shared budget to reset (or be raised: ringmaster budget set)' : `the ${e.reason.replace('_', ' ')} to clear`;
      lines.line(e.time, `Waiting until ${clock(e.until)} (${formatElapsed(Math.max(0, e.until - e.time))}) for ${why}...`);
      if (lines.out.isTTY === true) countdown = startCountdown(lines, e.until);
      return;
    }
    if (!runLine(e, lines, kind, options)) if (!taskLine(e, lines)) controlLine(e, lines);
  };
}

/** Shows the time left until `until` on its own line, every second. */
function startCountdown(lines: Lines, until: number): NodeJS.Timeout {
  const tick = (): void => {
    lines.out.write(`\r\u001b[2K  ${formatElapsed(Math.max(0, until - Date.now()))} left (Ctrl+C stops the run)`);
  };
  tick();
  const countdown = setInterval(tick, 1000);
  countdown.unref();
  return countdown;
}

/** The lines of the run and its iterations; false for another event. */
function runLine(e: RunEvent, lines: Lines, kind: string, options: HumanOptions): boolean {
  switch (e.type) {
    case 'run_started':
      if (e.kind === 'tasks') lines.line(e.time, `Starting task run: ${e.label}${e.max_iterations === null ? '' : ` (max ${plural(e.max_iterations, 'iteration')})`}`);
      else lines.line(e.time, `Starting procedure: ${e.label} (${e.max_iterations === null ? 'unlimited' : `max ${plural(e.max_iterations, 'iteration')}`})`);
      return true;
    case 'iteration_started':
      lines.line(e.time, `${iterationLabel(e, kind)} starting...`);
      return true;
    case 'iteration_completed': {
      // An iteration that waits (a limit of the agent's, the budget) does not count: the run's limit grows by one,
      // said once here, while the line keeps the numbers its start showed.
      const waited = e.outcome === 'waiting' && e.max_iterations !== null;
      const label = iterationLabel(waited ? { ...e, max_iterations: (e.max_iterations ?? 1) - 1 } : e, kind);
      const text = `${label} completed in ${formatElapsed(e.duration_ms)} (${outcomeText(e)}${waited ? `; not counted: the limit is now ${e.max_iterations}` : ''}${options.verbose ? changesText(e) : ''})`;
      lines.line(e.time, text, e.outcome === 'failure' ? '33' : e.outcome === 'complete' ? '32' : '');
      if (e.verify) lines.note(`verify ${e.verify.passed ? 'passed' : 'failed'}: ${e.verify.command} ${e.verify.summary}`);
      if (e.outcome !== 'success' && e.outcome !== 'complete' && e.error_message) lines.note(`reason: ${e.error_message}`);
      return true;
    }
    case 'run_finished': {
      const text = finishedText(e, options.maxRuntimeMs === null ? null : formatDuration(options.maxRuntimeMs), options.maxCostUsd);
      lines.line(e.time, text, e.status === 'failed' ? '31' : e.stop_reason === 'success_signal' ? '32' : '');
      lines.cost(e);
      return true;
    }
    default:
      return false;
  }
}

/** The lines of a task run's tasks; false for another event. */
function taskLine(e: RunEvent, lines: Lines): boolean {
  const c = lines.color;
  switch (e.type) {
    case 'task_started':
      lines.line(e.time, paint(c, '1', `${e.resumed ? 'Resuming' : 'Starting'} task ${e.task_id}: ${e.title}`) + (e.resumed ? '' : ` (task ${e.tasks_started} of at most ${e.max_tasks})`));
      if (e.worktree !== undefined) lines.note(`in worktree ${e.worktree} (branch ${e.branch ?? '?'})`);
      return true;
    case 'task_check':
      lines.note(`check ${e.passed ? 'passed' : 'failed'}: ${e.summary}`);
      return true;
    case 'task_anomaly':
      lines.note(`anomaly (${e.kind.replace('_', ' ')}): ${e.message}`);
      return true;
    case 'task_completed': {
      const commit = e.commit_sha === null ? '' : `, commit ${e.commit_sha.slice(0, 7)}`;
      lines.line(e.time, `Task ${e.task_id} done in ${plural(e.iterations, 'iteration')} (${formatElapsed(e.duration_ms)}, ${usd(e.cost_usd, e.cost_unknown)}${commit})`, '32');
      return true;
    }
    case 'task_blocked':
      lines.line(e.time, `Task ${e.task_id} blocked after ${plural(e.iterations, 'iteration')}: ${e.reason}`, '33');
      if (e.rolled_back_to !== null) lines.note(`rolled back to ${e.rolled_back_to.slice(0, 7)}; the attempt is on branch ${e.failed_branch ?? '?'}`);
      return true;
    default:
      return false;
  }
}

/** The lines of what happens around the agent: installs, switches, budget, warnings, pause, notes, stop, notifications. */
function controlLine(e: RunEvent, lines: Lines): void {
  const by = 'by' in e && e.by ? ` (by ${e.by})` : '';
  switch (e.type) {
    case 'agent_install':
      lines.line(
        e.time,
        e.phase === 'installing'
          ? `${e.agent} is not on PATH: installing ${e.package} with npm into ${e.dir} (agent.auto_install)...`
          : `Installed ${e.package} in ${formatDuration(e.duration_ms)}`,
      );
      break;
    case 'agent_switched':
      lines.line(e.time, `Switching agent: ${e.from} -> ${e.to} (${e.reason})`);
      break;
    case 'budget_threshold':
      lines.line(e.time, `Budget: ${budgetNoticeText(e)}`);
      break;
    case 'warning':
      lines.warn(e.message);
      break;
    case 'sandbox_blocked':
      lines.line(e.time, `  sandbox: iteration ${e.iteration} was refused a connection to ${e.host}:${e.port} (sandbox.network; sandbox.allow_hosts to allow it)`);
      break;
    case 'pause_requested':
      lines.line(e.time, e.now ? `Pause requested${by}: suspending the agent now...` : `Pause requested${by}: pausing after the current iteration...`);
      break;
    case 'paused':
      lines.line(e.time, e.suspended ? `Paused${by} during iteration ${e.after_iteration + 1}: agent suspended` : `Paused${by} after iteration ${e.after_iteration}`);
      break;
    case 'resumed':
      lines.line(e.time, 'Resumed');
      break;
    case 'note_added':
      lines.line(e.time, `Note ${e.note_id}${by}: ${e.text.replace(/\s+/g, ' ').trim().slice(0, 200)}`);
      break;
    case 'note_delivered':
      lines.line(e.time, `  note ${e.note_id} delivered in the prompt of iteration ${e.iteration}`);
      break;
    case 'notification':
      lines.line(e.time, `Notification (${e.event}) to ${e.target}: ${e.status === 'delivered' ? `delivered (${e.answer ?? 'ok'})` : `failed after ${e.attempts} attempt${e.attempts === 1 ? '' : 's'}: ${e.reason ?? 'unknown'}`}`);
      break;
    case 'stop_requested':
      lines.line(e.time, `Stop requested${by}: stopping the agent...`);
      break;
    case 'limits_changed':
      lines.line(e.time, `Iteration limit raised to ${e.max_iterations ?? 'none'}${by}`);
      break;
    default:
      break;
  }
}

/** Renders events as JSON lines: exactly the stored event (run_id, seq, time in epoch ms, fields). */
export function jsonRenderer(target: RenderTarget): RunEventSink {
  return (e) => {
    target.out.write(`${JSON.stringify(e)}\n`);
  };
}

/** A newline when the agent's raw output left a line unfinished (and the line is then closed), else nothing. */
function fresh(target: RenderTarget): string {
  if (target.openLine?.value !== true) return '';
  target.openLine.value = false;
  return '\n';
}

/** Streams the agent's activity to the terminal (--verbose): raw output, assistant text, one line per tool call. */
export function verboseActivity(target: RenderTarget): AgentActivitySink {
  return (a) => {
    switch (a.kind) {
      case 'output':
        (a.stream === 'stderr' ? target.err : target.out).write(a.text);
        if (target.openLine && a.text !== '') target.openLine.value = !a.text.endsWith('\n');
        break;
      case 'text':
        target.out.write(`${fresh(target)}${a.text.endsWith('\n') ? a.text : `${a.text}\n`}`);
        break;
      case 'tool_call':
        target.out.write(`${fresh(target)}[tool] ${a.name} ${a.input.length > 200 ? `${a.input.slice(0, 200)}…` : a.input}\n`);
        break;
      case 'tool_result':
        break;
    }
  };
}
