// Notes to a run from anywhere (docs/notes.md): checked (not empty, at most 4 KiB), redacted, stored; then
// announced as a note_added event by whoever may write the run's events. A run a live process drives (a terminal,
// a server, a worker, here or elsewhere) is asked through a `note` control request, as pause and stop are, and its
// owner records the event in its own stream; a run nobody drives (queued for workers, orphaned, stopped, a Stop-hook
// loop) gets the event appended here. The note itself waits in the store for the next iteration that starts.
import { redactor } from '../core/redact.js';
import { HOOK_AGENT } from '../core/types.js';
import { appendEventBodies } from '../runner/standalone-events.js';
import type { RunEvent } from '../runner/events.js';
import type { NoteRow, RunRow, Store } from '../store/index.js';
import { ACTIVE_STATUSES, isOrphaned } from '../store/liveness.js';
import type { ControlTarget } from './control-poller.js';
import { ManagerError } from './errors.js';
import { localProbe } from './local-probe.js';

/** The largest note, in bytes of UTF-8. */
export const NOTE_MAX_BYTES = 4096;
/** Notes waiting for a run's next iteration at most (with 4 KiB each: a prompt grows by at most 256 KiB). */
export const NOTES_PENDING_MAX = 64;

/** A note too large to store (the API answers 413). */
export class NoteTooLargeError extends ManagerError {
  constructor(readonly bytes: number) {
    super('invalid_request', `the note is ${bytes} bytes: a note holds at most ${NOTE_MAX_BYTES} bytes (4 KiB)`);
    this.name = 'NoteTooLargeError';
  }
}

/** The note's text as stored: refused when empty or over 4 KiB, secrets of `env` redacted. */
export function noteText(text: string, env: Readonly<Record<string, string | undefined>>): string {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > NOTE_MAX_BYTES) throw new NoteTooLargeError(bytes);
  if (text.trim() === '') throw new ManagerError('invalid_request', 'the note is empty');
  return redactor(env)(text);
}

/** Where a note was announced: by this process, to the run's owner, or appended for a run nobody drives. */
export type NoteAnnouncement = 'here' | 'owner' | 'stored';

/** What addNote needs. */
export interface NoteContext {
  store: Store;
  env: Readonly<Record<string, string | undefined>>;
  now: number;
  /** Who wrote it: 'user' (a terminal), 'api 127.0.0.1', ... */
  by: string | null;
  /** Hands events appended here to a fan-out (the server's WebSocket). */
  broadcast?: (events: readonly RunEvent[]) => void;
}

/** True when a live process drives the run (so it records the note's event in its own stream). */
function drivenElsewhere(run: RunRow): boolean {
  // A Stop-hook loop has no process between hook calls: nobody would answer.
  if (run.agent === HOOK_AGENT) return false;
  return ACTIVE_STATUSES.includes(run.status) && run.owner_pid !== null && !isOrphaned(run, localProbe());
}

/** Stores a note to `run` and has its note_added recorded; the note and who announced it. */
export async function addNote(ctx: NoteContext, run: RunRow, text: string, local?: Pick<ControlTarget, 'control'>): Promise<{ note: NoteRow; announced: NoteAnnouncement }> {
  const clean = noteText(text, ctx.env);
  // A run that signalled success is never resumed: its note would never be read.
  if (run.stop_reason === 'success_signal') throw new ManagerError('conflict', `run ${run.id} has completed (the agent signalled success) and cannot be resumed: no iteration would read the note`);
  const pending = (await ctx.store.listNotes(run.id)).filter((n) => noteView(n).status === 'pending').length;
  if (pending >= NOTES_PENDING_MAX) throw new ManagerError('conflict', `run ${run.id} has ${pending} notes waiting for its next iteration, the most it takes: withdraw some, or wait for it to read them`);
  const note = await ctx.store.addNote({ run_id: run.id, text: clean, created_by: ctx.by, created_at: ctx.now });
  // Driven by this process: its controller records the event at once.
  if (local && local.control({ kind: 'note', note: { id: note.id, text: clean, by: ctx.by } }) === 'accepted') return { note, announced: 'here' };
  // Read again: the run may have been taken (a worker's claim) since the caller looked.
  const current = (await ctx.store.getRun(run.id)) ?? run;
  if (drivenElsewhere(current)) {
    await ctx.store.requestControl({ run_id: run.id, action: 'note', options: { note_id: note.id, text: clean }, requested_by: ctx.by, requested_at: ctx.now });
    return { note, announced: 'owner' };
  }
  const events = await appendEventBodies(ctx.store, run.id, [{ type: 'note_added', time: ctx.now, note_id: note.id, text: clean, by: ctx.by }]);
  ctx.broadcast?.(events);
  return { note, announced: 'stored' };
}

/** Withdraws a pending note of `run`; ManagerError not_found (no such note) or conflict (delivered or withdrawn before). */
export async function cancelNote(store: Store, run: RunRow, id: number, now: number): Promise<NoteRow> {
  const note = await store.cancelNote(run.id, id, now);
  if (note === null) throw new ManagerError('not_found', `run ${run.id} has no note ${id}`);
  if (note.delivered_iteration !== null) throw new ManagerError('conflict', `note ${id} was already delivered to iteration ${note.delivered_iteration}`);
  if (note.cancelled_at !== now) throw new ManagerError('conflict', `note ${id} was already withdrawn`);
  return note;
}

/** A note as the CLI and the API show it. */
export interface NoteView {
  id: number;
  run_id: string;
  text: string;
  by: string | null;
  created_at: string;
  status: 'pending' | 'delivered' | 'withdrawn';
  delivered_iteration: number | null;
}

/** The JSON shape of a note. */
export function noteView(note: NoteRow): NoteView {
  const status = note.cancelled_at !== null ? 'withdrawn' : note.delivered_iteration !== null ? 'delivered' : 'pending';
  return { id: note.id, run_id: note.run_id, text: note.text, by: note.created_by, created_at: new Date(note.created_at).toISOString(), status, delivered_iteration: note.delivered_iteration };
}
