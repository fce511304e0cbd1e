// How each row of the output view looks: iteration headers (with the notes delivered to the iteration, marked as
// such, apart from the agent's output), markdown blocks, collapsible tool calls, raw lines with ANSI colours.
import { memo } from 'react';
import type { Iteration, Note } from '../api/api-types.js';
import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { ansiSegments } from '../lib/ansi.js';
import { elapsed } from '../lib/format.js';
import { toolSummary, type OutputItem } from '../lib/output-log.js';

/** A line of raw output with its ANSI styling. */
export const AnsiText = memo(function AnsiText({ text }: { text: string }) {
  return (
    <>
      {ansiSegments(text).map((segment, i) =>
        segment.classes.length === 0 && segment.color === null && segment.background === null ? (
          <span key={i}>{segment.text}</span>
        ) : (
          <span key={i} className={segment.classes.join(' ')} style={{ color: segment.color ?? undefined, backgroundColor: segment.background ?? undefined }}>
            {segment.text}
          </span>
        ),
      )}
    </>
  );
});

/** Pre-formatted text (tool input or output) with ANSI styling, line by line. */
function AnsiBlock({ text }: { text: string }) {
  return (
    <pre className="ansi-block">
      {text.split('\n').map((line, i) => (
        <div key={i}>
          <AnsiText text={line} />
        </div>
      ))}
    </pre>
  );
}

const markdownPlugins = [remarkGfm];

/** Assistant text rendered as markdown (raw HTML is not rendered; links open in a new tab). */
export const MarkdownBlock = memo(function MarkdownBlock({ text }: { text: string }) {
  return (
    <div className="markdown">
      <Markdown remarkPlugins={markdownPlugins} components={{ a: ({ href, children }) => <a href={href} target="_blank" rel="noreferrer noopener">{children}</a> }}>
        {text}
      </Markdown>
    </div>
  );
});

function formatInput(input: string): string {
  try {
    return JSON.stringify(JSON.parse(input), null, 2);
  } catch {
    return input;
  }
}

/** How an iteration ended, in words, for its header in the output. */
const OUTCOME: Record<Iteration['status'], string> = {
  running: 'running…',
  success: 'done',
  complete: 'signalled completion',
  failure: 'failed',
  waiting: 'hit a usage limit',
  interrupted: 'interrupted',
};

/** The notes an iteration's prompt carried (docs/notes.md), each a marked block under the iteration's header. */
function DeliveredNotes({ notes }: { notes: readonly Note[] }) {
  return (
    <>
      {notes.map((n) => (
        <div key={n.id} className="row-note" data-testid="output-note">
          <div className="muted">
            Note {n.id} in this iteration&apos;s prompt{n.by !== null ? ` · from ${n.by}` : ''} · sent {new Date(n.created_at).toLocaleTimeString()}
          </div>
          <div className="note-text">{n.text}</div>
        </div>
      ))}
    </>
  );
}

/** An iteration's header: its number and start, then (from its row) how it ended and how long it took. */
function IterationHeader({ item, header, className }: { item: Extract<OutputItem, { kind: 'iteration' }>; header: Iteration | undefined; className: string }) {
  const ended = header !== undefined && header.status !== 'running';
  return (
    <div className={`row-iteration${className}`} data-testid="output-iteration">
      Iteration {item.iteration} · {new Date(item.time).toLocaleTimeString()}
      {header !== undefined && (
        <>
          {' · '}
          <span className={`outcome outcome-${header.status}`} data-testid="iteration-outcome">
            {OUTCOME[header.status]}
            {header.error_kind !== null && header.error_kind !== 'none' && header.status !== 'interrupted' ? ` (${header.error_kind})` : ''}
          </span>
          {ended && header.duration_ms !== null && <> · {elapsed(header.duration_ms)}</>}
        </>
      )}
    </div>
  );
}

/** The notes delivered to no iteration: none. */
const NO_NOTES: readonly Note[] = [];

/** One row of the output view (for an iteration header, `header`: the iteration's row, `notes`: what it was told). */
export const OutputRow = memo(function OutputRow({ item, current, header, notes = NO_NOTES }: { item: OutputItem; current: boolean; header?: Iteration | undefined; notes?: readonly Note[] }) {
  const className = current ? ' current-match' : '';
  switch (item.kind) {
    case 'iteration':
      return (
        <>
          <IterationHeader item={item} header={header} className={className} />
          <DeliveredNotes notes={notes} />
        </>
      );
    case 'text':
      return (
        <div className={`row-text${className}`} data-testid="output-text">
          <MarkdownBlock text={item.text} />
        </div>
      );
    case 'tool':
      return (
        <details className={`row-tool${item.isError ? ' tool-error' : ''}${className}`} data-testid="output-tool">
          <summary>
            <span className="tool-name">{item.name}</span> <span className="tool-summary">{toolSummary(item.input)}</span>
            <span className="tool-time muted">{item.endTime === null ? 'running…' : elapsed(item.endTime - item.time)}</span>
            {item.isError && <span className="badge badge-failed">error</span>}
          </summary>
          <div className="tool-body">
            <div className="muted">input</div>
            <AnsiBlock text={formatInput(item.input)} />
            {item.output !== null && (
              <>
                <div className="muted">output</div>
                <AnsiBlock text={item.output} />
              </>
            )}
          </div>
        </details>
      );
    case 'line':
      return (
        <div className={`row-line${item.stream === 'stderr' ? ' stderr' : ''}${className}`} data-testid="output-line">
          <AnsiText text={item.text} />
        </div>
      );
  }
});
