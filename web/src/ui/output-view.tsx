// The run page's output: one iteration's stored activity, then (when following a live run) everything
// the agent does next, in a virtualised list that follows the end until the user scrolls up.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useImperativeHandle, useMemo, useRef, useState, useSyncExternalStore, type Ref } from 'react';
import type { AgentActivity } from '../api/api-types.js';
import { ApiError, iterationActivity, MAX_ACTIVITY_PAGES } from '../api/client.js';
import { FOLLOWING, onAppend, onJump, onLeave, onScroll, type FollowState } from '../lib/follow.js';
import { OutputLog } from '../lib/output-log.js';
import { useLive } from './live.js';
import { OutputRow } from './output-rows.js';

/** What the run page can ask of the output view (keyboard shortcuts). */
export interface OutputHandle {
  jumpToEnd(): void;
  focusSearch(): void;
}

/**
 * Output of `runId` from iteration `iteration` (only that one with `only`). With `live`, the run is watched in
 * full and its activity appended as it arrives. Each time the server confirms the subscription (on opening and
 * after every reconnect) the view syncs: it loads the stored activity of the iterations since the last one it has
 * (up to `latest()`), holding live pieces back meanwhile; stored and live copies of a piece are taken once.
 */
// eslint-disable-next-line max-lines-per-function -- too long today; to be split by concern (docs/architecture.md "Layers and size")
export function OutputView({ runId, iteration, only, live, latest, handle }: { runId: string; iteration: number; only: boolean; live: boolean; latest: () => number; handle?: Ref<OutputHandle> }) {
  const { onActivity, onSubscribed, connection } = useLive();
  const [log] = useState(() => new OutputLog());
  const version = useSyncExternalStore(
    (listener) => log.subscribe(listener),
    () => log.version,
  );
  const [follow, setFollow] = useState<FollowState>(FOLLOWING);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [truncated, setTruncated] = useState(false);
  const scroller = useRef<HTMLDivElement>(null);
  const searchInput = useRef<HTMLInputElement>(null);
  const programmatic = useRef(false);
  // A view opened on a live run keeps listening after the run ends (nothing more comes), so that the
  // rows are not reloaded when `live` turns false.
  const [listening] = useState(live);
  const latestRef = useRef(latest);
  useEffect(() => {
    latestRef.current = latest;
  });

  useEffect(() => {
    let generation = 0;
    let inSync = false;
    const held: AgentActivity[] = [];
    const mine = (a: AgentActivity): boolean => (only ? a.iteration === iteration : a.iteration >= iteration);
    const add = (batch: AgentActivity[]) => {
      const added = log.append(batch);
      if (added > 0) setFollow((s) => onAppend(s, added));
    };
    const sync = async (): Promise<void> => {
      const current = ++generation;
      inSync = false;
      const from = log.lastIteration ?? iteration;
      const heldLast = held.reduce((max, a) => Math.max(max, a.iteration), 0);
      const to = only ? iteration : Math.max(from, latestRef.current(), heldLast);
      const stored: AgentActivity[] = [];
      let cut = false;
      try {
        for (let n = from; n <= to; n++) {
          const result = await iterationActivity(runId, n).catch((e: unknown) => {
            // An iteration that has not started yet has no log: nothing to show.
            if (e instanceof ApiError && e.code === 'not_found') return { activity: [], truncated: false };
            throw e;
          });
          stored.push(...result.activity);
          cut ||= result.truncated;
        }
        if (current !== generation) return;
        setLoadError(null);
      } catch (e) {
        if (current !== generation) return;
        setLoadError((e as Error).message);
      }
      if (cut) setTruncated(true);
      add([...stored, ...held]);
      held.length = 0;
      inSync = true;
    };
    if (!listening) {
      void sync();
      return () => {
        generation++;
      };
    }
    const offActivity = onActivity(runId, (batch) => {
      const pieces = batch.filter(mine);
      if (inSync) add(pieces);
      else held.push(...pieces);
    });
    const offSubscribed = onSubscribed(runId, () => void sync());
    connection.watch(runId);
    return () => {
      generation++;
      offActivity();
      offSubscribed();
      connection.unwatch(runId);
    };
  }, [log, onActivity, onSubscribed, connection, runId, iteration, only, listening]);

  const items = log.items;
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    // A one-line row is exactly 18px (.row-line): most rows need no correction once measured.
    estimateSize: (index) => (items[index]?.kind === 'line' ? 18 : 44),
    overscan: 20,
    getItemKey: (index) => items[index]?.id ?? index,
  });

  const scrollToEnd = () => {
    if (items.length === 0) return;
    programmatic.current = true;
    virtualizer.scrollToIndex(items.length - 1, { align: 'end' });
    requestAnimationFrame(() => {
      programmatic.current = false;
    });
  };

  useEffect(() => {
    if (follow.following) scrollToEnd();
    // Scroll after every change while following (version), not on every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [version, follow.following]);

  const [query, setQuery] = useState('');
  // Index of the current hit among the matches; -1 until the user steps to one.
  const [matchAt, setMatchAt] = useState(-1);
  const [searched, setSearched] = useState<{ query: string; version: number }>({ query: '', version: 0 });
  // Searching 100,000 rows on every chunk would cost more than it shows: the hits refresh when the query
  // changes or the user steps to the next hit.
  const matches = useMemo(() => log.search(searched.query), [log, searched]);
  const current = matches.length === 0 || matchAt < 0 ? -1 : (matches[Math.min(matchAt, matches.length - 1)] ?? -1);
  const step = (delta: number) => {
    const fresh = { query, version };
    setSearched(fresh);
    const hits = log.search(query);
    if (hits.length === 0) return;
    const next = matchAt < 0 ? (delta > 0 ? 0 : hits.length - 1) : (matchAt + delta + hits.length) % hits.length;
    setMatchAt(next);
    setFollow((s) => onLeave(s));
    virtualizer.scrollToIndex(hits[next] ?? 0, { align: 'center' });
  };

  useImperativeHandle(handle, () => ({
    jumpToEnd: () => setFollow((s) => onJump(s)),
    focusSearch: () => searchInput.current?.focus(),
  }));

  return (
    <div className="output">
      <div className="output-tools">
        <input
          ref={searchInput}
          type="search"
          placeholder="Search output (/)"
          aria-label="search output"
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setMatchAt(-1);
            setSearched({ query: e.target.value, version });
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') step(e.shiftKey ? -1 : 1);
            if (e.key === 'Escape') e.currentTarget.blur();
          }}
        />
        {searched.query.trim() !== '' && (
          <span className="muted" data-testid="search-count">
            {matches.length === 0 ? 'no match' : matchAt < 0 ? `${matches.length} matches` : `${Math.min(matchAt, matches.length - 1) + 1} of ${matches.length}`}
          </span>
        )}
        <button type="button" onClick={() => step(-1)} disabled={query.trim() === ''} aria-label="previous match">
          ↑
        </button>
        <button type="button" onClick={() => step(1)} disabled={query.trim() === ''} aria-label="next match">
          ↓
        </button>
        <span className="muted output-count" data-testid="output-count">
          {items.length.toLocaleString('en-US')} rows{log.dropped > 0 ? ` (${log.dropped.toLocaleString('en-US')} earlier rows not kept)` : ''}
        </span>
      </div>
      {loadError !== null && (
        <p className="error" role="alert">
          Cannot load the output of iteration {iteration}: {loadError}
        </p>
      )}
      {truncated && (
        <p className="muted">
          Only the first {MAX_ACTIVITY_PAGES} MiB of this iteration&apos;s log are shown here: read the rest with <code>ringmaster logs</code>.
        </p>
      )}
      <div
        className="output-scroll"
        ref={scroller}
        data-testid="output-scroll"
        onScroll={(e) => {
          if (programmatic.current) return;
          const el = e.currentTarget;
          setFollow((s) => onScroll(s, { scrollTop: el.scrollTop, scrollHeight: el.scrollHeight, clientHeight: el.clientHeight }));
        }}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((row) => {
            const item = items[row.index];
            if (!item) return null;
            return (
              <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} className="output-row" style={{ transform: `translateY(${row.start}px)` }}>
                <OutputRow item={item} current={row.index === current} />
              </div>
            );
          })}
        </div>
        {items.length === 0 && loadError === null && <p className="muted pad">No output yet.</p>}
      </div>
      {!follow.following && listening && (
        <button type="button" className="jump" data-testid="jump-to-end" onClick={() => setFollow((s) => onJump(s))}>
          {follow.unseen > 0 ? `${follow.unseen.toLocaleString('en-US')} new — ` : ''}follow live output (f)
        </button>
      )}
    </div>
  );
}
