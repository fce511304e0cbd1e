// Cost per iteration (bars), cumulative cost against the budget line, and the projected path to the end
// of the run at its current pace (dashed), drawn with uPlot; the same numbers in words below it.
import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { RunDetail } from '../api/api-types.js';
import { chartColumns, projectCost, type CostChart as Chart } from '../lib/cost-projection.js';
import { elapsed, usd } from '../lib/format.js';
import { ACTIVE } from '../lib/run-reducer.js';

const REASON: Record<string, string> = {
  max_iterations: 'its iteration limit',
  max_cost: 'its budget',
  max_runtime: 'its runtime limit',
};

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
        // Cumulative, budget and projection on the left axis; each iteration's own cost on the right one.
        total: { auto: true, range: (_u, min, max) => [0, Math.max(max, min, 0.01) * 1.1] },
        each: { auto: true, range: (_u, min, max) => [0, Math.max(max, min, 0.001) * 1.25] },
      },
      axes: [
        { stroke: text, grid: { stroke: grid, width: 1 }, label: 'iteration', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] },
        { scale: 'total', stroke: text, grid: { stroke: grid, width: 1 }, values: money, size: 64, label: 'total' },
        { scale: 'each', side: 1, stroke: css('--accent'), grid: { show: false }, values: money, size: 64, label: 'per iteration' },
      ],
      series: [
        { label: 'iteration' },
        { label: 'cost', scale: 'each', stroke: css('--accent'), fill: css('--accent-soft'), paths: bars, points: { show: false } },
        { label: 'cumulative', scale: 'total', stroke: css('--ok'), width: 2 },
        { label: 'budget', scale: 'total', stroke: css('--danger'), dash: [6, 4], width: 1.5, points: { show: false } },
        { label: 'projected', scale: 'total', stroke: css('--ok'), dash: [3, 5], width: 2, spanGaps: true, points: { show: false } },
      ],
      legend: { show: true },
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
        iterations.map((it) => ({ number: it.number, cost_usd: it.cost_usd, duration_ms: it.duration_ms, running: it.status === 'running' })),
        { max_cost_usd: run.limits.max_cost_usd, max_iterations: run.limits.max_iterations, max_runtime_ms: run.limits.max_runtime_ms, runtime_ms: runtimeMs },
      ),
    [iterations, run.limits, runtimeMs],
  );
  const p = chart.projection;
  const active = ACTIVE.has(run.status);
  return (
    <div className="cost">
      {chart.series.length === 0 ? <p className="muted pad">No finished iteration yet.</p> : <Plot chart={chart} theme={theme} />}
      <p data-testid="projection">
        Spent <strong>{usd(chart.spent, run.cost_unknown)}</strong>
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
    </div>
  );
}
