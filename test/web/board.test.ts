// The board: columns by status with their runs, filters and their round trip through the URL.
import { describe, expect, it } from 'vitest';
import { COLUMNS, NO_FILTERS, filterOptions, formatFilters, groupRuns, matches, parseFilters } from '../../web/src/lib/board.js';
import { runItem } from './fixtures.js';

describe('board filters in the URL', () => {
  it('round-trips every filter, statuses in column order, empty ones omitted', () => {
    const filters = { workspace: '/work/a b', agent: 'codex', statuses: ['failed', 'running'] as const, text: 'fix tests' };
    const query = formatFilters({ ...filters, statuses: [...filters.statuses] });
    expect(query).toBe('workspace=%2Fwork%2Fa+b&agent=codex&status=running%2Cfailed&q=fix+tests');
    expect(parseFilters(`?${query}`)).toEqual({ workspace: '/work/a b', agent: 'codex', statuses: ['running', 'failed'], text: 'fix tests' });
  });

  it('no filters is an empty query, and an empty query no filters', () => {
    expect(formatFilters(NO_FILTERS)).toBe('');
    expect(parseFilters('')).toEqual(NO_FILTERS);
  });

  it('ignores unknown statuses and other parameters', () => {
    expect(parseFilters('?status=running,bogus,,paused&page=3')).toEqual({ ...NO_FILTERS, statuses: ['running', 'paused'] });
  });
});

describe('board columns', () => {
  const runs = [
    runItem({ id: 'r1', status: 'running', created_at: '2026-01-01T10:02:00.000Z', label: 'PROMPT.md', title: 'PROMPT.md' }),
    runItem({ id: 'r2', status: 'running', created_at: '2026-01-01T10:01:00.000Z', agent: 'codex', model: 'gpt-5' }),
    runItem({ id: 'c1', status: 'completed', ended_at: '2026-01-01T11:00:00.000Z', workspace: '/work/other' }),
    runItem({ id: 'c2', status: 'completed', ended_at: '2026-01-01T12:00:00.000Z' }),
    runItem({ id: 'o1', status: 'orphaned' }),
    runItem({ id: 'w1', status: 'waiting' }),
  ];

  it('has every column in lifecycle order with its runs: active oldest first, finished newest first', () => {
    const columns = groupRuns(runs, NO_FILTERS);
    expect(columns.map((c) => c.status)).toEqual([...COLUMNS]);
    expect(Object.fromEntries(columns.map((c) => [c.status, c.runs.map((r) => r.id)]))).toEqual({
      pending: [],
      running: ['r2', 'r1'],
      paused: [],
      waiting: ['w1'],
      completed: ['c2', 'c1'],
      stopped: ['o1'],
      failed: [],
    });
  });

  it('filters by workspace, agent, status and text (id, title, label, workspace, agent, model; any case)', () => {
    const ids = (filters: Partial<typeof NO_FILTERS>) => groupRuns(runs, { ...NO_FILTERS, ...filters }).flatMap((c) => c.runs.map((r) => r.id)).sort();
    expect(ids({ workspace: '/work/other' })).toEqual(['c1']);
    expect(ids({ agent: 'codex' })).toEqual(['r2']);
    expect(ids({ statuses: ['stopped', 'waiting'] })).toEqual(['o1', 'w1']);
    expect(groupRuns(runs, { ...NO_FILTERS, statuses: ['failed', 'stopped'] }).map((c) => c.status)).toEqual(['stopped', 'failed']);
    expect(ids({ text: 'GPT' })).toEqual(['r2']);
    expect(ids({ text: 'prompt.md' })).toEqual(['r1']);
    expect(ids({ text: '  ' })).toEqual(['c1', 'c2', 'o1', 'r1', 'r2', 'w1']);
    expect(matches(runs[0]!, { ...NO_FILTERS, agent: 'claude', text: 'r1' })).toBe(true);
  });

  it('offers the distinct workspaces and agents as filter options', () => {
    expect(filterOptions(runs)).toEqual({ workspaces: ['/work/app', '/work/other'], agents: ['claude', 'codex'] });
  });
});
