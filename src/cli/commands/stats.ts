// `ringmaster stats`: cost per run, average iterations to completion, cost by hour.
import { EXIT, UsageError } from '../../core/errors.js';
import { RunNotFoundError } from '../../store/errors.js';
import type { StoreStats } from '../../store/rows.js';
import type { Store } from '../../store/store.js';
import type { CliIO, Command } from '../command.js';
import { LISTING_OPTIONS, iso, openWorkspaceStoreIfAny, parseHistoryArgs, requireRun } from './history-common.js';
import { localTime, table, usd } from './history-format.js';

async function stats(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseHistoryArgs('stats', args, { ...LISTING_OPTIONS, run: { type: 'string' } });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}' (see 'ringmaster stats --help')`);
  // A fresh install (no database yet) has no runs: zero everywhere, not an error.
  const { workspace, store } = await openWorkspaceStoreIfAny(values.cwd, io);
  try {
    if (store === null && values.run !== undefined) throw new RunNotFoundError(values.run, workspace);
    const runId = store === null || values.run === undefined ? undefined : (await requireRun(store, values.run, workspace)).id;
    const s = store === null ? NO_STATS : await store.stats({ ...(runId === undefined ? {} : { runId }), ...(values.all || runId !== undefined ? {} : { workspace }) });
    const perTask = store === null ? [] : await costPerTask(store, runId, values.all === true ? undefined : workspace);
    if (values.json) {
      const out = { ...s, cost_by_hour: s.cost_by_hour.map((h) => ({ ...h, hour: iso(h.hour) })), cost_per_task: perTask };
      io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return EXIT.success;
    }
    const unknown = s.cost_per_run.some((r) => r.cost_unknown);
    const avg = s.avg_iterations_to_completion === null ? 'none completed yet' : `${s.avg_iterations_to_completion.toFixed(1)} (${s.completed_runs} completed runs)`;
    io.stdout.write(
      `runs: ${s.cost_per_run.length}   iterations: ${s.total_iterations}   total cost: ${usd(s.total_cost_usd, unknown)}\n` +
        `average iterations to completion: ${avg}\n`,
    );
    if (s.cost_per_run.length > 0) {
      io.stdout.write('\ncost per run:\n');
      const rows = s.cost_per_run.map((r) => [r.run_id, r.status, String(r.iterations), usd(r.cost_usd, r.cost_unknown)]);
      io.stdout.write(table(['RUN', 'STATUS', 'ITER', 'COST'], rows, ['left', 'left', 'right', 'right']));
    }
    if (perTask.length > 0) {
      io.stdout.write('\ncost per task:\n');
      const rows = perTask.map((t) => [t.run_id, t.task_id, String(t.iterations), usd(t.cost_usd, t.cost_unknown)]);
      io.stdout.write(table(['RUN', 'TASK', 'ITER', 'COST'], rows, ['left', 'left', 'right', 'right']));
    }
    if (s.cost_by_hour.length > 0) {
      io.stdout.write('\ncost by hour:\n');
      const rows = s.cost_by_hour.map((h) => [localTime(h.hour).slice(0, 16), String(h.iterations), usd(h.cost_usd, h.cost_unknown)]);
      io.stdout.write(table(['HOUR', 'ITER', 'COST'], rows, ['left', 'right', 'right']));
    }
    return EXIT.success;
  } finally {
    await store?.close();
  }
}

/** The figures of no runs at all. */
const NO_STATS: StoreStats = { cost_per_run: [], avg_iterations_to_completion: null, completed_runs: 0, cost_by_hour: [], total_cost_usd: 0, total_iterations: 0 };

/** Iterations and cost of each task of the task runs in scope (one run, a workspace, or all), in the order they ran. */
async function costPerTask(store: Store, runId: string | undefined, workspace: string | undefined) {
  const runs = runId === undefined ? await store.listRuns(workspace === undefined ? {} : { workspace }) : [];
  const ids = runId === undefined ? runs.filter((r) => r.kind === 'tasks').map((r) => r.id).reverse() : [runId];
  const out: Array<{ run_id: string; task_id: string; iterations: number; cost_usd: number; cost_unknown: boolean }> = [];
  for (const id of ids) {
    const byTask = new Map<string, (typeof out)[number]>();
    for (const it of await store.listIterations(id)) {
      if (it.unit_id === null) continue;
      const entry = byTask.get(it.unit_id) ?? { run_id: id, task_id: it.unit_id, iterations: 0, cost_usd: 0, cost_unknown: false };
      entry.iterations += 1;
      if (it.cost_usd === null) entry.cost_unknown = true;
      else entry.cost_usd += it.cost_usd;
      byTask.set(it.unit_id, entry);
    }
    out.push(...byTask.values());
  }
  return out;
}

/** The `stats` command. */
export const statsCommand: Command = {
  name: 'stats',
  usage: `Usage: ringmaster stats [--run <run>] [--cwd DIR | --all] [--json]

Metrics of this workspace's runs (every workspace's with --all).

  --run RUN    only this run
  --cwd DIR    workspace directory (default: the current directory)
  --all        every workspace
  --json       print {"cost_per_run": [...], "avg_iterations_to_completion", "completed_runs",
               "cost_by_hour": [{"hour", "iterations", "cost_usd", "cost_unknown"}], "total_cost_usd", "total_iterations",
               "cost_per_task": [{"run_id", "task_id", "iterations", "cost_usd", "cost_unknown"}]} (task runs)
`,
  run: stats,
};
