// Glue between the live connection and the views: events fold into TanStack Query's cached snapshots
// (list, details), activity into the cards' "right now" state and the open output views, state into the
// banner. Snapshots seed the event feed with their last seq.
import { useQuery, type QueryClient, type QueryKey } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import type { AgentActivity, RunDetail, RunSummary } from '../api/api-types.js';
import { getRun, getStats, listRuns } from '../api/client.js';
import { LiveConnection, liveUrl, type LinkState } from '../api/live.js';
import { notificationFor } from '../lib/notify.js';
import { toolSummary } from '../lib/output-log.js';
import { RunActivity, type RunNow } from '../lib/run-activity.js';
import { foldIntoDetail, foldIntoList, type FeedEvent } from '../lib/run-reducer.js';
import { notificationsEnabled } from './notifications.js';

/** The board's list with the time it was fetched (elapsed times run on from there). */
export interface RunsData {
  runs: RunSummary[];
  fetchedAt: number;
}

/** One run's detail with the time it was fetched. */
export interface DetailData {
  detail: RunDetail;
  fetchedAt: number;
}

const RUNS_KEY: QueryKey = ['runs'];
const STATS_KEY: QueryKey = ['stats'];
const runKey = (id: string): QueryKey => ['run', id];

type ActivityListener = (batch: AgentActivity[]) => void;

/** Everything live, shared by the app. */
export interface Live {
  connection: LiveConnection;
  activity: RunActivity;
  link: { get: () => LinkState; subscribe: (listener: () => void) => () => void };
  /** Live activity of one run (for its output view); returns the unsubscribe function. */
  onActivity: (runId: string, listener: ActivityListener) => () => void;
  queryClient: QueryClient;
}

const STATUS_EVENTS = new Set(['run_started', 'paused', 'resumed', 'waiting', 'completed', 'stopped', 'failed', 'run_finished', 'cost_incurred']);

function createLive(queryClient: QueryClient, openedAt: number): Live {
  let linkState: LinkState = { kind: 'connecting', attempt: 0 };
  const linkListeners = new Set<() => void>();
  const activityListeners = new Map<string, Set<ActivityListener>>();
  const activity = new RunActivity((name, input) => `${name} ${toolSummary(input, 60)}`.trim());

  const applyEvents = (events: FeedEvent[]): void => {
    let listStale = false;
    queryClient.setQueryData<RunsData>(RUNS_KEY, (data) => {
      if (data === undefined) return data;
      const folded = foldIntoList(data.runs, events);
      listStale = folded.stale;
      return { ...data, runs: folded.runs };
    });
    if (listStale) void queryClient.invalidateQueries({ queryKey: RUNS_KEY });
    for (const id of new Set(events.map((e) => e.run_id))) {
      let detailStale = false;
      queryClient.setQueryData<DetailData>(runKey(id), (data) => {
        if (data === undefined) return data;
        const folded = foldIntoDetail(data.detail, events);
        detailStale = folded.stale;
        return folded.detail === data.detail ? data : { ...data, detail: folded.detail };
      });
      if (detailStale) void queryClient.invalidateQueries({ queryKey: runKey(id) });
    }
    if (events.some((e) => STATUS_EVENTS.has(e.type))) void queryClient.invalidateQueries({ queryKey: STATS_KEY });
    for (const event of events) {
      if (event.type === 'completed' || event.type === 'stopped' || event.type === 'failed') activity.forget(event.run_id);
    }
    if (notificationsEnabled()) {
      const runs = queryClient.getQueryData<RunsData>(RUNS_KEY)?.runs ?? [];
      for (const event of events) {
        // Replayed history (after a reload or reconnect) is not news.
        if (event.time < openedAt) continue;
        const spec = notificationFor(event, runs.find((r) => r.id === event.run_id), Date.now());
        if (spec) new Notification(spec.title, { body: spec.body, tag: spec.tag });
      }
    }
  };

  const connection = new LiveConnection(liveUrl(window.location), {
    events: applyEvents,
    activity(batch) {
      activity.apply(batch);
      const byRun = new Map<string, AgentActivity[]>();
      for (const { run_id, activity: a } of batch) {
        if (!activityListeners.has(run_id)) continue;
        const list = byRun.get(run_id) ?? [];
        list.push(a);
        byRun.set(run_id, list);
      }
      for (const [id, list] of byRun) for (const listener of activityListeners.get(id) ?? []) listener(list);
    },
    unknownRun() {
      void queryClient.invalidateQueries({ queryKey: RUNS_KEY });
    },
    opened() {
      void queryClient.invalidateQueries();
    },
    state(state) {
      linkState = state;
      for (const listener of linkListeners) listener();
    },
  });

  return {
    connection,
    activity,
    queryClient,
    link: {
      get: () => linkState,
      subscribe(listener) {
        linkListeners.add(listener);
        return () => linkListeners.delete(listener);
      },
    },
    onActivity(runId, listener) {
      let set = activityListeners.get(runId);
      if (!set) {
        set = new Set();
        activityListeners.set(runId, set);
      }
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) activityListeners.delete(runId);
      };
    },
  };
}

const LiveContext = createContext<Live | null>(null);

/** Provides the live connection to the app (opened on mount, closed on unmount). */
export function LiveProvider({ queryClient, children }: { queryClient: QueryClient; children: ReactNode }) {
  const [live] = useState(() => createLive(queryClient, Date.now()));
  useEffect(() => {
    live.connection.start();
    const online = () => live.connection.retryNow();
    window.addEventListener('online', online);
    return () => {
      window.removeEventListener('online', online);
      live.connection.stop();
    };
  }, [live]);
  return <LiveContext.Provider value={live}>{children}</LiveContext.Provider>;
}

/** The app's live link. */
export function useLive(): Live {
  const live = useContext(LiveContext);
  if (live === null) throw new Error('useLive outside LiveProvider');
  return live;
}

/** The connection state, for the banner. */
export function useLinkState(): LinkState {
  const { link } = useLive();
  return useSyncExternalStore(link.subscribe, link.get);
}

/** What one run's agent is doing right now. */
export function useRunNow(runId: string): RunNow | undefined {
  const { activity } = useLive();
  return useSyncExternalStore(
    (listener) => activity.subscribe(runId, listener),
    () => activity.get(runId),
  );
}

/** Every run (the board), kept live. */
export function useRuns() {
  const live = useLive();
  return useQuery({
    queryKey: RUNS_KEY,
    queryFn: async (): Promise<RunsData> => {
      const list = await listRuns();
      for (const run of list.runs) live.connection.seed(run.id, run.last_seq);
      return { runs: list.runs, fetchedAt: Date.now() };
    },
  });
}

/** One run's detail (the run page), kept live. */
export function useRun(id: string) {
  const live = useLive();
  return useQuery({
    queryKey: runKey(id),
    queryFn: async (): Promise<DetailData> => {
      const detail = await getRun(id);
      live.connection.seed(id, detail.run.last_seq);
      return { detail, fetchedAt: Date.now() };
    },
  });
}

/** Manager stats (capacity, spend); refreshed on status events and every few seconds. */
export function useStats() {
  return useQuery({ queryKey: STATS_KEY, queryFn: getStats, refetchInterval: 5000 });
}
