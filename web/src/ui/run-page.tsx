// One run: its state and totals, controls, and tabs for the live output, the iterations, the cost chart,
// the checkpoints and (for task loops and workflows) the units. The tab and the iteration shown are in the URL.
// The parts are in run-head.tsx (title, details, numbers, controls), run-tabs.tsx (the tabs), use-run-url.ts (the
// URL) and use-live-view.ts (where the live output starts).
import { useRef } from 'react';
import { Link } from 'wouter';
import { ACTIVE } from '../lib/run-reducer.js';
import { liveRuntime, stateLabel } from '../lib/runtime.js';
import { useNow } from './clock.js';
import { useLatestIteration, useRun } from './live.js';
import type { OutputHandle } from './output-view.js';
import { RunDetails, RunError, RunTitle, Stale } from './run-head.js';
import { RunTabs, TabBody } from './run-tabs.js';
import { PHONE_QUERY, useMedia } from './use-media.js';
import { useLiveView } from './use-live-view.js';
import { TABS, useRunUrl } from './use-run-url.js';
import { useShortcuts } from './use-shortcuts.js';

/** The run page (`/runs/:id`). */
export default function RunPage({ id, theme, toggleTheme, showHelp }: { id: string; theme: string; toggleTheme: () => void; showHelp: () => void }) {
  const run = useRun(id);
  const { tab, pinned, go, navigate } = useRunUrl(id);
  const output = useRef<OutputHandle>(null);
  const latest = useLatestIteration(id);
  const now = useNow();
  const phone = useMedia(PHONE_QUERY);
  const detail = run.data?.detail;
  const { liveFrom, lives } = useLiveView(detail);

  useShortcuts('run', {
    back: () => navigate('/'),
    follow: () => {
      if (pinned !== null) go({ iteration: null });
      output.current?.jumpToEnd();
    },
    search: () => {
      if (tab !== 'output') go({ tab: 'output' });
      output.current?.focusSearch();
    },
    theme: toggleTheme,
    help: showHelp,
  });

  // Only a run never loaded is an error page: once shown, a failed refresh (the server stopped or unreachable)
  // keeps what was shown, marked as not current, until the connection is back and it catches up.
  if (run.isError && !detail) {
    return (
      <div className="pad">
        <p className="error" role="alert">
          Cannot load run {id}: {run.error.message}
        </p>
        <Link href="/">Back to the board</Link>
      </div>
    );
  }
  if (!detail || !run.data) return <p className="muted pad">Loading run {id}…</p>;
  const r = detail.run;
  const label = stateLabel(r);
  const active = ACTIVE.has(r.status);
  const runtime = liveRuntime(r, run.data.fetchedAt, now);
  const shownIteration = pinned ?? liveFrom ?? 1;
  const tabs = TABS.filter((t) => t !== 'units' || detail.units.length > 0);

  return (
    <div className={`run-page tab-${tab}`} data-testid="run-page" data-run-id={r.id} data-state={label}>
      <RunTitle run={r} label={label} />
      <Stale error={run.isError ? run.error : null} />
      <RunDetails run={r} runtime={runtime} now={now} phone={phone} />
      <RunError detail={detail} />
      <RunTabs tabs={tabs} tab={tab} kind={r.kind} go={go} />
      <TabBody tab={tab} runtime={runtime} theme={theme} detail={detail} pinned={pinned} active={active} shownIteration={shownIteration} lives={lives} latest={latest} output={output} go={go} />
    </div>
  );
}
