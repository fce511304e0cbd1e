// The WHERE clause of listRuns / countRuns for a RunFilter (SQLite parameters by name).
import type { SQLInputValue } from 'node:sqlite';
import type { RunFilter } from '../store.js';

/** SQL condition (with leading WHERE, or empty) and its parameters. */
export function runWhere(filter: RunFilter): { where: string; params: Record<string, SQLInputValue> } {
  const conditions: string[] = [];
  const params: Record<string, SQLInputValue> = {};
  if (filter.status !== undefined) {
    const statuses = typeof filter.status === 'string' ? [filter.status] : [...filter.status];
    const names = statuses.map((status, i) => {
      params[`status${i}`] = status;
      return `:status${i}`;
    });
    conditions.push(names.length ? `r.status IN (${names.join(', ')})` : '0');
  }
  if (filter.workspace !== undefined) {
    conditions.push('r.workspace = :workspace');
    params.workspace = filter.workspace;
  }
  if (filter.text !== undefined && filter.text.trim() !== '') {
    conditions.push(`(instr(lower(r.id), :text) > 0 OR instr(lower(r.workspace), :text) > 0 OR instr(lower(r.spec_json), :text) > 0)`);
    params.text = filter.text.trim().toLowerCase();
  }
  return { where: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params };
}
