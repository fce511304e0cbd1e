// The board: every run in columns by status with counts, filters kept in the URL, keyboard navigation.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import type { RunItem, RunStatus } from '../api/api-types.js';
import { COLUMNS, filterOptions, formatFilters, groupRuns, parseFilters, type Column, type Filters } from '../lib/board.js';
import { useRuns, type RunsData } from './live.js';
import { RunCard, baseName } from './run-card.js';
import { PHONE_QUERY, useMedia } from './use-media.js';
import { useShortcuts } from './use-shortcuts.js';

function BoardColumn({ column, data, selectedId }: { column: Column; data: RunsData | undefined; selectedId: string | null }) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: column.runs.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 168,
    overscan: 6,
    getItemKey: (index) => column.runs[index]?.id ?? index,
  });
  const selectedIndex = selectedId === null ? -1 : column.runs.findIndex((r) => r.id === selectedId);
  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [selectedIndex, virtualizer]);
  return (
    <section className={`column column-${column.status}${column.runs.length === 0 ? ' is-empty' : ''}`} data-testid={`column-${column.status}`} aria-label={`${column.status} runs`}>
      <h2>
        {column.status} <span className="count" data-testid="column-count">{column.runs.length}</span>
      </h2>
      <div className="column-scroll" ref={scroller}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const run = column.runs[item.index];
            if (!run) return null;
            return (
              <div key={item.key} data-index={item.index} ref={virtualizer.measureElement} className="column-item" style={{ transform: `translateY(${item.start}px)` }}>
                <RunCard run={run} fetchedAt={data?.refetchedAt[run.id] ?? data?.fetchedAt ?? 0} selected={run.id === selectedId} />
              </div>
            );
          })}
        </div>
        {column.runs.length === 0 && <p className="muted empty">none</p>}
      </div>
    </section>
  );
}

function FilterBar({ filters, runs, setFilters, searchRef }: { filters: Filters; runs: RunItem[]; setFilters: (f: Filters) => void; searchRef: React.RefObject<HTMLInputElement | null> }) {
  const options = useMemo(() => filterOptions(runs), [runs]);
  const toggleStatus = (status: RunStatus) => {
    const statuses = filters.statuses.includes(status) ? filters.statuses.filter((s) => s !== status) : [...filters.statuses, status];
    setFilters({ ...filters, statuses });
  };
  const phone = useMedia(PHONE_QUERY);
  const chosen = (filters.workspace === '' ? 0 : 1) + (filters.agent === '' ? 0 : 1) + filters.statuses.length;
  return (
    <div className="filters" role="search">
      <input ref={searchRef} type="search" placeholder="Search runs (/)" aria-label="search runs" value={filters.text} onChange={(e) => setFilters({ ...filters, text: e.target.value })} onKeyDown={(e) => e.key === 'Escape' && e.currentTarget.blur()} />
      <Fold phone={phone} summary={`filters${chosen > 0 ? ` (${chosen})` : ''}`}>
      <select aria-label="workspace" value={filters.workspace} onChange={(e) => setFilters({ ...filters, workspace: e.target.value })}>
        <option value="">all workspaces</option>
        {options.workspaces.map((w) => (
          <option key={w} value={w} title={w}>
            {baseName(w)}
          </option>
        ))}
      </select>
      <select aria-label="agent" value={filters.agent} onChange={(e) => setFilters({ ...filters, agent: e.target.value })}>
        <option value="">all agents</option>
        {options.agents.map((a) => (
          <option key={a} value={a}>
            {a}
          </option>
        ))}
      </select>
      <div className="status-toggles" role="group" aria-label="statuses">
        {COLUMNS.map((status) => (
          <button key={status} type="button" aria-pressed={filters.statuses.includes(status)} onClick={() => toggleStatus(status)} className={`toggle badge-${status}`}>
            {status}
          </button>
        ))}
      </div>
      </Fold>
    </div>
  );
}

/** On a phone the board's filters fold under one line (the column tabs below already name every status). */
function Fold({ phone, summary, children }: { phone: boolean; summary: string; children: ReactNode }) {
  if (!phone) return <>{children}</>;
  return (
    <details className="filter-more" data-testid="filter-more">
      <summary>{summary}</summary>
      <div className="filters">{children}</div>
    </details>
  );
}

/**
 * The columns by name and count, each a link to its column: on a phone, where one column fills the screen, they
 * show that there are others and take you there (hidden on wider screens, where every column is in view).
 */
function ColumnTabs({ columns }: { columns: Column[] }) {
  const go = (status: RunStatus) => document.querySelector(`[data-testid="column-${status}"]`)?.scrollIntoView({ behavior: 'smooth', inline: 'start', block: 'nearest' });
  return (
    <nav className="column-tabs" aria-label="columns" data-testid="column-tabs">
      {columns
        .filter((c) => c.runs.length > 0)
        .map((c) => (
          <button key={c.status} type="button" className={`toggle badge-${c.status}`} onClick={() => go(c.status)}>
            {c.status} {c.runs.length}
          </button>
        ))}
    </nav>
  );
}

/** The board page. */
export function Board({ toggleTheme, showHelp }: { theme: string; toggleTheme: () => void; showHelp: () => void }) {
  const runs = useRuns();
  const search = useSearch();
  const [, navigate] = useLocation();
  const filters = useMemo(() => parseFilters(search), [search]);
  const setFilters = (next: Filters) => {
    const query = formatFilters(next);
    navigate(query === '' ? '/' : `/?${query}`, { replace: true });
  };
  const columns = useMemo(() => groupRuns(runs.data?.runs ?? [], filters), [runs.data, filters]);
  const order = useMemo(() => columns.flatMap((c) => c.runs.map((r) => r.id)), [columns]);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const move = (delta: number) => {
    if (order.length === 0) return;
    const at = selectedId === null ? -1 : order.indexOf(selectedId);
    const next = at === -1 ? (delta > 0 ? 0 : order.length - 1) : Math.min(order.length - 1, Math.max(0, at + delta));
    setSelectedId(order[next] ?? null);
  };
  useShortcuts('board', {
    search: () => searchRef.current?.focus(),
    'new-run': () => navigate('/new'),
    next: () => move(1),
    previous: () => move(-1),
    open: () => selectedId !== null && navigate(`/runs/${encodeURIComponent(selectedId)}`),
    theme: toggleTheme,
    help: showHelp,
  });

  const loaded = runs.data?.runs.length ?? 0;
  const total = runs.data?.total ?? 0;
  const shown = order.length;
  return (
    <div className="board-page">
      <FilterBar filters={filters} runs={runs.data?.runs ?? []} setFilters={setFilters} searchRef={searchRef} />
      {runs.isError && (
        <p className="error pad" role="alert">
          Cannot load runs: {runs.error.message}
        </p>
      )}
      {runs.data && (
        <p className="muted summary" data-testid="board-summary">
          {shown === loaded ? `${loaded} runs` : `${shown} of ${loaded} runs`}
          {total > loaded ? ` (the newest ${loaded} of ${total})` : ''}
        </p>
      )}
      {runs.data && loaded === 0 && (
        <div className="empty-board pad" data-testid="empty-board">
          <p>
            <strong>No runs yet.</strong> Start one here with <Link href="/new">New run</Link>, or from a terminal in your project:
          </p>
          <pre>ringmaster run --agent claude --max-iterations 20 --max-cost 15</pre>
          <p className="muted">Runs started in terminals show up here too.</p>
        </div>
      )}
      <ColumnTabs columns={columns} />
      <div className="board" data-testid="board">
        {columns.map((column) => (
          <BoardColumn key={column.status} column={column} data={runs.data} selectedId={selectedId} />
        ))}
      </div>
    </div>
  );
}
