// What `ringmaster show` adds for a workflow run: the workflow, its iteration count (from its metadata), the
// current step and each step's outcome, from the run's metadata as views show it (workflow/meta-view.ts).
import type { RunRow } from '../../store/index.js';
import { workflowMetaViewSchema } from '../../workflow/meta.js';
import { duration, table, usd } from './history-format.js';

/** The lines describing a workflow run (none for other runs). */
export function workflowLines(run: RunRow): string[] {
  if (run.kind !== 'workflow') return [];
  const parsed = workflowMetaViewSchema.safeParse(run.meta);
  if (!parsed.success) return ['workflow: (its metadata cannot be read)', ''];
  const m = parsed.data;
  const shape = m.workflow_kind === 'loop' ? 'loop' : `${m.steps.length} steps`;
  const current = m.current_step ? `   current step: ${m.current_step.number}/${m.steps.length} ${m.current_step.name}` : '';
  const rows = m.steps.map((s, i) => [
    String(i + 1),
    s.name,
    s.status,
    `${s.iterations}/${s.max_iterations}`,
    duration(s.iterations > 0 ? s.runtime_ms : null),
    usd(s.cost_usd, s.cost_unknown),
    s.message ?? '',
  ]);
  return [
    `workflow: ${m.workflow} (${shape})${m.user_message === '' ? '' : `   message: ${JSON.stringify(m.user_message)}`}`,
    `iteration_count: ${m.iteration_count}   max_iterations: ${m.max_iterations}${current}`,
    '',
    table(['STEP', 'NAME', 'STATUS', 'ITERATIONS', 'RUNTIME', 'COST', 'OUTCOME'], rows, ['right', 'left', 'left', 'right', 'right', 'right', 'left']).trimEnd(),
    '',
  ];
}
