// The run page's live output view: the iteration it starts at, and how many times the run came back to life (the
// view's key, so that a run resumed or extended after its end gets a view that listens again).
import { useState } from 'react';
import type { RunDetail } from '../api/api-types.js';
import { ACTIVE } from '../lib/run-reducer.js';

/** Where the live view starts and its generation. */
export interface LiveView {
  /** The iteration current when the page first had the run (null until then). */
  liveFrom: number | null;
  /** How many times the run turned active while the page was open. */
  lives: number;
}

/** The live view of the run whose detail is `detail` (undefined while it loads). */
export function useLiveView(detail: RunDetail | undefined): LiveView {
  // Live mode starts at the iteration current when the page opened and follows the run from there.
  const [liveFrom, setLiveFrom] = useState<number | null>(null);
  if (detail && liveFrom === null) setLiveFrom(Math.max(1, detail.run.last_iteration));
  // Every time the run comes back to life (resumed after a stop, iterations added after its end) the output view
  // is made anew so that it listens again: a view opened on a finished run loaded its rows once and listens to nothing.
  const [lives, setLives] = useState<{ active: boolean; count: number }>({ active: false, count: 0 });
  const nowActive = detail !== undefined && ACTIVE.has(detail.run.status);
  if (detail && nowActive !== lives.active) setLives({ active: nowActive, count: lives.count + (nowActive ? 1 : 0) });
  return { liveFrom, lives: lives.count };
}
