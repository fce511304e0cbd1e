// Scrolling of the output view: the virtualiser over the log's rows, following the end while output arrives, rows
// put in front kept out of the way of what the user looks at, and earlier iterations asked for near the top.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef, type UIEvent } from 'react';
import { onScroll, type FollowState } from '../lib/follow.js';
import type { OutputLog } from '../lib/output-log.js';
import type { Earlier } from './use-earlier.js';

/** Earlier output loads when the view is this close to its top (px). */
const NEAR_TOP = 300;

/** The list's scroller and virtualiser over `log` (at `version`), following while `follow` says so. */
export function useOutputScroll(log: OutputLog, version: number, follow: FollowState, setFollow: (update: (s: FollowState) => FollowState) => void, earlier: Earlier, synced: boolean) {
  const scroller = useRef<HTMLDivElement>(null);
  const programmatic = useRef(false);
  const items = log.items;
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    // A one-line row is exactly 18px (.row-line): most rows need no correction once measured.
    estimateSize: (index) => (items[index]?.kind === 'line' ? 18 : 44),
    overscan: 20,
    getItemKey: (index) => items[index]?.id ?? index,
  });
  const move = (how: (el: HTMLDivElement) => void) => {
    const el = scroller.current;
    if (!el) return;
    programmatic.current = true;
    how(el);
    requestAnimationFrame(() => {
      programmatic.current = false;
    });
  };

  useEffect(() => {
    if (follow.following && items.length > 0) move(() => virtualizer.scrollToIndex(items.length - 1, { align: 'end' }));
    // Scroll after every change while following (version), not on every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [version, follow.following]);

  // Rows put in front keep what the user looks at in place.
  const anchor = useRef<{ firstId: number | null; total: number }>({ firstId: null, total: 0 });
  useLayoutEffect(() => {
    const firstId = items[0]?.id ?? null;
    const total = virtualizer.getTotalSize();
    const before = anchor.current;
    if (before.firstId !== null && firstId !== null && firstId < before.firstId && !follow.following) move((el) => (el.scrollTop += total - before.total));
    anchor.current = { firstId, total };
  });

  // Near the top (or with less output than fills the view), the iteration before comes in.
  const { load, first, error } = earlier;
  useEffect(() => {
    const el = scroller.current;
    if (synced && error === null && el !== null && (el.scrollTop < NEAR_TOP || el.scrollHeight <= el.clientHeight + NEAR_TOP)) load('more');
  }, [synced, version, first, error, load]);

  const onScrolled = (e: UIEvent<HTMLDivElement>) => {
    if (programmatic.current) return;
    const el = e.currentTarget;
    setFollow((s) => onScroll(s, { scrollTop: el.scrollTop, scrollHeight: el.scrollHeight, clientHeight: el.clientHeight }));
    if (el.scrollTop < NEAR_TOP) load('more');
  };
  return { scroller, virtualizer, onScrolled };
}
