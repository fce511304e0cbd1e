// `ringmaster tasks`, `tasks next`, `tasks show ID`: read a workspace's task list (and its progress.jsonl);
// nothing is written, no agent runs.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EXIT, UsageError, UserError } from '../../core/errors.js';
import { loadConfig } from '../../config/load.js';
import { PROGRESS_FILE, progressEntrySchema, progressNotes, readEntries, totalsByTask, type ProgressEntry, type TaskTotals } from '../../tasks/journal.js';
import { describeLimits, effectiveLimits } from '../../tasks/limits.js';
import { explainSelection } from '../../tasks/pick.js';
import { resolveTaskSource } from '../../tasks/sources/resolve.js';
import type { TaskSource } from '../../tasks/sources/source.js';
import { describeCompletion, type Task, type TaskLimits } from '../../tasks/task.js';
import type { CliIO, Command } from '../command.js';
import { parseHistoryArgs } from './history-common.js';
import { table, usd } from './history-format.js';
import { TASKS_RUN_USAGE } from './tasks-run-usage.js';

const OPTIONS = {
  cwd: { type: 'string' },
  file: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** What the read-only subcommands work from. */
interface TaskView {
  source: TaskSource;
  tasks: Task[];
  progress: ProgressEntry[];
  totals: Map<string, TaskTotals>;
  defaults: TaskLimits;
}

async function view(workspace: string, io: CliIO, file: string | undefined): Promise<TaskView> {
  const config = loadConfig(workspace, io.env);
  const source = await resolveTaskSource(workspace, config, io.env, file);
  const tasks = await source.load();
  const { entries } = await readEntries(join(workspace, PROGRESS_FILE), progressEntrySchema);
  const { tasks: settings } = config.settings;
  return {
    source,
    tasks,
    progress: entries,
    totals: totalsByTask(entries),
    defaults: { maxIterations: settings.max_iterations_per_task, maxRuntimeMs: settings.max_runtime_per_task, maxCostUsd: settings.max_cost_per_task },
  };
}

function taskJson(task: Task, v: TaskView) {
  const totals = v.totals.get(task.id);
  const limits = effectiveLimits(task.limits, v.defaults);
  return {
    id: task.id,
    title: task.title,
    status: task.status,
    priority: task.priority,
    created_at: task.createdAt,
    depends_on: task.dependsOn,
    blocker: task.blocker,
    completion: task.completion,
    limits: { max_iterations: limits.maxIterations, max_runtime_ms: limits.maxRuntimeMs, max_cost_usd: limits.maxCostUsd },
    acceptance: task.acceptance,
    description: task.description,
    line: task.line,
    iterations: totals?.iterations ?? 0,
    cost_usd: totals ? totals.costUsd : null,
    cost_unknown: totals?.costUnknown ?? false,
  };
}

function sourceJson(source: TaskSource) {
  return { kind: source.kind, name: source.name, path: source.path, priority_order: source.priorityOrder };
}

function summary(source: TaskSource, tasks: readonly Task[]): string {
  const counts = (['done', 'in_progress', 'blocked', 'pending'] as const)
    .map((s) => [s, tasks.filter((t) => t.status === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s.replace('_', ' ')}`);
  return `${source.name}: ${tasks.length} task${tasks.length === 1 ? '' : 's'}${counts.length > 0 ? ` (${counts.join(', ')})` : ''}`;
}

function list(v: TaskView, io: CliIO, json: boolean): number {
  if (json) {
    io.stdout.write(`${JSON.stringify({ source: sourceJson(v.source), tasks: v.tasks.map((t) => taskJson(t, v)) }, null, 2)}\n`);
    return EXIT.success;
  }
  io.stdout.write(`${summary(v.source, v.tasks)}\n`);
  if (v.tasks.length === 0) return EXIT.success;
  const rows = v.tasks.map((t) => {
    const totals = v.totals.get(t.id);
    return [
      t.id,
      t.status.replace('_', ' '),
      t.priority === null ? '-' : String(t.priority),
      String(totals?.iterations ?? 0),
      totals ? usd(totals.costUsd, totals.costUnknown) : '-',
      t.status === 'blocked' && t.blocker ? `${t.title} (blocked: ${t.blocker})` : t.title,
    ];
  });
  io.stdout.write(`\n${table(['ID', 'STATUS', 'PRIORITY', 'ITER', 'COST', 'TITLE'], rows, ['left', 'left', 'right', 'right', 'right'])}`);
  return EXIT.success;
}

function next(v: TaskView, io: CliIO, json: boolean): number {
  const selection = explainSelection(v.tasks, { priorityOrder: v.source.priorityOrder });
  if (json) {
    const out = {
      source: sourceJson(v.source),
      next: selection.task ? { id: selection.task.id, title: selection.task.title, reason: selection.reason } : null,
      reason: selection.reason,
      others: selection.others.map((o) => ({ id: o.task.id, title: o.task.title, status: o.task.status, reason: o.reason })),
    };
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return EXIT.success;
  }
  io.stdout.write(selection.task ? `next: ${selection.task.id} ${selection.task.title} (${selection.reason})\n` : `no task to run: ${selection.reason}\n`);
  if (selection.others.length > 0) {
    const width = Math.max(...selection.others.map((o) => o.task.id.length));
    io.stdout.write(`\n${selection.task ? 'not next' : 'tasks'}:\n`);
    for (const o of selection.others) io.stdout.write(`  ${o.task.id.padEnd(width)}  ${o.reason}\n`);
  }
  return EXIT.success;
}

function show(v: TaskView, id: string, io: CliIO, json: boolean): number {
  const task = v.tasks.find((t) => t.id === id);
  if (!task) throw new UserError(`no task '${id}' in ${v.source.name} (see 'ringmaster tasks')`);
  const notes = progressNotes(v.progress, task.id, 1000);
  if (json) {
    io.stdout.write(`${JSON.stringify({ source: sourceJson(v.source), task: taskJson(task, v), progress: v.progress.filter((e) => e.task_id === task.id) }, null, 2)}\n`);
    return EXIT.success;
  }
  const totals = v.totals.get(task.id);
  const own = task.limits.maxIterations !== null || task.limits.maxRuntimeMs !== null || task.limits.maxCostUsd !== null;
  const indent = (text: string): string => text.split('\n').map((l) => `  ${l}`).join('\n');
  const lines = [
    `${task.id}: ${task.title}`,
    `status: ${task.status.replace('_', ' ')}${task.blocker ? ` (${task.blocker})` : ''}`,
    `priority: ${task.priority ?? '-'}   created: ${task.createdAt ?? '-'}   ${v.source.path === null ? `source: ${v.source.name}` : `file: ${v.source.name}${task.line === null ? '' : ` line ${task.line}`}`}`,
    `depends on: ${task.dependsOn.length > 0 ? task.dependsOn.join(', ') : '-'}`,
    `completion: ${describeCompletion(task.completion)}`,
    `limits: ${describeLimits(effectiveLimits(task.limits, v.defaults))}${own ? '' : ' (defaults)'}`,
    `iterations: ${totals?.iterations ?? 0}   cost: ${totals ? usd(totals.costUsd, totals.costUnknown) : '-'}`,
  ];
  if (task.description !== '') lines.push('', 'description:', indent(task.description));
  if (task.acceptance.length > 0) lines.push('', 'acceptance:', ...task.acceptance.map((a) => `  - ${a}`));
  if (notes !== '') lines.push('', 'progress:', indent(notes));
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.success;
}

async function tasks(args: string[], io: CliIO): Promise<number> {
  const [first, ...rest] = args;
  if (first === 'run') return (await import('./tasks-run.js')).tasksRun(rest, io);
  const sub = first === 'next' || first === 'show' || first === 'list' ? first : 'list';
  const { values, positionals } = parseHistoryArgs('tasks', sub === 'list' && first !== 'list' ? args : rest, OPTIONS);
  const workspace = resolve(io.cwd, values.cwd ?? '.');
  if (!existsSync(workspace) || !statSync(workspace).isDirectory()) throw new UsageError(`--cwd: not a directory: ${workspace}`);
  const json = values.json === true;
  if (sub === 'show') {
    const [id, ...extra] = positionals;
    if (id === undefined) throw new UsageError("missing task id (see 'ringmaster tasks --help')");
    if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}' (see 'ringmaster tasks --help')`);
    return show(await view(workspace, io, values.file), id, io, json);
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}' (see 'ringmaster tasks --help')`);
  const v = await view(workspace, io, values.file);
  return sub === 'next' ? next(v, io, json) : list(v, io, json);
}

/** The `tasks` command. */
export const tasksCommand: Command = {
  name: 'tasks',
  usage: `Usage: ringmaster tasks [list|next|show ID] [--file FILE] [--cwd DIR] [--json]
       ringmaster tasks run [FILE] [run options]

Reads the workspace's task list (nothing is changed, no agent runs):
  ringmaster tasks            every task with its status, priority, iterations and cost so far
  ringmaster tasks next       the task a task run would start next, and why each other one would not
  ringmaster tasks show ID    one task: fields, completion check, limits, progress notes

${TASKS_RUN_USAGE}

The task list is FILE, else tasks.command, else tasks.file (ringmaster.yml), else the first of
tasks.jsonl, prd.json, TODO.md in the workspace. The format is recognised from the file: tasks.jsonl
(one JSON task per line), prd.json (userStories with passes), a markdown checklist (- [ ] items).
Iterations and cost come from progress.jsonl in the workspace.

  --file FILE   the task file
  --cwd DIR     workspace directory (default: the current directory)
  --json        print JSON (snake_case fields)
`,
  run: tasks,
};
