// The run page's note box (docs/notes.md): a note for the run's next iteration, and its pending notes, each with a
// Withdraw button. The list is refetched after each change, every 5 s, and when an iteration starts; the output view
// reads the delivered ones from the same list (useDeliveredNotes).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { addNote, listNotes, withdrawNote } from '../api/client.js';
import type { Note, RunItem } from '../api/api-types.js';

/** The largest note, in bytes (the server answers 413 over it). */
const MAX_BYTES = 4096;

/** Query key of a run's notes. */
export const notesKey = (runId: string): readonly unknown[] => ['notes', runId];

/** The notes delivered to each iteration of a run, oldest first; read again when `iterations` (how many started) changes. */
export function useDeliveredNotes(runId: string, iterations: number): ReadonlyMap<number, readonly Note[]> {
  const client = useQueryClient();
  const notes = useQuery({ queryKey: notesKey(runId), queryFn: () => listNotes(runId), refetchInterval: 5000 });
  useEffect(() => void client.invalidateQueries({ queryKey: notesKey(runId) }), [client, runId, iterations]);
  return useMemo(() => {
    const byIteration = new Map<number, Note[]>();
    for (const n of notes.data ?? []) {
      if (n.status !== 'delivered' || n.delivered_iteration === null) continue;
      byIteration.set(n.delivered_iteration, [...(byIteration.get(n.delivered_iteration) ?? []), n]);
    }
    return byIteration;
  }, [notes.data]);
}

/** The note box of a run. */
export function NoteBox({ run }: { run: RunItem }) {
  const [text, setText] = useState('');
  const client = useQueryClient();
  const notes = useQuery({ queryKey: notesKey(run.id), queryFn: () => listNotes(run.id), refetchInterval: 5000 });
  const refresh = (): void => void client.invalidateQueries({ queryKey: notesKey(run.id) });
  const add = useMutation({ mutationFn: (t: string) => addNote(run.id, t), onSuccess: () => (setText(''), refresh()) });
  const withdraw = useMutation({ mutationFn: (noteId: number) => withdrawNote(run.id, noteId), onSuccess: refresh });
  const bytes = new TextEncoder().encode(text).length;
  const pending = (notes.data ?? []).filter((n) => n.status === 'pending');
  const error = add.error ?? withdraw.error;
  return (
    <section className="note-box" data-testid="note-box" aria-label="notes to the loop">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim() !== '' && bytes <= MAX_BYTES) add.mutate(text);
        }}
      >
        <label htmlFor="note-text">Note for the next iteration</label>
        <textarea id="note-text" value={text} rows={2} onChange={(e) => setText(e.target.value)} placeholder="Delivered once, in the prompt of the next iteration that starts" />
        <button type="submit" disabled={text.trim() === '' || bytes > MAX_BYTES || add.isPending}>
          Send note
        </button>
        {bytes > MAX_BYTES && <span className="error">{bytes} bytes: at most {MAX_BYTES}</span>}
      </form>
      {error && <div className="error" role="alert">{error.message}</div>}
      {pending.length > 0 && (
        <ul className="pending-notes" aria-label="pending notes">
          {pending.map((n) => (
            <li key={n.id} data-testid="pending-note">
              <span className="note-text">{n.text}</span>
              <button type="button" onClick={() => withdraw.mutate(n.id)} disabled={withdraw.isPending}>
                Withdraw
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
