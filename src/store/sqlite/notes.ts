// Notes to a run in the SQLite store (docs/notes.md): written by anyone, claimed once by the iteration that starts
// next (one UPDATE, so two iterations starting at once never both take a note), withdrawn while pending.
import { StoreError } from '../errors.js';
import { noteRowSchema } from '../rows.js';
import type { NoteRow } from '../rows.js';
import { CLAIMABLE_NOTE, NOTE_COLUMNS } from '../sql-columns.js';
import type { NewNote } from '../store.js';
import type { SqliteDb } from './db.js';

/** Writes a pending note. */
export function addNote(s: SqliteDb, note: NewNote): NoteRow {
  if (s.q('SELECT 1 FROM runs WHERE id = :id').get({ id: note.run_id }) === undefined) throw new StoreError(`addNote: no run ${note.run_id}`);
  const row = s
    .q(`INSERT INTO notes (run_id, text, created_by, created_at) VALUES (:run_id, :text, :by, :at) RETURNING ${NOTE_COLUMNS}`)
    .get({ run_id: note.run_id, text: note.text, by: note.created_by ?? null, at: note.created_at });
  return noteRowSchema.parse(row);
}

/** A run's notes, oldest first. */
export function listNotes(s: SqliteDb, runId: string): NoteRow[] {
  return s.q(`SELECT ${NOTE_COLUMNS} FROM notes WHERE run_id = :runId ORDER BY id`).all({ runId }).map((row) => noteRowSchema.parse(row));
}

/** Withdraws a pending note; the note as it is now (null when the run has no such note). */
export function cancelNote(s: SqliteDb, runId: string, id: number, now: number): NoteRow | null {
  return s.tx(() => {
    s.run('UPDATE notes SET cancelled_at = :now WHERE id = :id AND run_id = :runId AND delivered_iteration IS NULL AND cancelled_at IS NULL', { id, runId, now });
    const row = s.q(`SELECT ${NOTE_COLUMNS} FROM notes WHERE id = :id AND run_id = :runId`).get({ id, runId });
    return row === undefined ? null : noteRowSchema.parse(row);
  });
}

/** Gives the run's claimable notes to `iteration` (one statement: atomic); the notes taken, oldest first. */
export function claimNotes(s: SqliteDb, runId: string, iteration: number, now: number): NoteRow[] {
  const rows = s
    .q(`UPDATE notes AS n SET delivered_iteration = :iteration, delivered_at = :now WHERE n.run_id = :runId AND ${CLAIMABLE_NOTE} RETURNING ${NOTE_COLUMNS}`)
    .all({ runId, iteration, now });
  return rows.map((row) => noteRowSchema.parse(row)).sort((a, b) => a.id - b.id);
}
