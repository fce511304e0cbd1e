// The checkpoints of a run: pick one to see its diff, or roll the workspace back to it (after a confirmation).
import { useMutation } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import type { Checkpoint } from '../api/api-types.js';
import { rollbackRun } from '../api/client.js';
import { ConfirmDialog } from './confirm.js';

const DiffView = lazy(() => import('./diff-view.js'));

/** The local time of day of an ISO time ('14:05:09'). */
function clockTime(iso: string): string {
  return new Date(iso).toLocaleTimeString('en-GB', { hour12: false });
}

/** The checkpoints tab. */
export function Checkpoints({ runId, workspace, checkpoints, active }: { runId: string; workspace: string; checkpoints: Checkpoint[]; active: boolean }) {
  const commits = checkpoints.filter((c) => c.commit_sha !== null);
  // The newest commit is what the workspace holds now: rolling back to it would change nothing.
  const current = commits.at(-1)?.commit_sha ?? null;
  const [selected, setSelected] = useState<string | null>(commits.at(-1)?.commit_sha ?? null);
  const [rollbackTo, setRollbackTo] = useState<Checkpoint | null>(null);
  const [force, setForce] = useState(false);
  const rollback = useMutation({ mutationFn: ({ iteration, force }: { iteration: number; force: boolean }) => rollbackRun(runId, iteration, force) });
  if (checkpoints.length === 0) return <p className="muted pad">No checkpoints yet (one is committed every checkpoint interval and at the end of the run).</p>;
  return (
    <div className="checkpoints">
      <ul className="checkpoint-list" data-testid="checkpoints">
        {[...checkpoints].reverse().map((c) => (
          <li key={`${c.iteration}-${c.commit_sha ?? c.state}`} className={c.commit_sha !== null && c.commit_sha === selected ? 'selected' : ''}>
            <button type="button" className="link" disabled={c.commit_sha === null} onClick={() => setSelected(c.commit_sha)}>
              {c.state === 'rollback' ? `rollback to iteration ${c.iteration}` : `iteration ${c.iteration}`} · <code>{c.commit_sha?.slice(0, 10) ?? '-'}</code> · {c.state}
              {c.created_at !== null && <span className="muted"> · {clockTime(c.created_at)}</span>}
            </button>
            {c.commit_sha !== null && c.state !== 'rollback' && c.commit_sha !== current && (
              <button type="button" className="small" disabled={active} title={active ? 'pause or stop the run first' : 'restore the workspace to this checkpoint (asks first)'} onClick={() => setRollbackTo(c)}>
                Roll back here
              </button>
            )}
            {c.commit_sha !== null && c.commit_sha === current && <span className="muted small">current</span>}
          </li>
        ))}
      </ul>
      {rollback.isError && (
        <p className="error" role="alert">
          Rollback failed: {rollback.error.message}
        </p>
      )}
      {rollback.isSuccess && <p role="status">Workspace restored to iteration {rollback.variables.iteration}.</p>}
      {selected !== null && (
        <Suspense fallback={<p className="muted">Loading…</p>}>
          <DiffView runId={runId} sha={selected} />
        </Suspense>
      )}
      <ConfirmDialog
        open={rollbackTo !== null}
        title={`Roll back to iteration ${rollbackTo?.iteration ?? ''}?`}
        action="Roll back"
        onCancel={() => setRollbackTo(null)}
        onConfirm={() => {
          if (rollbackTo) rollback.mutate({ iteration: rollbackTo.iteration, force });
          setRollbackTo(null);
          setForce(false);
        }}
      >
        <p>
          The files of <code>{workspace}</code> are restored to checkpoint <code>{rollbackTo?.commit_sha?.slice(0, 10)}</code> as a new commit: later work leaves the working tree (git history keeps the
          commits). With uncommitted changes in the workspace the rollback is refused, unless you discard them.
        </p>
        <label>
          <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} /> discard uncommitted changes (--force)
        </label>
      </ConfirmDialog>
    </div>
  );
}
