// One run on the board: where and what, agent and model, iteration k/N, elapsed, cost against budget,
// the tool in use and the last line of output, a countdown while it waits for a usage limit.
import { memo } from 'react';
import { Link } from 'wouter';
import type { RunItem } from '../api/api-types.js';
import { COST_UNKNOWN_WHY, costText, countdown, elapsed, title, usd } from '../lib/format.js';
import { ACTIVE } from '../lib/run-reducer.js';
import { epoch, fraction, liveRuntime, runEnd, stateLabel } from '../lib/runtime.js';
import { useNow } from './clock.js';
import { useRunNow } from './live.js';

/** The last path segment of a workspace. */
export function baseName(path: string): string {
  return path.replace(/\/+$/, '').split('/').pop() || path;
}

function Meter({ value, label }: { value: number | null; label: string }) {
  if (value === null) return null;
  return <progress className="meter" value={value} max={1} aria-label={label} />;
}

function Elapsed({ run, fetchedAt }: { run: RunItem; fetchedAt: number }) {
  const now = useNow();
  return <span title="elapsed runtime">{elapsed(liveRuntime(run, fetchedAt, now))}</span>;
}

function Countdown({ until }: { until: number }) {
  const now = useNow();
  return (
    <div className="countdown" data-testid="countdown" title="the usage limit resets in">
      resets in {countdown(until, now)}
    </div>
  );
}

function NowLine({ runId }: { runId: string }) {
  const now = useRunNow(runId);
  if (!now) return null;
  return (
    <>
      {now.tool !== null && (
        <div className="card-tool" data-testid="card-tool">
          ⚙ {now.tool}
        </div>
      )}
      {now.lastLine !== '' && (
        <div className="card-line" data-testid="card-line">
          {now.lastLine}
        </div>
      )}
    </>
  );
}

/** A pause now (the agent's processes stopped mid-iteration) told apart from a pause between iterations. */
export function Frozen({ run }: { run: RunItem }) {
  if (run.status !== 'paused' || !run.suspended) return null;
  return (
    <div className="frozen" data-testid="frozen" title="paused now: the agent's processes are stopped in the middle of an iteration; resume continues that same iteration">
      ❄ agent frozen mid-iteration
    </div>
  );
}

/** Why the run ended, coloured by kind: a limit or an overspend never looks like a success. */
export function EndReason({ run }: { run: RunItem }) {
  const end = runEnd(run);
  if (end === null) return null;
  return (
    <div className={`end end-${end.tone}`} data-testid="end-reason" title={run.stop_reason ?? undefined}>
      {end.text}
    </div>
  );
}

/** A queued run's place in the queue (the server's; kept right as runs ahead of it start or leave). */
export function QueuePlace({ run }: { run: RunItem }) {
  if (run.status !== 'pending' || run.queue_position === null) return null;
  return (
    <div className="queue-place" data-testid="queue-place" title="runs start first in first out as slots free up (manager.max_concurrent)">
      #{run.queue_position} in queue
    </div>
  );
}

/** A run card. `selected` is the keyboard selection. */
export const RunCard = memo(function RunCard({ run, fetchedAt, selected }: { run: RunItem; fetchedAt: number; selected: boolean }) {
  const label = stateLabel(run);
  const active = ACTIVE.has(run.status);
  const ticking = run.status === 'running' || run.status === 'waiting';
  const until = epoch(run.waiting_until);
  return (
    <Link href={`/runs/${encodeURIComponent(run.id)}`} className={`card status-${run.status}${selected ? ' selected' : ''}`} data-testid="run-card" data-run-id={run.id} data-state={label} aria-current={selected ? 'true' : undefined}>
      <div className="card-head">
        <span className="card-workspace" title={run.workspace}>
          {baseName(run.workspace)}
        </span>
        <span className={`badge badge-${label}`}>{label}</span>
      </div>
      <div className="card-title" title={run.title ?? undefined}>
        {title(run.title ?? '') || run.id}
      </div>
      <div className="card-meta muted">
        {run.agent}
        {run.model ? ` · ${run.model}` : ''} · {run.id}
      </div>
      <div className="card-row">
        <span>
          iteration {run.iterations}
          {run.limits.max_iterations === null ? '' : `/${run.limits.max_iterations}`}
        </span>
        {ticking ? <Elapsed run={run} fetchedAt={fetchedAt} /> : <span title="runtime">{elapsed(run.runtime_ms)}</span>}
      </div>
      {run.status === 'waiting' && until !== null && <Countdown until={until} />}
      <Frozen run={run} />
      <QueuePlace run={run} />
      <Meter value={fraction(run.iterations, run.limits.max_iterations)} label="iterations used" />
      <div className="card-row">
        <span title={run.cost_unknown ? COST_UNKNOWN_WHY : 'cost so far'}>{costText(run.cost_usd, run.cost_unknown)}</span>
        <span className="muted">{run.limits.max_cost_usd === null ? 'no budget' : `of ${usd(run.limits.max_cost_usd)}`}</span>
      </div>
      <Meter value={fraction(run.cost_usd, run.limits.max_cost_usd)} label="budget used" />
      <EndReason run={run} />
      {active && <NowLine runId={run.id} />}
    </Link>
  );
});
