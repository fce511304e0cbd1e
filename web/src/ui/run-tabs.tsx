// The run page's tabs: the tab bar, and the body of the tab shown: the output (all from the live iteration on, or
// one pinned iteration), the iterations table, the cost chart with the verify strip, the checkpoints, the units.
import type { Ref } from 'react';
import type { RunDetail } from '../api/api-types.js';
import { Checkpoints } from './checkpoints.js';
import { CostChart } from './cost-chart.js';
import { IterationsTable } from './iterations-table.js';
import { OutputView, type OutputHandle } from './output-view.js';
import { Units } from './units.js';
import type { RunPlace, Tab } from './use-run-url.js';
import { VerifyStrip } from './verify-strip.js';

/** The tab bar; `units` is named after what the run has (a workflow's steps, else tasks). */
export function RunTabs({ tabs, tab, kind, go }: { tabs: readonly Tab[]; tab: Tab; kind: RunDetail['run']['kind']; go: (next: RunPlace) => void }) {
  return (
    <nav className="tabs" role="tablist">
      {tabs.map((t) => (
        <button key={t} type="button" role="tab" aria-selected={tab === t} onClick={() => go({ tab: t })}>
          {t === 'units' ? (kind === 'workflow' ? 'steps' : 'tasks') : t}
        </button>
      ))}
    </nav>
  );
}

/** What the output tab shows and how it follows the run. */
export interface OutputTabProps {
  detail: RunDetail;
  /** The iteration shown alone, or null for the live run. */
  pinned: number | null;
  /** The run is active (running, waiting, paused...). */
  active: boolean;
  /** The first iteration shown (the pinned one, or where live mode started). */
  shownIteration: number;
  /** The run's lives on this page: a new one makes the view anew. */
  lives: number;
  latest: () => number;
  output: Ref<OutputHandle>;
  go: (next: RunPlace) => void;
}

/** The output tab: a pinned iteration's note with the way back to the whole run, and the output view. */
function OutputTab({ detail, pinned, active, shownIteration, lives, latest, output, go }: OutputTabProps) {
  const r = detail.run;
  const live = active && pinned === null;
  return (
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
        key={`${r.id}:${pinned ?? 'live'}:${shownIteration}:${lives}`}
        runId={r.id}
        iteration={shownIteration}
        only={pinned !== null}
        live={live || (pinned !== null && active && pinned === r.last_iteration)}
        latest={latest}
        iterations={detail.iterations}
        handle={output}
      />
    </>
  );
}

/** The body of tab `tab`. */
export function TabBody({ tab, runtime, theme, ...props }: OutputTabProps & { tab: Tab; runtime: number; theme: string }) {
  const { detail, go } = props;
  const r = detail.run;
  return (
    <div className="tab-body">
      {tab === 'output' && <OutputTab {...props} />}
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
  );
}
