// Controls of one run: pause, resume, stop (asks first: it kills the agent), add iterations. The server
// answers at once; the run's state changes when its events arrive ("pausing" / "stopping" until then).
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { RunSummary } from '../api/api-types.js';
import { controlRun, extendRun, type RunAction } from '../api/client.js';
import { ConfirmDialog } from './confirm.js';
import { useShortcuts } from './use-shortcuts.js';

/** The control bar of the run page. */
export function RunControls({ run }: { run: RunSummary }) {
  const [askStop, setAskStop] = useState(false);
  const [more, setMore] = useState('5');
  const control = useMutation({ mutationFn: (action: RunAction) => controlRun(run.id, action) });
  const extend = useMutation({ mutationFn: (n: number) => extendRun(run.id, n) });
  const running = run.status === 'running' || run.status === 'waiting' || run.status === 'pending';
  const ended = run.status === 'completed' || run.status === 'stopped' || run.status === 'failed' || run.status === 'orphaned';
  const canPause = running && !run.pause_requested && !run.stop_requested;
  const canResume = (run.status === 'paused' || ended) && !run.stop_requested;
  const canStop = (running || run.status === 'paused' || run.status === 'orphaned') && !run.stop_requested;
  const moreCount = /^\d+$/.test(more.trim()) ? Number(more) : NaN;

  useShortcuts('run', {
    pause: () => canPause && control.mutate('pause'),
    resume: () => canResume && control.mutate('resume'),
    stop: () => canStop && setAskStop(true),
  });

  const error = control.error ?? extend.error;
  return (
    <div className="controls" data-testid="controls">
      <button type="button" onClick={() => control.mutate('pause')} disabled={!canPause || control.isPending} title="pause after the current iteration (p)">
        {run.pause_requested ? 'Pausing…' : 'Pause'}
      </button>
      <button type="button" onClick={() => control.mutate('resume')} disabled={!canResume || control.isPending} title="resume (r)">
        Resume
      </button>
      <button type="button" className="danger" onClick={() => setAskStop(true)} disabled={!canStop || control.isPending} title="stop (s)">
        {run.stop_requested ? 'Stopping…' : 'Stop'}
      </button>
      <form
        className="extend"
        onSubmit={(e) => {
          e.preventDefault();
          if (Number.isInteger(moreCount) && moreCount >= 1) extend.mutate(moreCount);
        }}
      >
        <label>
          add{' '}
          <input type="number" min={1} step={1} value={more} onChange={(e) => setMore(e.target.value)} aria-label="iterations to add" className="narrow" />
        </label>
        <button type="submit" disabled={!(Number.isInteger(moreCount) && moreCount >= 1) || extend.isPending}>
          iterations
        </button>
      </form>
      {error && (
        <span className="error" role="alert">
          {error.message}
        </span>
      )}
      {extend.isSuccess && <span role="status">{extend.variables} iterations added.</span>}
      <ConfirmDialog
        open={askStop}
        title="Stop this run?"
        action="Stop the run"
        onCancel={() => setAskStop(false)}
        onConfirm={() => {
          setAskStop(false);
          control.mutate('stop');
        }}
      >
        <p>The agent and everything it started are killed now; the current iteration is recorded as interrupted. The run can be resumed later.</p>
      </ConfirmDialog>
    </div>
  );
}
