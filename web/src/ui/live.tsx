// Glue between the live connection and the views: events fold into TanStack Query's cached snapshots (the
// board's list, run details), activity into the cards' "right now" state and the open output views, the link
// state into the banner. A snapshot is brought up to what the feed has delivered before it is shown, and seeds
// the feed with its last seq.
import { useQuery, type QueryClient, type QueryKey } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import type { AgentActivity, ControlOutcome, RunDetail, RunItem } from '../api/api-types.js';
import { getBudget, getRun, getRunItem, getStats, listRuns } from '../api/client.js';
import { LiveConnection, liveUrl, type LinkState, type LiveActivity } from '../api/live.js';
import { notificationFor } from '../lib/notify.js';
import { toolSummary } from '../lib/output-log.js';
import { RunActivity, type RunNow } from '../lib/run-activity.js';
import { ACTIVE, foldIntoDetail, foldIntoList, QUEUE_MOVES } from '../lib/run-reducer.js';
import type { RunEvent } from '../api/api-types.js';
import { notificationsEnabled } from './notifications.js';

/** The board's list: the runs (newest first, up to MAX_BOARD_RUNS), how many there are, when each was fetched. */
export interface RunsData {
  runs: RunItem[];
  total: number;
  fetchedAt: number;
  /** Runs fetched again one by one since, and when (their elapsed times run on from there). */
  refetchedAt: Readonly<Record<string, number>>;
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
type Listeners<T> = Map<string, Set<T>>;

function listen<T>(map: Listeners<T>, key: string, listener: T): () => void {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0) map.delete(key);
  };
}

/** Everything live, shared by the app. */
export interface Live {
  connection: LiveConnection;
  activity: RunActivity;
  link: { get: () => LinkState; subscribe: (listener: () => void) => () => void };
  /** Whole pieces of live activity of one run (for its output view); returns the unsubscribe function. */
  onActivity: (runId: string, listener: ActivityListener) => () => void;
  /** Called each time the server confirms the full subscription of a run (first time and after each reconnect). */
  onSubscribed: (runId: string, listener: () => void) => () => void;
  queryClient: QueryClient;
}

const STATUS_EVENTS = new Set(['run_queued', 'run_started', 'paused', 'resumed', 'waiting', 'completed', 'stopped', 'failed', 'run_finished', 'cost_incurred']);

/** After status events the header's numbers are fetched again, and the open pages of queued runs their place in the queue (a run ahead of them moved on). */
function afterStatusEvents(queryClient: QueryClient, events: readonly RunEvent[]): void {
  if (events.some((e) => STATUS_EVENTS.has(e.type))) void queryClient.invalidateQueries({ queryKey: STATS_KEY });
  if (!events.some((e) => QUEUE_MOVES.has(e.type))) return;
  for (const [key, data] of queryClient.getQueriesData<DetailData>({ queryKey: ['run'] })) {
    if (data?.detail.run.queue_position != null) void queryClient.invalidateQueries({ queryKey: key });
  }
}

/**
 * Fetches runs of the board again one by one (a hole in their events, or a run the list does not have yet), brought
 * up to the feed and seeding it; returns the function that asks for some.
 */
function runRefresher(queryClient: QueryClient, connection: () => LiveConnection): (ids: Iterable<string>) => void {
  const toRefresh = new Set<string>();
  let refreshing = false;
  const refreshRuns = async (): Promise<void> => {
    if (refreshing) return;
    refreshing = true;
    try {
      while (toRefresh.size > 0) {
        const [id] = toRefresh;
        if (id === undefined) break;
        toRefresh.delete(id);
        try {
          let item = await getRunItem(id);
          item = foldIntoList([item], await connection().catchUp(id, item.last_seq), true).value[0] ?? item;
          queryClient.setQueryData<RunsData>(RUNS_KEY, (data) => {
            if (data === undefined) return data;
            const at = data.runs.findIndex((r) => r.id === id);
            const runs = at === -1 ? [item, ...data.runs] : data.runs.map((r, i) => (i === at ? item : r));
            return { ...data, runs, total: data.total + (at === -1 ? 1 : 0), refetchedAt: { ...data.refetchedAt, [id]: Date.now() } };
          });
          connection().seed(id, item.last_seq);
        } catch {
          // The run is gone or the server is: the next reconnect fetches the whole list again.
        }
      }
    } finally {
      refreshing = false;
    }
  };
  return (ids) => {
    for (const id of ids) toRefresh.add(id);
    if (toRefresh.size > 0) void refreshRuns();
  };
}

/** Folds a batch of events into the cached list and details; what they cannot be folded into is fetched again. */
function foldEvents(queryClient: QueryClient, events: RunEvent[], refresh: (ids: Iterable<string>) => void): void {
  let stale: Set<string> = new Set();
  queryClient.setQueryData<RunsData>(RUNS_KEY, (data) => {
    if (data === undefined) return data;
    const folded = foldIntoList(data.runs, events);
    stale = new Set([...folded.refetch, ...folded.unknown]);
    return { ...data, runs: folded.value };
  });
  refresh(stale);
  for (const id of new Set(events.map((e) => e.run_id))) {
    let detailStale = false;
    queryClient.setQueryData<DetailData>(runKey(id), (data) => {
      if (data === undefined) return data;
      const folded = foldIntoDetail(data.detail, events);
      detailStale = folded.refetch.size > 0;
      return folded.value === data.detail ? data : { ...data, detail: folded.value };
    });
    if (detailStale) void queryClient.invalidateQueries({ queryKey: runKey(id) });
  }
  afterStatusEvents(queryClient, events);
}

/** The browser's notifications for new events (when enabled): replayed history (after a reload or reconnect) is not news. */
function notifyEvents(queryClient: QueryClient, events: readonly RunEvent[], openedAt: number): void {
  if (!notificationsEnabled()) return;
  const runs = queryClient.getQueryData<RunsData>(RUNS_KEY)?.runs ?? [];
  for (const event of events) {
    if (event.time < openedAt) continue;
    const spec = notificationFor(event, runs.find((r) => r.id === event.run_id), Date.now());
    if (spec) new Notification(spec.title, { body: spec.body, tag: spec.tag });
  }
}

/** Hands the whole pieces of a batch of activity to the listeners of their run (the open output views). */
function deliverActivity(batch: readonly LiveActivity[], listeners: Listeners<ActivityListener>): void {
  const byRun = new Map<string, AgentActivity[]>();
  for (const { run_id, activity: piece, summary } of batch) {
    if (summary || !listeners.has(run_id)) continue;
    const list = byRun.get(run_id) ?? [];
    list.push(piece);
    byRun.set(run_id, list);
  }
  for (const [id, list] of byRun) for (const listener of listeners.get(id) ?? []) listener(list);
}

/** The app's live link: the connection, its events folded into the query cache, its activity and link state handed out. */
function createLive(queryClient: QueryClient, openedAt: number): Live {
  let linkState: LinkState = { kind: 'connecting', attempt: 0 };
  const linkListeners = new Set<() => void>();
  const activityListeners: Listeners<ActivityListener> = new Map();
  const subscribedListeners: Listeners<() => void> = new Map();
  const activity = new RunActivity((name, input) => `${name} ${toolSummary(input, 60)}`.trim());
  // The refresher uses the connection only once it exists (it answers the connection's messages).
  const refresh = runRefresher(queryClient, () => connection);
  const connection = new LiveConnection(liveUrl(window.location), {
    events(events) {
      foldEvents(queryClient, events, refresh);
      for (const event of events) if (event.type === 'run_finished') activity.forget(event.run_id);
      notifyEvents(queryClient, events, openedAt);
    },
    activity(batch) {
      activity.apply(batch);
      deliverActivity(batch, activityListeners);
    },
    unknownRun(runId) {
      if (queryClient.getQueryData<RunsData>(RUNS_KEY) !== undefined) refresh([runId]);
    },
    subscribed(runs) {
      if (runs === '*') return;
      for (const id of runs) for (const listener of subscribedListeners.get(id) ?? []) listener();
    },
    opened(reconnected) {
      if (reconnected) void queryClient.invalidateQueries();
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
    onActivity: (runId, listener) => listen(activityListeners, runId, listener),
    onSubscribed: (runId, listener) => listen(subscribedListeners, runId, listener),
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
      const runs = await Promise.all(
        list.runs.map(async (run) => {
          const missed = await live.connection.catchUp(run.id, run.last_seq);
          return missed.length === 0 ? run : (foldIntoList([run], missed, true).value[0] ?? run);
        }),
      );
      for (const run of runs) live.connection.seed(run.id, run.last_seq);
      return { runs, total: list.total, fetchedAt: Date.now(), refetchedAt: {} };
    },
  });
}

/** The query of one run's detail. */
function runQuery(live: Live, id: string) {
  return {
    queryKey: runKey(id),
    queryFn: async (): Promise<DetailData> => {
      const fetched = await getRun(id);
      const detail = foldIntoDetail(fetched, await live.connection.catchUp(id, fetched.run.last_seq), true).value;
      live.connection.seed(id, detail.run.last_seq);
      return { detail, fetchedAt: Date.now() };
    },
  };
}

/** One run's detail (the run page), kept live. */
export function useRun(id: string) {
  const live = useLive();
  return useQuery({
    ...runQuery(live, id),
    // A queued run's place moves when runs ahead of it start or leave: events of runs this page does not follow
    // do not reach it, so it asks again while the run waits in the queue.
    refetchInterval: (query) => (query.state.data?.detail.run.queue_position == null ? false : QUEUE_POLL_MS),
  });
}

/** Starts fetching a run's detail while its page's code (loaded on demand) is still on its way: the two load side by side. */
export function usePrefetchRun(id: string | null): void {
  const live = useLive();
  useEffect(() => {
    if (id !== null) void live.queryClient.prefetchQuery(runQuery(live, id));
  }, [live, id]);
}

/** How often the page of a queued run asks for its place in the queue. */
const QUEUE_POLL_MS = 2000;

/** The newest iteration of a run as its cached detail knows it, read when called (not on render). */
export function useLatestIteration(id: string): () => number {
  const { queryClient } = useLive();
  return useCallback(() => queryClient.getQueryData<DetailData>(runKey(id))?.detail.run.last_iteration ?? 0, [queryClient, id]);
}

/**
 * Shows a control's answer at once: a run still active takes the transition the server reports (pausing,
 * stopping) until its events say it paused or stopped. An answer that arrives after those events changes nothing.
 */
export function useApplyOutcome(): (outcome: ControlOutcome) => void {
  const { queryClient } = useLive();
  return useCallback(
    (outcome: ControlOutcome) => {
      if (outcome.transition === null || !ACTIVE.has(outcome.status)) return;
      const patch = <R extends RunItem>(run: R): R => {
        if (!ACTIVE.has(run.status) || run.transition === 'stopping' || (outcome.transition === 'pausing' && run.status === 'paused')) return run;
        return { ...run, transition: outcome.transition };
      };
      queryClient.setQueryData<RunsData>(RUNS_KEY, (data) => (data === undefined ? data : { ...data, runs: data.runs.map((r) => (r.id === outcome.id ? patch(r) : r)) }));
      queryClient.setQueryData<DetailData>(runKey(outcome.id), (data) => (data === undefined ? data : { ...data, detail: { ...data.detail, run: patch(data.detail.run) } }));
    },
    [queryClient],
  );
}

/** Manager stats (capacity, spend); refreshed on status events and every few seconds. */
export function useStats() {
  return useQuery({ queryKey: STATS_KEY, queryFn: getStats, refetchInterval: 5000 });
}

/** GET /api/budget, refreshed every 5 s. */
export function useBudget() {
  return useQuery({ queryKey: ['budget'], queryFn: getBudget, refetchInterval: 5000 });
}
