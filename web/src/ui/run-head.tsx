// The top of the run page: the title and state, a note when what is shown is not current, the run's details,
// numbers, controls and note box (folded under a one-line summary on a phone), and a failed run's last error.
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import type { RunDetail } from '../api/api-types.js';
import { title } from '../lib/format.js';
import { NoteBox } from './note-box.js';
import { RunControls } from './run-controls.js';
import { RunStats, RunSummary } from './run-stats.js';

/** Text whose words never break inside (a word longer than 40 characters still may, rather than overflow). */
function Words({ text }: { text: string }) {
  return (
    <>
      {text.split(/(\s+)/).map((part, i) => (part.trim() === '' || part.length > 40 ? part : <span key={i} className="nobreak">{part}</span>))}
    </>
  );
}

/** The way back to the board, the run's title (its id when it has none) and its state's badge. */
export function RunTitle({ run: r, label }: { run: RunDetail['run']; label: string }) {
  return (
    <div className="run-head">
      <div className="run-title">
        <Link href="/" className="muted">
          ← board
        </Link>
        <h1 title={r.title ?? undefined} data-testid="run-title">
          <Words text={title(r.title ?? '', 120) || r.id} />
        </h1>
      </div>
      <span className={`badge big badge-${label}`} data-testid="run-state">
        {label}
      </span>
    </div>
  );
}

/** Says that the page shows what the server last said, when a refresh failed (`error`); nothing otherwise. */
export function Stale({ error }: { error: Error | null }) {
  if (error === null) return null;
  return (
    <p className="stale" role="status" data-testid="stale" title={error.message}>
      Not current: the server cannot be reached ({error.message}); this is what it last said.
    </p>
  );
}

/** On a phone, what it holds folds under a one-line summary (the output gets the screen); elsewhere it is shown as is. */
function Collapsible({ phone, summary, children }: { phone: boolean; summary: ReactNode; children: ReactNode }) {
  if (!phone) return <>{children}</>;
  return (
    <details className="run-more" data-testid="run-more">
      <summary>{summary}</summary>
      {children}
    </details>
  );
}

/** The run's id, workspace, agent and model, its numbers, its controls and the note box. */
export function RunDetails({ run: r, runtime, now, phone }: { run: RunDetail['run']; runtime: number; now: number; phone: boolean }) {
  return (
    <Collapsible phone={phone} summary={<RunSummary run={r} runtime={runtime} />}>
      {phone && r.title !== null && <p className="run-full-title">{r.title}</p>}
      <div className="muted run-meta">
        <code>{r.id}</code> · {r.workspace}
        {r.worktree ? ` (worktree ${r.branch ?? r.worktree})` : ''} · {r.agent}
        {r.model ? ` · ${r.model}` : ''}
      </div>
      <RunStats run={r} runtime={runtime} now={now} />
      <RunControls run={r} />
      <NoteBox run={r} />
    </Collapsible>
  );
}

/** What went wrong, on a failed run's page: the last error an iteration recorded (not only in the iterations tab). */
export function RunError({ detail }: { detail: RunDetail }) {
  if (detail.run.status !== 'failed') return null;
  const last = [...detail.iterations].reverse().find((it) => it.error_kind !== null && it.error_kind !== 'none');
  if (!last) return null;
  return (
    <p className="error run-error" role="alert" data-testid="run-error">
      Iteration {last.number} failed ({last.error_kind}){last.error_message && last.error_message !== last.error_kind ? `: ${last.error_message}` : ''}
    </p>
  );
}
