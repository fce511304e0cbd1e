// The notes part of the Store contract (docs/notes.md), run against SQLite and PostgreSQL: a note is pending until
// one iteration claims it (two claims at once: one gets it), withdrawn only while pending, and claimed again when
// the iteration it reached was interrupted.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/errors.js';
import type { Owner, Store } from '../../src/store/store.js';
import type { StoreFixture } from './store-contract.js';

const OWNER: Owner = { pid: 4242, host: 'host-a' };
const T0 = Date.UTC(2025, 0, 2, 10, 15, 0);

/** Registers the notes contract tests for the store made by `makeStore`. */
export function notesContract(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Store contract, notes: ${name}`, () => {
    let fixture: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      fixture = await makeStore();
      store = fixture.store;
      await store.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: T0 });
    });
    afterEach(async () => {
      await fixture.cleanup();
    });
    const start = (number: number) => store.startIteration({ run_id: 'r1', number, agent: 'claude', started_at: T0 + number, log_path: null });

    it('keeps a note pending until one iteration claims it, once; withdraws only a pending one', async () => {
      await expect(store.addNote({ run_id: 'nope', text: 'x', created_at: T0 })).rejects.toBeInstanceOf(StoreError);
      const a = await store.addNote({ run_id: 'r1', text: 'first', created_by: 'user', created_at: T0 + 1 });
      const b = await store.addNote({ run_id: 'r1', text: 'second', created_at: T0 + 2 });
      expect(a).toEqual({ id: a.id, run_id: 'r1', text: 'first', created_by: 'user', created_at: T0 + 1, delivered_iteration: null, delivered_at: null, cancelled_at: null });
      expect((await store.cancelNote('r1', b.id, T0 + 3))?.cancelled_at).toBe(T0 + 3);
      expect(await store.cancelNote('r1', 999, T0 + 3)).toBeNull();
      expect(await store.cancelNote('other', a.id, T0 + 3)).toBeNull();
      await start(1);
      const [one, two] = await Promise.all([store.claimNotes('r1', 1, T0 + 10), store.claimNotes('r1', 2, T0 + 10)]);
      expect([...(one ?? []), ...(two ?? [])].map((n) => [n.id, n.text])).toEqual([[a.id, 'first']]);
      expect(await store.claimNotes('r1', 3, T0 + 11)).toEqual([]);
      const delivered = await store.cancelNote('r1', a.id, T0 + 12);
      expect(delivered?.cancelled_at).toBeNull();
      expect((await store.listNotes('r1')).map((n) => [n.id, n.delivered_iteration, n.cancelled_at])).toEqual([
        [a.id, one?.length ? 1 : 2, null],
        [b.id, null, T0 + 3],
      ]);
    });

    it('gives a note delivered to an interrupted iteration to the next one', async () => {
      const note = await store.addNote({ run_id: 'r1', text: 'again', created_at: T0 });
      await start(1);
      expect((await store.claimNotes('r1', 1, T0 + 5)).map((n) => n.id)).toEqual([note.id]);
      // The process dies during iteration 1: the next owner's claim closes it as interrupted.
      await store.claimRun('r1', { pid: 1, host: 'host-b' }, T0 + 100);
      await start(2);
      expect((await store.claimNotes('r1', 2, T0 + 105)).map((n) => [n.id, n.delivered_iteration])).toEqual([[note.id, 2]]);
      expect(await store.claimNotes('r1', 3, T0 + 106)).toEqual([]);
    });
  });
}
