// The WHERE clause of listRuns / countRuns for a RunFilter (PostgreSQL positional parameters), the same
// filter as sqlite/run-filter.ts.
import type { RunFilter } from '../store.js';

/** SQL condition (with leading WHERE, or empty) and its values ($1, $2, ... in order). */
export function runWhere(filter: RunFilter): { where: string; values: unknown[] } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  if (filter.status !== undefined) {
    values.push(typeof filter.status === 'string' ? [filter.status] : [...filter.status]);
    conditions.push(`r.status = ANY($${values.length}::text[])`);
  }
  if (filter.workspace !== undefined) {
    values.push(filter.workspace);
    conditions.push(`r.workspace = $${values.length}`);
  }
  if (filter.text !== undefined && filter.text.trim() !== '') {
    values.push(filter.text.trim().toLowerCase());
    const n = `$${values.length}`;
    conditions.push(`(strpos(lower(r.id), ${n}) > 0 OR strpos(lower(r.workspace), ${n}) > 0 OR strpos(lower(r.spec_json), ${n}) > 0)`);
  }
  return { where: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', values };
}
