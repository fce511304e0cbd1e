// Notes to a run in the PostgreSQL store (docs/notes.md): the same contract as sqlite/notes.ts. A claim is one
// UPDATE: of two iterations starting at once (on any machines), the second waits for the first's row locks and
// then finds the notes taken.
import { StoreError } from '../errors.js';
import { noteRowSchema } from '../rows.js';
import type { NoteRow } from '../rows.js';
import { CLAIMABLE_NOTE, NOTE_COLUMNS } from '../sql-columns.js';
import type { NewNote } from '../store.js';
import { query, sqlState } from './pool.js';
import type { Queryable } from './pool.js';

/** Writes a pending note. */
export async function addNote(db: Queryable, note: NewNote): Promise<NoteRow> {
  try {
    const { rows } = await query(db, `INSERT INTO notes (run_id, text, created_by, created_at) VALUES ($1, $2, $3, $4) RETURNING ${NOTE_COLUMNS}`, [
      note.run_id,
      note.text,
      note.created_by ?? null,
      note.created_at,
    ]);
    return noteRowSchema.parse(rows[0]);
  } catch (error) {
    if (sqlState(error) === '23503') throw new StoreError(`addNote: no run ${note.run_id}`, { cause: error });
    throw error;
  }
}

/** A run's notes, oldest first. */
export async function listNotes(db: Queryable, runId: string): Promise<NoteRow[]> {
  const { rows } = await query(db, `SELECT ${NOTE_COLUMNS} FROM notes WHERE run_id = $1 ORDER BY id`, [runId]);
  return rows.map((row) => noteRowSchema.parse(row));
}

/** Withdraws a pending note; the note as it is now (null when the run has no such note). */
export async function cancelNote(db: Queryable, runId: string, id: number, now: number): Promise<NoteRow | null> {
  await query(db, 'UPDATE notes SET cancelled_at = $3 WHERE id = $1 AND run_id = $2 AND delivered_iteration IS NULL AND cancelled_at IS NULL', [id, runId, now]);
  const { rows } = await query(db, `SELECT ${NOTE_COLUMNS} FROM notes WHERE id = $1 AND run_id = $2`, [id, runId]);
  return rows[0] === undefined ? null : noteRowSchema.parse(rows[0]);
}

/** Gives the run's claimable notes to `iteration` (one statement); the notes taken, oldest first. */
export async function claimNotes(db: Queryable, runId: string, iteration: number, now: number): Promise<NoteRow[]> {
  const { rows } = await query(db, `UPDATE notes AS n SET delivered_iteration = $2, delivered_at = $3 WHERE n.run_id = $1 AND ${CLAIMABLE_NOTE} RETURNING ${NOTE_COLUMNS}`, [
    runId,
    iteration,
    now,
  ]);
  return rows.map((row) => noteRowSchema.parse(row)).sort((a, b) => a.id - b.id);
}
