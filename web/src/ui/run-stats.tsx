// The run page's numbers: iterations, cost, runtime and tokens against their limits with a countdown and why the
// run ended, and the same on one line for the phone's folded details.
import type { RunDetail } from '../api/api-types.js';
import { COST_UNKNOWN_WHY, costText, countdown, elapsed, usd } from '../lib/format.js';
import { epoch, fraction } from '../lib/runtime.js';
import { EndReason, Frozen, QueuePlace } from './run-card.js';

/** The run's numbers: iterations, cost, runtime and tokens against their limits, a countdown, why it ended. */
export function RunStats({ run: r, runtime, now }: { run: RunDetail['run']; runtime: number; now: number }) {
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

/** The run's numbers on one line (the phone's folded details). */
export function RunSummary({ run: r, runtime }: { run: RunDetail['run']; runtime: number }) {
  const max = r.limits.max_iterations;
  return (
    <span data-testid="run-summary">
      iteration {r.iterations}
      {max === null ? '' : `/${max}`} · {costText(r.cost_usd, r.cost_unknown)} · {elapsed(runtime)}
    </span>
  );
}
