// Earlier iterations of a run's output, loaded on demand: the output view opens on the newest iteration and puts the
// ones before it in front as the user scrolls up to the top (or a search finds matches there), one iteration at a
// time from the server, so a long run opens as fast as a short one and still shows its whole output.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { OutputLog } from '../lib/output-log.js';
import { storedActivity } from './use-output-sync.js';

/** Where the loaded output starts, and how loading earlier iterations goes. */
export interface Earlier {
  /** The first iteration whose output is in the log (1: all of it). */
  first: number;
  loading: boolean;
  /** The log is full (its row limit): earlier iterations are not loaded. */
  capped: boolean;
  error: string | null;
  /** Loads earlier iterations down to `target`, or ('more') until one brings rows. */
  load: (target: number | 'more') => void;
}

/** Earlier iterations of `runId` before `from`, put in front of `log` on demand (never when `enabled` is false). */
export function useEarlier(log: OutputLog, runId: string, from: number, enabled: boolean): Earlier {
  const [state, setState] = useState({ first: enabled ? from : 1, loading: false, capped: false, error: null as string | null });
  const first = useRef(state.first);
  const busy = useRef(false);
  const capped = useRef(false);
  // A request made while loading (a search's target during a scroll's load) runs after it.
  const wanted = useRef<number | 'more' | null>(null);
  const again = useRef<(target: number | 'more') => void>(() => undefined);
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);

  const load = useCallback(
    (target: number | 'more') => {
      if (first.current <= 1 || capped.current || log.dropped > 0) return;
      if (busy.current) {
        wanted.current = typeof target === 'number' && typeof wanted.current === 'number' ? Math.min(target, wanted.current) : target;
        return;
      }
      busy.current = true;
      setState((s) => ({ ...s, loading: true }));
      const step = async (): Promise<{ capped: boolean }> => {
        while (alive.current && first.current > 1 && (target === 'more' || first.current > target)) {
          const n = first.current - 1;
          const { activity } = await storedActivity(runId, n);
          if (!alive.current) break;
          const added = log.prepend(activity);
          if (added === null) {
            capped.current = true;
            return { capped: true };
          }
          first.current = n;
          if (target === 'more' && added > 0) break;
        }
        return { capped: false };
      };
      step()
        .then((done) => alive.current && setState({ first: first.current, loading: false, capped: done.capped, error: null }))
        .catch((e: unknown) => alive.current && setState((s) => ({ ...s, first: first.current, loading: false, error: (e as Error).message })))
        .finally(() => {
          busy.current = false;
          const next = wanted.current;
          wanted.current = null;
          if (next !== null && alive.current) again.current(next);
        });
    },
    [log, runId],
  );
  useEffect(() => {
    again.current = load;
  }, [load]);
  return { ...state, load };
}
