// The diff of one checkpoint, or of what one iteration changed, fetched from the server, shown per file side by side
// or unified (react-diff-view parses git's unified diff and renders it).
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Diff, Hunk, parseDiff, type FileData } from 'react-diff-view';
import 'react-diff-view/style/index.css';
import { checkpointDiff, iterationDiff } from '../api/client.js';

function stats(file: FileData): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const hunk of file.hunks) {
    for (const change of hunk.changes) {
      if (change.type === 'insert') added++;
      else if (change.type === 'delete') removed++;
    }
  }
  return { added, removed };
}

/** The diff of checkpoint `sha` of run `runId`, or of its iteration `iteration`. */
export default function DiffView({ runId, sha, iteration }: { runId: string; sha?: string; iteration?: number }) {
  const [viewType, setViewType] = useState<'split' | 'unified'>(() => (window.matchMedia('(max-width: 720px)').matches ? 'unified' : 'split'));
  const diff = useQuery({
    queryKey: ['diff', runId, sha ?? `iteration-${iteration ?? 0}`],
    queryFn: () => (sha !== undefined ? checkpointDiff(runId, sha) : iterationDiff(runId, iteration ?? 0)),
    staleTime: Infinity,
  });
  const files = useMemo(() => (diff.data === undefined ? [] : parseDiff(diff.data, { nearbySequences: 'zip' })), [diff.data]);
  if (diff.isPending) return <p className="muted">Loading the diff…</p>;
  if (diff.isError) return <p className="error" role="alert">Cannot load the diff: {diff.error.message}</p>;
  return (
    <div className="diff" data-testid="diff">
      <div className="diff-tools">
        <span className="muted">
          {files.length} file{files.length === 1 ? '' : 's'} changed
        </span>
        <div role="group" aria-label="diff layout">
          <button type="button" aria-pressed={viewType === 'split'} onClick={() => setViewType('split')}>
            side by side
          </button>
          <button type="button" aria-pressed={viewType === 'unified'} onClick={() => setViewType('unified')}>
            unified
          </button>
        </div>
      </div>
      {files.length === 0 && <p className="muted">No changes in this {sha !== undefined ? 'checkpoint' : 'iteration'}.</p>}
      {files.map((file) => {
        const { added, removed } = stats(file);
        const path = file.type === 'delete' ? file.oldPath : file.newPath;
        return (
          <section key={`${file.oldPath}->${file.newPath}`} className="diff-file">
            <h3>
              <code>{file.type === 'rename' ? `${file.oldPath} → ${file.newPath}` : path}</code> <span className="added">+{added}</span> <span className="removed">−{removed}</span>
            </h3>
            <div className="diff-scroll">
              <Diff viewType={viewType} diffType={file.type} hunks={file.hunks}>
                {(hunks) => hunks.map((hunk) => <Hunk key={hunk.content} hunk={hunk} />)}
              </Diff>
            </div>
          </section>
        );
      })}
    </div>
  );
}
