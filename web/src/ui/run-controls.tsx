// Controls of one run: pause (after the iteration, or now: the agent suspended), resume, stop (asks first: it kills the agent), add iterations. The server answers
// at once with what the run did with the request; the run shows "pausing" / "stopping" until its events say it
// really paused or stopped.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { ControlOutcome, RunItem } from '../api/api-types.js';
import { controlRun, extendRun, type RunAction } from '../api/client.js';
import { ConfirmDialog } from './confirm.js';
import { useApplyOutcome } from './live.js';
import { useShortcuts } from './use-shortcuts.js';

/** What to say about an answer other than `accepted`. */
function answerText(outcome: ControlOutcome): string | null {
  switch (outcome.answer) {
    case 'accepted':
      return null;
    case 'already':
      return outcome.action === 'extend' ? 'The run has no iteration limit to raise.' : `Nothing to do: the run is already ${outcome.status}.`;
    case 'not_running':
      return `Nothing to do: the run is ${outcome.status}.`;
    case 'requested':
      return 'Asked the process that drives this run; it has not answered yet (it checks about once a second).';
    default:
      return outcome.answer;
  }
}

/** The control bar of the run page. */
export function RunControls({ run }: { run: RunItem }) {
  const [askStop, setAskStop] = useState(false);
  const [more, setMore] = useState('5');
  const applyOutcome = useApplyOutcome();
  const control = useMutation({ mutationFn: ({ action, now }: { action: RunAction; now?: boolean }) => controlRun(run.id, action, now), onSuccess: applyOutcome });
  const extend = useMutation({ mutationFn: (n: number) => extendRun(run.id, n), onSuccess: applyOutcome });
  const running = run.status === 'running' || run.status === 'waiting' || run.status === 'pending';
  const ended = run.status === 'completed' || run.status === 'stopped' || run.status === 'failed' || run.status === 'orphaned';
  const stopping = run.transition === 'stopping';
  const canPause = running && run.transition === null;
  const canPauseNow = run.status === 'running' && (run.transition === null || run.transition === 'pausing');
  const canResume = !stopping && (run.status === 'paused' || run.transition === 'pausing' || (ended && run.stop_reason !== 'success_signal'));
  const canStop = (running || run.status === 'paused' || run.status === 'orphaned') && !stopping;
  const moreCount = /^\d+$/.test(more.trim()) ? Number(more) : NaN;

  useShortcuts('run', {
    pause: () => canPause && control.mutate({ action: 'pause' }),
    resume: () => canResume && control.mutate({ action: 'resume' }),
    stop: () => canStop && setAskStop(true),
  });

  const error = control.error ?? extend.error;
  const said = control.data ? answerText(control.data) : null;
  return (
    <div className="controls" data-testid="controls">
      <button type="button" onClick={() => control.mutate({ action: 'pause' })} disabled={!canPause || control.isPending} title="pause after the current iteration (p)">
        {run.transition === 'pausing' ? 'Pausing…' : 'Pause'}
      </button>
      <button type="button" onClick={() => control.mutate({ action: 'pause', now: true })} disabled={!canPauseNow || control.isPending} title="suspend the agent now, mid-iteration (SIGSTOP); resume continues it">
        Pause now
      </button>
      <button type="button" onClick={() => control.mutate({ action: 'resume' })} disabled={!canResume || control.isPending} title="resume (r)">
        Resume
      </button>
      <button type="button" className="danger" onClick={() => setAskStop(true)} disabled={!canStop || control.isPending} title="stop (s)">
        {stopping ? 'Stopping…' : 'Stop'}
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
      {said !== null && (
        <span role="status" data-testid="control-answer">
          {said}
        </span>
      )}
      {error && (
        <span className="error" role="alert">
          {error.message}
        </span>
      )}
      {extend.isSuccess && extend.data.answer === 'accepted' && <span role="status">{extend.variables} iterations added.</span>}
      {extend.data && extend.data.answer !== 'accepted' && <span role="status">{answerText(extend.data)}</span>}
      <ConfirmDialog
        open={askStop}
        title="Stop this run?"
        action="Stop the run"
        onCancel={() => setAskStop(false)}
        onConfirm={() => {
          setAskStop(false);
          control.mutate({ action: 'stop' });
        }}
      >
        <p>The agent and everything it started are killed now; the current iteration is recorded as interrupted. The run can be resumed later.</p>
      </ConfirmDialog>
    </div>
  );
}
