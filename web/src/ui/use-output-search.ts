// Search in the output view: the rows of the loaded output that contain the text, and (when earlier iterations are
// not loaded yet) the server's search over the run's stored output, whose hits bring those iterations in, so a
// search finds matches in every iteration. Hits refresh when the query changes, when rows come in front, or when
// the user steps to the next hit (searching 100,000 rows on every chunk would cost more than it shows).
import { useEffect, useMemo, useState } from 'react';
import { searchOutput } from '../api/client.js';
import type { OutputLog } from '../lib/output-log.js';
import type { Earlier } from './use-earlier.js';

/** The search box's state and actions. */
export interface OutputSearch {
  query: string;
  setQuery: (query: string) => void;
  /** Row indexes of the hits. */
  matches: number[];
  /** Row index of the current hit, or -1. */
  current: number;
  /** What the count says ('3 matches', '2 of 3', 'no match'), or null with no query. */
  label: string | null;
  /** Steps to the next (1) or previous (-1) hit; returns its row index, or null with none. */
  step: (delta: number) => number | null;
}

/** Search over `log` (whose `version` is given) and, before `earlier.first`, over the run's stored output. */
export function useOutputSearch(log: OutputLog, version: number, runId: string, earlier: Earlier): OutputSearch {
  const [query, setQueryState] = useState('');
  // Index of the current hit among the matches; -1 until the user steps to one.
  const [matchAt, setMatchAt] = useState(-1);
  const [searched, setSearched] = useState<{ query: string; version: number }>({ query: '', version: 0 });
  // Rows put in front (a new `first`: earlier iterations loaded) change the hits too; new rows at the end do not.
  const loadedFrom = earlier.first;
  const matches = useMemo(() => (loadedFrom > 0 ? log.search(searched.query) : []), [log, searched, loadedFrom]);
  const current = matches.length === 0 || matchAt < 0 ? -1 : (matches[Math.min(matchAt, matches.length - 1)] ?? -1);

  const { first, load } = earlier;
  const wanted = searched.query.trim();
  const [asking, setAsking] = useState(false);
  useEffect(() => {
    if (wanted === '' || first <= 1) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      setAsking(true);
      searchOutput(runId, wanted, first)
        .then((result) => {
          const lowest = result.iterations[0]?.iteration;
          if (!cancelled && lowest !== undefined) load(lowest);
        })
        .catch(() => undefined)
        .finally(() => !cancelled && setAsking(false));
    }, 200);
    return () => {
      cancelled = true;
      clearTimeout(timer);
      setAsking(false);
    };
  }, [wanted, first, runId, load]);

  const setQuery = (next: string) => {
    setQueryState(next);
    setMatchAt(-1);
    setSearched({ query: next, version });
  };
  const step = (delta: number): number | null => {
    setSearched({ query, version });
    const hits = log.search(query);
    if (hits.length === 0) return null;
    const next = matchAt < 0 ? (delta > 0 ? 0 : hits.length - 1) : (matchAt + delta + hits.length) % hits.length;
    setMatchAt(next);
    return hits[next] ?? 0;
  };
  const searching = asking || earlier.loading ? ' (searching earlier iterations…)' : '';
  const count = matches.length === 0 ? 'no match' : matchAt < 0 ? `${matches.length.toLocaleString('en-US')} ${matches.length === 1 ? 'match' : 'matches'}` : `${Math.min(matchAt, matches.length - 1) + 1} of ${matches.length}`;
  return { query, setQuery, matches, current, label: wanted === '' ? null : count + searching, step };
}
