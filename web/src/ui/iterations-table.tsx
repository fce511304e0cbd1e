// The iterations of a run: status, duration, tokens, cost, exit, the verify gate's check, files changed (with the
// iteration's diff), checkpoint; a row opens its output.
import { lazy, Suspense, useState } from 'react';
import type { Checkpoint, Iteration } from '../api/api-types.js';
import { count, elapsed, usd } from '../lib/format.js';

/** The iterations table (newest first). */
export function IterationsTable({ runId, iterations, checkpoints, onOpen }: { runId: string; iterations: Iteration[]; checkpoints: Checkpoint[]; onOpen: (iteration: number) => void }) {
  const commits = new Map(checkpoints.filter((c) => c.commit_sha !== null).map((c) => [c.iteration, c.commit_sha ?? '']));
  if (iterations.length === 0) return <p className="muted pad">No iterations yet.</p>;
  // The verify column only for runs whose gate checked something (run --verify).
  const verified = iterations.some((it) => it.verify !== null);
  return (
    <div className="table-scroll">
      <table className="iterations" data-testid="iterations">
        <thead>
          <tr>
            <th>#</th>
            <th>status</th>
            <th className="num">duration</th>
            <th className="num">tokens in</th>
            <th className="num">tokens out</th>
            <th className="num">cost</th>
            <th className="num">exit</th>
            {verified && <th>verify</th>}
            <th>files</th>
            <th>checkpoint</th>
            <th>error</th>
          </tr>
        </thead>
        <tbody>
          {[...iterations].reverse().map((it) => (
            <tr key={it.number} onClick={() => onOpen(it.number)} className="clickable" data-testid="iteration-row">
              <td>
                <button type="button" className="link" onClick={() => onOpen(it.number)} aria-label={`open the output of iteration ${it.number}`}>
                  {it.number}
                </button>
              </td>
              <td>
                <span className={`badge badge-${it.status}`}>{it.status}</span>
                {it.completion_signal_found && <span title="completion signal found"> ✓</span>}
              </td>
              <td className="num">{elapsed(it.duration_ms)}</td>
              <td className="num">{count(it.tokens_in)}</td>
              <td className="num">{count(it.tokens_out)}</td>
              <td className="num">{it.status === 'running' ? '…' : usd(it.cost_usd)}</td>
              <td className="num">{it.exit_code ?? it.exit_signal ?? '-'}</td>
              {verified && <VerifyCell check={it.verify} />}
              <td>
                <FilesChanged runId={runId} iteration={it} />
              </td>
              <td>
                <code>{commits.get(it.number)?.slice(0, 10) ?? ''}</code>
              </td>
              <td className="muted">{it.error_kind && it.error_kind !== 'none' ? `${it.error_kind}${it.error_message && it.error_message !== it.error_kind ? `: ${it.error_message}` : ''}` : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const MARK = { added: '+', modified: '~', deleted: '-' } as const;

const DiffView = lazy(() => import('./diff-view.js'));

/** The files an iteration changed: a count that opens the list (and the ref of a discarded attempt), and its diff. */
function FilesChanged({ runId, iteration }: { runId: string; iteration: Iteration }) {
  const [diff, setDiff] = useState(false);
  const files = iteration.files_changed;
  const total = iteration.files_changed_total;
  if (files === null || total === null) return null;
  if (total === 0) return <span className="muted">none</span>;
  return (
    <details data-testid="files-changed" onClick={(e) => e.stopPropagation()}>
      <summary>
        {total} {total === 1 ? 'file' : 'files'}
        {iteration.discarded_ref !== null && <span title={`kept under ${iteration.discarded_ref}`}> (discarded)</span>}
      </summary>
      <ul className="files-changed">
        {files.map((f) => (
          <li key={f.path} className={`change-${f.change}`} title={f.change}>
            <code>
              {MARK[f.change]} {f.path}
            </code>
          </li>
        ))}
        {total > files.length && <li className="muted">and {total - files.length} more</li>}
      </ul>
      {iteration.tree_before !== null && iteration.tree_after !== null && (
        <button type="button" className="small" aria-pressed={diff} onClick={() => setDiff(!diff)}>
          {diff ? 'hide the diff' : 'show the diff'}
        </button>
      )}
      {diff && (
        <Suspense fallback={<p className="muted">Loading…</p>}>
          <DiffView runId={runId} iteration={iteration.number} />
        </Suspense>
      )}
    </details>
  );
}

/** The verify gate's check of an iteration: passed or failed, with the command, how it ended and its output's end on hover. */
function VerifyCell({ check }: { check: Iteration['verify'] }) {
  if (check === null) return <td className="muted">-</td>;
  const tail = check.output_tail.trim().split('\n').slice(-10).join('\n');
  return (
    <td data-testid="verify-cell" title={`${check.command}: ${check.summary} in ${elapsed(check.duration_ms)}${tail ? `\n${tail}` : ''}`}>
      <span className={`badge badge-${check.passed ? 'success' : 'failure'}`}>{check.passed ? 'passed' : 'failed'}</span> <span className="muted">{check.summary}</span>
    </td>
  );
}
