// Notes in hook mode (docs/notes.md): the Stop hook's continuation (its block reason, the prompt of the next turn)
// carries the loop run's pending notes, claimed in the store for that turn and recorded as note_delivered.
import { withNotes } from '../prompt/notes-section.js';
import { appendEventBodies } from '../runner/standalone-events.js';
import { hasStore, type StoreEnv } from './store-record.js';

/** The continuation with the run's pending notes for `iteration`; unchanged without a store or notes (or on error, with a warning). */
export async function continuationWithNotes(env: StoreEnv, runId: string | null, iteration: number, reason: string, now: number): Promise<{ reason: string; warning: string | null }> {
  if (runId === null || !hasStore(env)) return { reason, warning: null };
  try {
    const { openStore } = await import('../store/open-store.js');
    const store = await openStore({ env, create: false });
    try {
      const notes = await store.claimNotes(runId, iteration, now);
      if (notes.length === 0) return { reason, warning: null };
      await appendEventBodies(store, runId, notes.map((n) => ({ type: 'note_delivered' as const, time: now, note_id: n.id, iteration })));
      return { reason: withNotes(reason, notes.map((n) => ({ id: n.id, text: n.text, createdAt: n.created_at }))), warning: null };
    } finally {
      await store.close();
    }
  } catch (error) {
    return { reason, warning: `cannot read the loop's notes: ${(error as Error).message}` };
  }
}
