// The run page's place in its URL: the tab shown (`?tab=`, the output when absent or unknown) and the iteration
// pinned (`?iteration=N`, none: the live run), and `go` to another tab or iteration (a new tab is a history entry;
// a change of iteration alone replaces the current one).
import { useLocation, useSearch } from 'wouter';

/** The run page's tabs, in their order (`units` only for runs that have tasks or workflow steps). */
export const TABS = ['output', 'iterations', 'cost', 'checkpoints', 'units'] as const;
/** One of the run page's tabs. */
export type Tab = (typeof TABS)[number];

/** Where to go: another tab, another iteration (null: none pinned), or both; what is not given stays. */
export interface RunPlace {
  tab?: Tab;
  iteration?: number | null;
}

/** The run page's URL read, and the ways to change it. */
export interface RunUrl {
  tab: Tab;
  /** The iteration shown alone, or null for the live run. */
  pinned: number | null;
  go: (next: RunPlace) => void;
  /** Goes to another page of the dashboard. */
  navigate: (to: string) => void;
}

/** The tab and pinned iteration of run `id`'s page, from the URL. */
export function useRunUrl(id: string): RunUrl {
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const tabParam = params.get('tab');
  const tab: Tab = (TABS as readonly string[]).includes(tabParam ?? '') ? (tabParam as Tab) : 'output';
  const iterationParam = Number(params.get('iteration'));
  const pinned = Number.isInteger(iterationParam) && iterationParam > 0 ? iterationParam : null;

  const go = (next: RunPlace) => {
    const q = new URLSearchParams(search);
    if (next.tab !== undefined) q.set('tab', next.tab);
    if (next.iteration === null) q.delete('iteration');
    else if (next.iteration !== undefined) q.set('iteration', String(next.iteration));
    navigate(`/runs/${encodeURIComponent(id)}?${q.toString()}`, { replace: next.tab === undefined });
  };
  return { tab, pinned, go, navigate };
}
