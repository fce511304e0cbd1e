// The board's columns and filters: runs grouped by status (with counts), filtered by workspace, agent,
// status and free text; the filters live in the URL's query string so a board view can be shared or reloaded.
import type { DisplayStatus, RunItem, RunStatus } from '../api/api-types.js';

/** Board columns, in lifecycle order. */
export const COLUMNS: readonly RunStatus[] = ['pending', 'running', 'paused', 'waiting', 'completed', 'stopped', 'failed'];

/** The column a status is shown in: an orphaned run (owner gone) waits for a resume, like a stopped one. */
export function columnOf(status: DisplayStatus): RunStatus {
  return status === 'orphaned' ? 'stopped' : status;
}

/** Board filters. Empty string / empty list = no filter. */
export interface Filters {
  workspace: string;
  agent: string;
  statuses: RunStatus[];
  text: string;
}

/** No filter at all. */
export const NO_FILTERS: Filters = { workspace: '', agent: '', statuses: [], text: '' };

/** Reads filters from a query string (`?workspace=...&agent=...&status=running,paused&q=...`); unknown statuses are ignored. */
export function parseFilters(search: string): Filters {
  const params = new URLSearchParams(search);
  const statuses = (params.get('status') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s): s is RunStatus => (COLUMNS as readonly string[]).includes(s));
  return {
    workspace: params.get('workspace') ?? '',
    agent: params.get('agent') ?? '',
    statuses: COLUMNS.filter((c) => statuses.includes(c)),
    text: params.get('q') ?? '',
  };
}

/** Writes filters as a query string (without `?`), omitting empty ones, in a stable order. */
export function formatFilters(filters: Filters): string {
  const params = new URLSearchParams();
  if (filters.workspace !== '') params.set('workspace', filters.workspace);
  if (filters.agent !== '') params.set('agent', filters.agent);
  const statuses = COLUMNS.filter((c) => filters.statuses.includes(c));
  if (statuses.length > 0) params.set('status', statuses.join(','));
  if (filters.text.trim() !== '') params.set('q', filters.text);
  return params.toString();
}

/** True when the run passes every filter. Text matches id, title, label, workspace, agent and model, ignoring case. */
export function matches(run: RunItem, filters: Filters): boolean {
  if (filters.workspace !== '' && run.workspace !== filters.workspace) return false;
  if (filters.agent !== '' && run.agent !== filters.agent) return false;
  if (filters.statuses.length > 0 && !filters.statuses.includes(columnOf(run.status))) return false;
  const text = filters.text.trim().toLowerCase();
  if (text === '') return true;
  return [run.id, run.title ?? '', run.label ?? '', run.workspace, run.agent, run.model ?? ''].some((field) => field.toLowerCase().includes(text));
}

/** One column of the board. */
export interface Column {
  status: RunStatus;
  runs: RunItem[];
}

const endOf = (run: RunItem): string => run.ended_at ?? run.updated_at ?? '';

/**
 * Groups runs into the board's columns (every column present, possibly empty). Active columns list the
 * oldest first (the order they run in); finished ones the most recently ended first.
 */
export function groupRuns(runs: readonly RunItem[], filters: Filters): Column[] {
  const byStatus = new Map<RunStatus, RunItem[]>(COLUMNS.map((c) => [c, []]));
  for (const run of runs) if (matches(run, filters)) byStatus.get(columnOf(run.status))?.push(run);
  // Filtered to some statuses: only their columns (empty columns in front would push the wanted ones aside).
  const shown = filters.statuses.length === 0 ? COLUMNS : COLUMNS.filter((status) => filters.statuses.includes(status));
  return shown.map((status) => {
    const list = byStatus.get(status) ?? [];
    const finished = status === 'completed' || status === 'stopped' || status === 'failed';
    list.sort((a, b) => (finished ? endOf(b).localeCompare(endOf(a)) : (a.created_at ?? '').localeCompare(b.created_at ?? '')) || a.id.localeCompare(b.id));
    return { status, runs: list };
  });
}

/** The distinct workspaces and agents of the runs, sorted, for the filter menus. */
export function filterOptions(runs: readonly RunItem[]): { workspaces: string[]; agents: string[] } {
  return {
    workspaces: [...new Set(runs.map((r) => r.workspace))].sort(),
    agents: [...new Set(runs.map((r) => r.agent))].sort(),
  };
}
