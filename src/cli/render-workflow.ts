// The progress lines of a workflow run (docs/workflows.md): `Step X/Y: name`, `Iteration X/Y` with the loop's own
// numbers, `Loop complete: NAME (N iterations)`, and how the workflow ended.
import { formatElapsed } from '../core/duration.js';
import type { RunEvent } from '../runner/events.js';

/** One line to print: its text, an ANSI color code ('' = none), and an optional detail line under it. */
export interface WorkflowText {
  text: string;
  color: string;
  detail?: string;
}

/** What the renderer remembers of the workflow from earlier events. */
export interface WorkflowView {
  kind: 'steps' | 'loop' | null;
  resumed: boolean;
  /** Step name -> its 1-based number and whether it loops. */
  steps: Map<string, { number: number; loop: boolean }>;
  total: number;
}

/** An empty view, filled by the run's events. */
export function createWorkflowView(): WorkflowView {
  return { kind: null, resumed: false, steps: new Map(), total: 0 };
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function startText(e: Extract<RunEvent, { type: 'workflow_started' }>, resumed: boolean): string {
  const verb = resumed ? 'Resuming' : 'Starting';
  const only = e.steps[0];
  if (e.workflow_kind === 'loop' && only?.loop) return `${verb} workflow: ${e.name} (loop until "${only.loop.until}", max ${plural(only.loop.max_iterations, 'iteration')})`;
  return `${verb} workflow: ${e.name} (${plural(e.steps.length, 'step')}: ${e.steps.map((s) => (s.loop ? `${s.name} (loop)` : s.name)).join(' → ')})`;
}

function iterationLabel(unit: { id: string; iteration: number; max_iterations: number | null } | null, view: WorkflowView): string | null {
  if (unit === null) return null;
  const step = view.steps.get(unit.id);
  if (step?.loop) return `Iteration ${unit.iteration}/${unit.max_iterations ?? '?'}`;
  return `Step ${step?.number ?? '?'}/${view.total}`;
}

function outcomeWords(e: Extract<RunEvent, { type: 'iteration_completed' }>): string {
  return e.outcome === 'waiting' ? e.error_kind.replace('_', ' ') : e.outcome;
}

/**
 * The line of one event of a workflow run: text to print, null to print nothing, or undefined when the
 * run's usual line applies (warnings, waits, pauses, stops, limits).
 */
export function workflowLine(e: RunEvent, view: WorkflowView): WorkflowText | null | undefined {
  switch (e.type) {
    case 'run_started':
      view.resumed = e.resumed;
      return null;
    case 'workflow_started':
      view.kind = e.workflow_kind;
      view.total = e.steps.length;
      e.steps.forEach((s, i) => view.steps.set(s.name, { number: i + 1, loop: s.loop !== null }));
      return { text: startText(e, view.resumed), color: '' };
    case 'step_started':
      return view.kind === 'loop' ? null : { text: `Step ${e.step}/${e.steps}: ${e.name}`, color: '1' };
    case 'iteration_started': {
      const label = iterationLabel(e.unit, view);
      return label !== null && view.steps.get(e.unit?.id ?? '')?.loop ? { text: label, color: '' } : null;
    }
    case 'iteration_completed': {
      const label = iterationLabel(e.unit, view);
      if (label === null) return undefined;
      const detail = e.outcome !== 'success' && e.outcome !== 'complete' && e.error_message ? `reason: ${e.error_message}` : undefined;
      const color = e.outcome === 'failure' ? '33' : e.outcome === 'complete' ? '32' : '';
      return { text: `${label} completed in ${formatElapsed(e.duration_ms)} (${outcomeWords(e)})`, color, ...(detail ? { detail } : {}) };
    }
    case 'loop_completed':
      return view.kind === 'loop' ? null : { text: `Loop complete: ${e.name} (${plural(e.iterations, 'iteration')})`, color: '32' };
    case 'step_completed':
    case 'completion_signal_detected':
      return null;
    case 'run_finished': {
      const total = formatElapsed(e.total_ms);
      if (e.stop_reason === 'success_signal') return { text: `${e.message ?? 'Workflow complete'}, total: ${total}`, color: '32' };
      if (e.status === 'failed' && e.message) return { text: `Workflow failed: ${e.message} (${plural(e.iterations, 'iteration')}, total: ${total})`, color: '31' };
      return undefined;
    }
    default:
      return undefined;
  }
}
