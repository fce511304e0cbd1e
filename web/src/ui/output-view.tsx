// The run page's output: the run's whole output in one virtualised list. It opens on the newest iteration (and,
// when following a live run, everything the agent does next), follows the end until the user scrolls up, and loads
// the iterations before it on demand as the user scrolls to the top or a search finds matches there.
import { useImperativeHandle, useMemo, useRef, useState, useSyncExternalStore, type Ref, type RefObject } from 'react';
import type { Iteration } from '../api/api-types.js';
import { MAX_ACTIVITY_PAGES } from '../api/client.js';
import { useDeliveredNotes } from './note-box.js';
import { FOLLOWING, onAppend, onJump, onLeave, type FollowState } from '../lib/follow.js';
import { OutputLog } from '../lib/output-log.js';
import { OutputRow } from './output-rows.js';
import { useEarlier } from './use-earlier.js';
import { useOutputScroll } from './use-output-scroll.js';
import { useOutputSearch, type OutputSearch } from './use-output-search.js';
import { useOutputSync } from './use-output-sync.js';

/** What the run page can ask of the output view (keyboard shortcuts). */
export interface OutputHandle {
  jumpToEnd(): void;
  focusSearch(): void;
}

/** What the view shows: a run's output from `iteration` (only that one with `only`), live with `live`. */
export interface OutputViewProps {
  runId: string;
  iteration: number;
  only: boolean;
  live: boolean;
  latest: () => number;
  /** The run's iterations, for the outcome and duration on each iteration's header. */
  iterations: readonly Iteration[];
  handle?: Ref<OutputHandle>;
}

/** Output of a run: see the file's header. */
export function OutputView({ runId, iteration, only, live, latest, iterations, handle }: OutputViewProps) {
  const [log] = useState(() => new OutputLog());
  const version = useSyncExternalStore(
    (listener) => log.subscribe(listener),
    () => log.version,
  );
  const [follow, setFollow] = useState<FollowState>(FOLLOWING);
  // A view opened on a live run keeps listening after the run ends (nothing more comes), so that the
  // rows are not reloaded when `live` turns false.
  const [listening] = useState(live);
  const sync = useOutputSync(log, { runId, iteration, only, listening, latest, onAdded: (added) => setFollow((s) => onAppend(s, added)) });
  const earlier = useEarlier(log, runId, iteration, !only);
  const search = useOutputSearch(log, version, runId, earlier);
  const searchInput = useRef<HTMLInputElement>(null);
  const headers = useMemo(() => new Map(iterations.map((it) => [it.number, it])), [iterations]);
  const notes = useDeliveredNotes(runId, iterations.length);
  const items = log.items;
  const { scroller, virtualizer, onScrolled } = useOutputScroll(log, version, follow, setFollow, earlier, sync.synced);

  const step = (delta: number) => {
    const hit = search.step(delta);
    if (hit === null) return;
    setFollow((s) => onLeave(s));
    virtualizer.scrollToIndex(hit, { align: 'center' });
  };
  useImperativeHandle(handle, () => ({
    jumpToEnd: () => setFollow((s) => onJump(s)),
    focusSearch: () => searchInput.current?.focus(),
  }));

  return (
    <div className="output">
      <div className="output-tools">
        <SearchBox search={search} step={step} input={searchInput} />
        <span className="muted output-count" data-testid="output-count">
          {items.length.toLocaleString('en-US')} rows{log.dropped > 0 ? ` (${log.dropped.toLocaleString('en-US')} earlier rows not kept)` : ''}
        </span>
        <EarlierNote first={earlier.first} loading={earlier.loading} capped={earlier.capped} onLoad={() => earlier.load(1)} />
      </div>
      {(sync.loadError ?? earlier.error) !== null && (
        <p className="error" role="alert">
          Cannot load the output: {sync.loadError ?? earlier.error}
        </p>
      )}
      {sync.truncated && (
        <p className="muted">
          Only the first {MAX_ACTIVITY_PAGES} MiB of an iteration&apos;s log are shown here: read the rest with <code>ringmaster logs</code>.
        </p>
      )}
      <div
        className="output-scroll"
        ref={scroller}
        data-testid="output-scroll"
        onScroll={onScrolled}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((row) => {
            const item = items[row.index];
            if (!item) return null;
            return (
              <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} className="output-row" style={{ transform: `translateY(${row.start}px)` }}>
                <OutputRow item={item} current={row.index === search.current} header={item.kind === 'iteration' ? headers.get(item.iteration) : undefined} notes={item.kind === 'iteration' ? notes.get(item.iteration) : undefined} />
              </div>
            );
          })}
        </div>
        {items.length === 0 && sync.loadError === null && <p className="muted pad">{sync.synced && !earlier.loading ? 'No output yet.' : 'Loading output…'}</p>}
      </div>
      {!follow.following && listening && (
        <button type="button" className="jump" data-testid="jump-to-end" onClick={() => setFollow((s) => onJump(s))}>
          {follow.unseen > 0 ? `${follow.unseen.toLocaleString('en-US')} new — ` : ''}follow live output (f)
        </button>
      )}
    </div>
  );
}

/** The search box, the count of hits and the buttons that step through them. */
function SearchBox({ search, step, input }: { search: OutputSearch; step: (delta: number) => void; input: RefObject<HTMLInputElement | null> }) {
  return (
    <>
      <input
        ref={input}
        type="search"
        placeholder="Search output (/)"
        aria-label="search output"
        value={search.query}
        onChange={(e) => search.setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') step(e.shiftKey ? -1 : 1);
          if (e.key === 'Escape') e.currentTarget.blur();
        }}
      />
      {search.label !== null && (
        <span className="muted" data-testid="search-count">
          {search.label}
        </span>
      )}
      <button type="button" onClick={() => step(-1)} disabled={search.query.trim() === ''} aria-label="previous match">
        ↑
      </button>
      <button type="button" onClick={() => step(1)} disabled={search.query.trim() === ''} aria-label="next match">
        ↓
      </button>
    </>
  );
}

/** Which earlier iterations are not loaded yet, with a button that loads them all. */
function EarlierNote({ first, loading, capped, onLoad }: { first: number; loading: boolean; capped: boolean; onLoad: () => void }) {
  if (first <= 1) return null;
  const range = first === 2 ? 'iteration 1' : `iterations 1–${first - 1}`;
  if (capped) return <span className="muted">{range} not shown (row limit)</span>;
  return (
    <button type="button" className="link" data-testid="load-earlier" onClick={onLoad} disabled={loading}>
      {loading ? 'loading earlier output…' : `show ${range} (scroll up)`}
    </button>
  );
}
