// One run: its state and totals, controls, and tabs for the live output, the iterations, the cost chart,
// the checkpoints and (for task loops and workflows) the units. The tab and the iteration shown are in the URL.
import { useRef, useState, type ReactNode } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import type { RunDetail } from '../api/api-types.js';
import { COST_UNKNOWN_WHY, costText, countdown, elapsed, title, usd } from '../lib/format.js';
import { ACTIVE } from '../lib/run-reducer.js';
import { epoch, fraction, liveRuntime, stateLabel } from '../lib/runtime.js';
import { Checkpoints } from './checkpoints.js';
import { useNow } from './clock.js';
import { CostChart } from './cost-chart.js';
import { VerifyStrip } from './verify-strip.js';
import { IterationsTable } from './iterations-table.js';
import { useLatestIteration, useRun } from './live.js';
import { OutputView, type OutputHandle } from './output-view.js';
import { RunControls } from './run-controls.js';
import { NoteBox } from './note-box.js';
import { Units } from './units.js';
import { EndReason, Frozen, QueuePlace } from './run-card.js';
import { PHONE_QUERY, useMedia } from './use-media.js';
import { useShortcuts } from './use-shortcuts.js';

const TABS = ['output', 'iterations', 'cost', 'checkpoints', 'units'] as const;
type Tab = (typeof TABS)[number];

/** What went wrong, on a failed run's page: the last error an iteration recorded (not only in the iterations tab). */
function RunError({ detail }: { detail: RunDetail }) {
  if (detail.run.status !== 'failed') return null;
  const last = [...detail.iterations].reverse().find((it) => it.error_kind !== null && it.error_kind !== 'none');
  if (!last) return null;
  return (
    <p className="error run-error" role="alert" data-testid="run-error">
      Iteration {last.number} failed ({last.error_kind}){last.error_message && last.error_message !== last.error_kind ? `: ${last.error_message}` : ''}
    </p>
  );
}

/** The run's numbers: iterations, cost, runtime and tokens against their limits, a countdown, why it ended. */
function RunStats({ run: r, runtime, now }: { run: RunDetail['run']; runtime: number; now: number }) {
  const { limits } = r;
  const until = epoch(r.waiting_until);
  return (
    <div className="run-stats" data-testid="run-stats">
      <div>
        <span className="muted">iterations</span> {r.iterations}
        {limits.max_iterations === null ? '' : ` / ${limits.max_iterations}`}
        {fraction(r.iterations, limits.max_iterations) !== null && <progress className="meter" value={fraction(r.iterations, limits.max_iterations) ?? 0} max={1} />}
      </div>
      <div>
        <span className="muted">cost</span> <span title={r.cost_unknown ? COST_UNKNOWN_WHY : undefined}>{costText(r.cost_usd, r.cost_unknown)}</span>
        {limits.max_cost_usd === null ? '' : ` / ${usd(limits.max_cost_usd)}`}
        {fraction(r.cost_usd, limits.max_cost_usd) !== null && <progress className="meter" value={fraction(r.cost_usd, limits.max_cost_usd) ?? 0} max={1} />}
      </div>
      <div>
        <span className="muted">runtime</span> {elapsed(runtime)}
        {limits.max_runtime_ms === null ? '' : ` / ${elapsed(limits.max_runtime_ms)}`}
      </div>
      <div>
        <span className="muted">tokens</span> {r.tokens_in.toLocaleString('en-US')} in / {r.tokens_out.toLocaleString('en-US')} out
      </div>
      {r.status === 'waiting' && until !== null && (
        <div className="countdown" data-testid="countdown">
          usage limit resets in {countdown(until, now)}
        </div>
      )}
      <EndReason run={r} />
      <Frozen run={r} />
      <QueuePlace run={r} />
    </div>
  );
}

/** Text whose words never break inside (a word longer than 40 characters still may, rather than overflow). */
function Words({ text }: { text: string }) {
  return (
    <>
      {text.split(/(\s+)/).map((part, i) => (part.trim() === '' || part.length > 40 ? part : <span key={i} className="nobreak">{part}</span>))}
    </>
  );
}

/** The run's numbers on one line (the phone's folded details). */
function RunSummary({ run: r, runtime }: { run: RunDetail['run']; runtime: number }) {
  const max = r.limits.max_iterations;
  return (
    <span data-testid="run-summary">
      iteration {r.iterations}
      {max === null ? '' : `/${max}`} · {costText(r.cost_usd, r.cost_unknown)} · {elapsed(runtime)}
    </span>
  );
}

/** On a phone, what it holds folds under a one-line summary (the output gets the screen); elsewhere it is shown as is. */
function Collapsible({ phone, summary, children }: { phone: boolean; summary: ReactNode; children: ReactNode }) {
  if (!phone) return <>{children}</>;
  return (
    <details className="run-more" data-testid="run-more">
      <summary>{summary}</summary>
      {children}
    </details>
  );
}

/** The run page (`/runs/:id`). */
// eslint-disable-next-line max-lines-per-function -- too long today; to be split by concern (docs/architecture.md "Layers and size")
export default function RunPage({ id, theme, toggleTheme, showHelp }: { id: string; theme: string; toggleTheme: () => void; showHelp: () => void }) {
  const run = useRun(id);
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const tabParam = params.get('tab');
  const tab: Tab = (TABS as readonly string[]).includes(tabParam ?? '') ? (tabParam as Tab) : 'output';
  const iterationParam = Number(params.get('iteration'));
  const pinned = Number.isInteger(iterationParam) && iterationParam > 0 ? iterationParam : null;
  const output = useRef<OutputHandle>(null);
  const latest = useLatestIteration(id);
  const now = useNow();
  const phone = useMedia(PHONE_QUERY);
  // Live mode starts at the iteration current when the page opened and follows the run from there.
  const [liveFrom, setLiveFrom] = useState<number | null>(null);
  const detail = run.data?.detail;
  if (detail && liveFrom === null) setLiveFrom(Math.max(1, detail.run.last_iteration));
  // Every time the run comes back to life (resumed after a stop, iterations added after its end) the output view
  // is made anew so that it listens again: a view opened on a finished run loaded its rows once and listens to nothing.
  const [lives, setLives] = useState<{ active: boolean; count: number }>({ active: false, count: 0 });
  const nowActive = detail !== undefined && ACTIVE.has(detail.run.status);
  if (detail && nowActive !== lives.active) setLives({ active: nowActive, count: lives.count + (nowActive ? 1 : 0) });

  const go = (next: { tab?: Tab; iteration?: number | null }) => {
    const q = new URLSearchParams(search);
    if (next.tab !== undefined) q.set('tab', next.tab);
    if (next.iteration === null) q.delete('iteration');
    else if (next.iteration !== undefined) q.set('iteration', String(next.iteration));
    navigate(`/runs/${encodeURIComponent(id)}?${q.toString()}`, { replace: next.tab === undefined });
  };

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
  const live = active && pinned === null;
  const shownIteration = pinned ?? liveFrom ?? 1;
  const tabs = TABS.filter((t) => t !== 'units' || detail.units.length > 0);

  return (
    <div className={`run-page tab-${tab}`} data-testid="run-page" data-run-id={r.id} data-state={label}>
      <div className="run-head">
        <div className="run-title">
          <Link href="/" className="muted">
            ← board
          </Link>
          <h1 title={r.title ?? undefined} data-testid="run-title">
            <Words text={title(r.title ?? '', 120) || r.id} />
          </h1>
        </div>
        <span className={`badge big badge-${label}`} data-testid="run-state">
          {label}
        </span>
      </div>
      {run.isError && (
        <p className="stale" role="status" data-testid="stale" title={run.error.message}>
          Not current: the server cannot be reached ({run.error.message}); this is what it last said.
        </p>
      )}
      <Collapsible phone={phone} summary={<RunSummary run={r} runtime={runtime} />}>
        {phone && r.title !== null && <p className="run-full-title">{r.title}</p>}
        <div className="muted run-meta">
          <code>{r.id}</code> · {r.workspace}
          {r.worktree ? ` (worktree ${r.branch ?? r.worktree})` : ''} · {r.agent}
          {r.model ? ` · ${r.model}` : ''}
        </div>
        <RunStats run={r} runtime={runtime} now={now} />
        <RunControls run={r} />
        <NoteBox run={r} />
      </Collapsible>
      <RunError detail={detail} />
      <nav className="tabs" role="tablist">
        {tabs.map((t) => (
          <button key={t} type="button" role="tab" aria-selected={tab === t} onClick={() => go({ tab: t })}>
            {t === 'units' ? (r.kind === 'workflow' ? 'steps' : 'tasks') : t}
          </button>
        ))}
      </nav>
      <div className="tab-body">
        {tab === 'output' && (
          <>
            {pinned !== null && (
              <p className="muted">
                Iteration {pinned} only.{' '}
                <button type="button" className="link" onClick={() => go({ iteration: null })}>
                  {active ? 'Follow the live run (f)' : 'Show the last iteration'}
                </button>
              </p>
            )}
            <OutputView
              key={`${r.id}:${pinned ?? 'live'}:${shownIteration}:${lives.count}`}
              runId={r.id}
              iteration={shownIteration}
              only={pinned !== null}
              live={live || (pinned !== null && active && pinned === r.last_iteration)}
              latest={latest}
              iterations={detail.iterations}
              handle={output}
            />
          </>
        )}
        {tab === 'iterations' && <IterationsTable runId={r.id} iterations={detail.iterations} checkpoints={detail.checkpoints} onOpen={(n) => go({ tab: 'output', iteration: n })} />}
        {tab === 'cost' && (
          <>
            <CostChart detail={detail} runtimeMs={Math.floor(runtime / 60_000) * 60_000} theme={theme} />
            <VerifyStrip iterations={detail.iterations} />
          </>
        )}
        {tab === 'checkpoints' && <Checkpoints runId={r.id} workspace={r.worktree ?? r.workspace} checkpoints={detail.checkpoints} active={r.status === 'running' || r.status === 'waiting' || r.status === 'pending'} />}
        {tab === 'units' && <Units units={detail.units} kind={r.kind} />}
      </div>
    </div>
  );
}
