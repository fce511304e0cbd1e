// Cost per iteration (bars), cumulative cost against the budget line, and the projected path to the end
// of the run at its current pace (dashed), drawn with uPlot on ONE dollar axis (bars read against a second axis
// were read against the first one's grid); the same numbers in words below it. An agent that reports no cost
// gets words, not a flat line.
import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { RunDetail } from '../api/api-types.js';
import { chartColumns, projectCost, type CostChart as Chart } from '../lib/cost-projection.js';
import { COST_UNKNOWN_WHY, costText, elapsed, usd } from '../lib/format.js';
import { ACTIVE } from '../lib/run-reducer.js';

const REASON: Record<string, string> = {
  max_iterations: 'its iteration limit',
  max_cost: 'its budget',
  max_runtime: 'its runtime limit',
};

/** Iterations that did no normal work (a wait, one the shared budget cut short, an interruption): left out of the pace. */
function waited(kind: string | null): boolean {
  return kind === 'usage_limit' || kind === 'rate_limit' || kind === 'overloaded' || kind === 'budget' || kind === 'interrupted';
}

function css(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

function Plot({ chart, theme }: { chart: Chart; theme: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const columns = useMemo(() => chartColumns(chart), [chart]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const text = css('--text');
    const grid = css('--border');
    const money = (_: uPlot, values: number[]) => values.map((v) => `$${Number.isInteger(v) ? v : v.toFixed(v < 0.1 ? 3 : 2)}`);
    const bars = uPlot.paths.bars?.({ size: [0.6, 40] });
    const last = columns.x.at(-1) ?? 1;
    const options: uPlot.Options = {
      width: Math.max(280, el.clientWidth),
      height: 260,
      scales: {
        x: { time: false, range: () => [0.5, last + 0.5] },
        // Every series in dollars on the one axis: a bar reaches the grid line of its own value.
        usd: { auto: true, range: (_u, min, max) => [0, Math.max(max, min, 0.01) * 1.1] },
      },
      axes: [
        { stroke: text, grid: { stroke: grid, width: 1 }, label: 'iteration', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] },
        { scale: 'usd', stroke: text, grid: { stroke: grid, width: 1 }, values: money, size: 64, label: 'cost' },
      ],
      series: [
        { label: 'iteration' },
        { label: 'per iteration', scale: 'usd', stroke: css('--accent'), fill: css('--accent-soft'), paths: bars, points: { show: false } },
        { label: 'cumulative', scale: 'usd', stroke: css('--ok'), width: 2 },
        { label: 'budget', scale: 'usd', stroke: css('--danger'), dash: [6, 4], width: 1.5, points: { show: false } },
        { label: 'projected', scale: 'usd', stroke: css('--ok'), dash: [3, 5], width: 2, spanGaps: true, points: { show: false } },
      ],
      // The legend names the series; values show while the pointer is on the chart (never '--' before that).
      legend: { show: true, live: false },
    };
    const instance = new uPlot(options, [columns.x, columns.cost, columns.cumulative, columns.budget, columns.projected], el);
    plot.current = instance;
    const resize = new ResizeObserver(() => instance.setSize({ width: Math.max(280, el.clientWidth), height: 260 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      instance.destroy();
      plot.current = null;
    };
  }, [columns, theme]);

  return <div ref={box} className="chart" data-testid="cost-chart" />;
}

/** The cost tab: chart and projection. */
export function CostChart({ detail, runtimeMs, theme }: { detail: RunDetail; runtimeMs: number; theme: string }) {
  const { run, iterations } = detail;
  const chart = useMemo(
    () =>
      projectCost(
        iterations.map((it) => ({ number: it.number, cost_usd: it.cost_usd, duration_ms: it.duration_ms, running: it.status === 'running', waited: waited(it.error_kind) })),
        { max_cost_usd: run.limits.max_cost_usd, max_iterations: run.limits.max_iterations, max_runtime_ms: run.limits.max_runtime_ms, runtime_ms: runtimeMs },
      ),
    [iterations, run.limits, runtimeMs],
  );
  const p = chart.projection;
  const active = ACTIVE.has(run.status);
  return (
    <div className="cost">
      {chart.costUnknown ? (
        <p className="muted pad" data-testid="cost-unknown" title={COST_UNKNOWN_WHY}>
          Cost unknown: {run.agent} reports no cost for its iterations, so there is nothing to chart and no budget can be projected.
        </p>
      ) : chart.series.length === 0 ? (
        <p className="muted pad">No finished iteration yet.</p>
      ) : (
        <Plot chart={chart} theme={theme} />
      )}
      {chart.costUnknown ? (
        <p data-testid="projection">
          Spent: <strong title={COST_UNKNOWN_WHY}>cost unknown</strong>
          {chart.budget === null ? '.' : `: the budget of ${usd(chart.budget)} cannot hold it.`}
        </p>
      ) : (
      <p data-testid="projection">
        Spent <strong title={run.cost_unknown ? COST_UNKNOWN_WHY : undefined}>{costText(chart.spent, run.cost_unknown)}</strong>
        {chart.budget === null ? ' (no budget)' : ` of ${usd(chart.budget)}`}.
        {p !== null && <> About {usd(p.costPerIteration)} and {elapsed(p.msPerIteration === null ? null : Math.round(p.msPerIteration))} per iteration lately.</>}
        {active && p !== null && p.reason !== 'none' && p.endIteration !== null && p.endCost !== null && (
          <>
            {' '}
            At this pace it ends after iteration <strong>{p.endIteration}</strong> on {REASON[p.reason]}, at about <strong>{usd(p.endCost)}</strong>
            {p.remainingMs !== null && p.remaining !== 0 ? <>, in about {elapsed(Math.round(p.remainingMs))}</> : null}.
          </>
        )}
        {active && p !== null && p.reason === 'none' && <> No limit will stop it: it runs until the agent signals completion or you stop it.</>}
      </p>
      )}
    </div>
  );
}
