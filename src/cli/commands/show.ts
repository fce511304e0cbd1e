// `ringmaster show <run>`: one run's summary, its iterations table and its checkpoints.
import { EXIT } from '../../core/errors.js';
import { displayStatus } from '../../store/liveness.js';
import type { IterationRow, RunRow } from '../../store/rows.js';
import type { CliIO, Command } from '../command.js';
import {
  HISTORY_OPTIONS,
  checkpointJson,
  errorJson,
  iterationJson,
  localProbe,
  openWorkspaceStore,
  parseHistoryArgs,
  requireRun,
  runIdArgument,
  runJson,
} from './history-common.js';
import { count, duration, localTime, table, usd, type Align } from './history-format.js';
import { detailedRunMeta } from '../../workflow/meta-view.js';
import { workflowLines } from './show-workflow.js';
import { taskRunLines } from './show-tasks.js';

/** The iterations table of `show`: a unit column (step, task) when iterations belong to units of work. */
function iterationTable(run: RunRow, iterations: IterationRow[]): string {
  // Iterations of a unit of work (a workflow step, a task) say which one.
  const units = iterations.some((it) => it.unit_id !== null);
  const rows = iterations.map((it) => [
    String(it.number),
    it.status,
    it.exit_code === null ? (it.exit_signal ?? '-') : String(it.exit_code),
    duration(it.duration_ms),
    count(it.tokens_in),
    count(it.tokens_out),
    usd(it.cost_usd),
    it.completion_signal_found ? 'yes' : '-',
    it.error_kind && it.error_kind !== 'none' ? `${it.error_kind}${it.error_message && it.error_message !== it.error_kind ? `: ${it.error_message}` : ''}` : '',
  ]);
  const headers = ['#', 'STATUS', 'EXIT', 'DURATION', 'TOKENS IN', 'TOKENS OUT', 'COST', 'SIGNAL', 'ERROR'];
  const align: Align[] = ['right', 'left', 'right', 'right', 'right', 'right', 'right', 'left', 'left'];
  if (units) {
    rows.forEach((row, i) => row.splice(1, 0, iterations[i]?.unit_id ?? '-'));
    headers.splice(1, 0, run.kind === 'workflow' ? 'STEP' : run.kind === 'tasks' ? 'TASK' : 'UNIT');
    align.splice(1, 0, 'left');
  }
  return table(headers, rows, align);
}

async function show(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseHistoryArgs('show', args, { ...HISTORY_OPTIONS, events: { type: 'boolean' } });
  const id = runIdArgument('show', positionals);
  const { workspace, store } = await openWorkspaceStore(values.cwd, io);
  try {
    const run = await requireRun(store, id, workspace);
    const [totals, iterations, checkpoints, errors, events] = await Promise.all([
      store.runTotals(run.id),
      store.listIterations(run.id),
      store.listCheckpoints(run.id),
      store.listErrors(run.id),
      values.events ? store.listEvents(run.id, { limit: 1_000_000 }) : Promise.resolve([]),
    ]);
    const status = displayStatus(run, localProbe());
    // A workflow's steps are put back from its definition and iterations (the stored metadata has the current one only).
    const meta = await detailedRunMeta(store, run, iterations);
    if (values.json) {
      const out = {
        run: { ...runJson({ ...run, meta }, totals, status), spec: run.spec, last_iteration: totals.last_iteration, duration_ms: totals.duration_ms },
        iterations: iterations.map(iterationJson),
        checkpoints: checkpoints.map(checkpointJson),
        errors: errors.map(errorJson),
        ...(values.events ? { events: events.map((e) => ({ seq: e.seq, at: new Date(e.at).toISOString(), type: e.type, iteration: e.iteration, payload: e.payload })) } : {}),
      };
      io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return EXIT.success;
    }
    const lines = [
      `run ${run.id}: ${status}${run.stop_reason ? ` (${run.stop_reason})` : ''}`,
      `agent: ${run.agent}`,
      `workspace: ${run.workspace}`,
      ...(run.worktree ? [`worktree: ${run.worktree} (branch ${run.branch ?? '?'})`] : []),
      `started: ${localTime(run.created_at)}   ended: ${localTime(run.ended_at)}   runtime: ${duration(totals.runtime_ms)}`,
      `iterations: ${totals.iterations}   cost: ${usd(totals.cost_usd, totals.cost_unknown)}   tokens: ${totals.tokens_in} in / ${totals.tokens_out} out`,
      '',
      ...workflowLines({ ...run, meta }),
      ...taskRunLines(run),
    ];
    io.stdout.write(lines.join('\n') + '\n');
    io.stdout.write(iterations.length === 0 ? 'no iterations yet\n' : iterationTable(run, iterations));
    if (checkpoints.length > 0) {
      const list = checkpoints.map((c) => `${c.iteration} ${c.commit_sha ? c.commit_sha.slice(0, 12) : '-'} (${c.state})`);
      io.stdout.write(`\ncheckpoints: ${list.join(', ')}\n`);
    }
    if (values.events) {
      io.stdout.write(`\nevents:\n`);
      for (const e of events) {
        // The columns already show type, time and iteration: the detail is the rest of the payload.
        const rest = e.payload !== null && typeof e.payload === 'object' ? Object.entries(e.payload).filter(([k]) => !['type', 'time', 'iteration', 'run_id'].includes(k)) : [];
        const detail = rest.map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
        io.stdout.write(`${String(e.seq).padStart(5)}  ${localTime(e.at)}  ${e.type}${e.iteration === null ? '' : ` #${e.iteration}`}  ${detail.length > 160 ? `${detail.slice(0, 160)}…` : detail}\n`);
      }
    }
    return EXIT.success;
  } finally {
    await store.close();
  }
}

/** The `show` command. */
export const showCommand: Command = {
  name: 'show',
  usage: `Usage: ringmaster show <run> [--events] [--cwd DIR] [--json]

<run> is a run id or a unique prefix of one (see 'ringmaster runs').

A task run also shows the tasks it completed, blocked and has in hand, and which task each iteration was for.

  --events     also list the run's events in order (with --json: an "events" array)
  --cwd DIR    workspace directory (default: the current directory)
  --json       print {"run": {...}, "iterations": [{"number", "status", "exit_code", "duration_ms",
               "tokens_in", "tokens_out", "cost_usd", "completion_signal_found", ...}], "checkpoints": [...]}
`,
  run: show,
};
