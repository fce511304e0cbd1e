// `ringmaster runs`: the workspace's runs, newest first, with totals and where each one works.
import { EXIT, UsageError } from '../../core/errors.js';
import { displayStatus } from '../../store/liveness.js';
import type { RunRow } from '../../store/rows.js';
import { taskRunSummary } from '../../tasks/run-state.js';
import type { CliIO, Command } from '../command.js';
import { LISTING_OPTIONS, localProbe, openWorkspaceStoreIfAny, parseHistoryArgs, runJson } from './history-common.js';
import { localTime, table, usd } from './history-format.js';

async function runs(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseHistoryArgs('runs', args, { ...LISTING_OPTIONS, limit: { type: 'string' } });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}' (see 'ringmaster runs --help')`);
  let limit: number | undefined;
  if (values.limit !== undefined) {
    limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit: expected a positive integer, got '${values.limit}'`);
  }
  // A fresh install (no database yet) has no runs: an empty list, not an error.
  const { workspace, store } = await openWorkspaceStoreIfAny(values.cwd, io);
  try {
    const list = store === null ? [] : await store.listRuns({ ...(values.all ? {} : { workspace }), ...(limit === undefined ? {} : { limit }) });
    const probe = localProbe();
    const items = list.map((run) => runJson(run, run.totals, displayStatus(run, probe)));
    if (values.json) {
      io.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
      return EXIT.success;
    }
    if (items.length === 0) {
      io.stdout.write(values.all ? 'no runs yet\n' : `no runs in ${workspace} (--all lists every workspace's runs)\n`);
      return EXIT.success;
    }
    // Runs of other kinds (task runs) get a KIND column: the kind and the tasks in hand.
    const kinds = list.some((run) => run.kind !== 'prompt');
    const rows = list.map((run, i) => [
      run.id,
      items[i]?.status ?? run.status,
      ...(kinds ? [kindText(run)] : []),
      run.stop_reason ?? '-',
      String(run.totals.iterations),
      usd(run.totals.cost_usd, run.totals.cost_unknown),
      localTime(run.created_at),
      run.worktree ? `${run.worktree} (${run.branch ?? 'worktree'})` : run.workspace,
    ]);
    const headers = ['ID', 'STATUS', ...(kinds ? ['KIND'] : []), 'STOP REASON', 'ITER', 'COST', 'STARTED', 'WHERE'];
    io.stdout.write(table(headers, rows, ['left', 'left', ...(kinds ? ['left' as const] : []), 'left', 'right', 'right']));
    return EXIT.success;
  } finally {
    await store?.close();
  }
}

/** The kind of a run, with the tasks a task run has in hand: `tasks (RALPH-002)`, `tasks (A, B)` when parallel. */
function kindText(run: RunRow): string {
  if (run.kind !== 'tasks') return run.kind;
  const inHand = taskRunSummary(run.meta)?.inHand ?? [];
  return inHand.length === 0 ? 'tasks' : `tasks (${inHand.map((t) => t.id).join(', ')})`;
}

/** The `runs` command. */
export const runsCommand: Command = {
  name: 'runs',
  usage: `Usage: ringmaster runs [--cwd DIR | --all] [--limit N] [--json]

Lists the runs of this workspace (every workspace's with --all), newest first: status, stop reason,
iterations, cost and where the run works (its worktree and branch with --worktree); when task runs are listed,
a KIND column shows each run's kind and the task(s) a task run has in hand. Runs are recorded in
the data directory ($RINGMASTER_HOME, default ~/.local/share/ringmaster), never in the workspace.
A run whose process is gone while it was running shows as 'orphaned': resume or stop it.

  --cwd DIR    workspace directory (default: the current directory)
  --all        runs of every workspace
  --limit N    show only the N newest runs
  --json       print a JSON array (snake_case fields: id, status, stop_reason, iterations,
               cost_usd, workspace, worktree, branch, ...)
`,
  run: runs,
};
