// Notes to a running loop, as the runner delivers them (docs/notes.md): when an iteration starts, it claims the
// run's pending notes in the store (atomically: of iterations starting at once, each note goes to one), appends
// them to its prompt as a marked section and records a note_delivered event for each. The loop's only call is
// promptWithNotes() where the iteration's prompt is handed to the agent.
import { withNotes } from '../prompt/notes-section.js';
import type { RunEventBodySink } from './events.js';

/** A note taken by an iteration. */
export interface ClaimedNote {
  id: number;
  text: string;
  created_at: number;
}

/** Where notes come from: the run's store (Store.claimNotes), bound to the run. */
export interface NoteInbox {
  /** Gives the run's pending notes to `iteration` (starting now); the notes taken, oldest first. */
  claim(iteration: number, now: number): Promise<readonly ClaimedNote[]>;
}

/** An inbox over any store with claimNotes. */
export function storeInbox(store: { claimNotes(runId: string, iteration: number, now: number): Promise<readonly ClaimedNote[]> }, runId: string): NoteInbox {
  return { claim: (iteration, now) => store.claimNotes(runId, iteration, now) };
}

/** What promptWithNotes needs of the loop. */
export interface NoteDeps {
  notes?: NoteInbox;
  onEvent: RunEventBodySink;
  now(): number;
}

/**
 * The prompt iteration `iteration` runs with: `prompt` plus the notes it claimed (each recorded as note_delivered).
 * A store that cannot be read leaves the prompt as it is (the notes stay pending for the next one) with a warning.
 */
export async function promptWithNotes(deps: NoteDeps, iteration: number, prompt: string): Promise<string> {
  if (!deps.notes) return prompt;
  let notes: readonly ClaimedNote[];
  try {
    notes = await deps.notes.claim(iteration, deps.now());
  } catch (error) {
    deps.onEvent({ type: 'warning', time: deps.now(), message: `notes: cannot read the run's notes: ${(error as Error).message}` });
    return prompt;
  }
  for (const note of notes) deps.onEvent({ type: 'note_delivered', time: deps.now(), note_id: note.id, iteration });
  return withNotes(prompt, notes.map((n) => ({ id: n.id, text: n.text, createdAt: n.created_at })));
}
