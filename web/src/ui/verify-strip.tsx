// The verify gate's checks over a run's iterations (`run --verify`, `--verify-each`): one cell per iteration,
// passed, failed or not checked, on the cost tab next to the cost chart; the command, how it ended and its
// output's end on hover; the same in words below. Plain elements, not a uPlot chart: a pass/fail per iteration
// is a row of marks, not a scale.
import type { Iteration } from '../api/api-types.js';

function cellTitle(it: Iteration): string {
  const check = it.verify;
  if (check === null) return `iteration ${it.number}: not checked`;
  const tail = check.output_tail.trim().split('\n').slice(-5).join('\n');
  return `iteration ${it.number}: ${check.passed ? 'passed' : 'failed'}: ${check.command} ${check.summary}${tail ? `\n${tail}` : ''}`;
}

/** The strip, or nothing when no check ran in the run. */
export function VerifyStrip({ iterations }: { iterations: Iteration[] }) {
  const checked = iterations.filter((it) => it.verify !== null);
  if (checked.length === 0) return null;
  const failed = checked.filter((it) => it.verify?.passed === false).length;
  const last = checked.at(-1);
  return (
    <section className="verify-strip" data-testid="verify-strip" aria-label="verify checks by iteration">
      <h3>Verify checks</h3>
      <ol className="verify-cells">
        {iterations.map((it) => {
          const state = it.verify === null ? 'none' : it.verify.passed ? 'pass' : 'fail';
          return (
            <li key={it.number} className={`verify-${state}`} data-testid="verify-strip-cell" data-verify={state} title={cellTitle(it)}>
              {it.number}
            </li>
          );
        })}
      </ol>
      <p className="muted" data-testid="verify-strip-summary">
        {checked.length} check{checked.length === 1 ? '' : 's'}: {checked.length - failed} passed, {failed} failed; the last (iteration {last?.number}) {last?.verify?.passed ? 'passed' : 'failed'}.
      </p>
    </section>
  );
}
