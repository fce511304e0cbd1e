// Event numbers stay gap-free per run when an append fails: the recorder writes the failed batch again with the
// next one, so no event is stored past a missing one, and none twice. Against SQLite (a write lock held by
// another connection beyond the store's wait) and PostgreSQL (the server stopped, then started again).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/runner/events.js';
import { createRecorder, type Recorder } from '../../src/runner/recorder.js';
import { retryingBusy } from '../../src/store/busy-retry.js';
import { databasePath, ensurePrivateDir, sqliteLockFiles } from '../../src/store/paths.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { Owner, Store } from '../../src/store/store.js';
import { usePostgres } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

const OWNER: Owner = { pid: 4242, host: 'host-a' };
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A recorder of run `r` on `store` (no git, no checkpoints), and the store errors it reported. */
async function recorderOf(store: Store): Promise<{ recorder: Recorder; errors: string[]; event: (seq: number) => RunEvent }> {
  const home = mkdtempSync(join(tmpdir(), 'rm-rec-'));
  dirs.push(home);
  await store.createRun({ id: 'r', agent: 'claude', spec: {}, workspace: home, owner: OWNER, now: 1 });
  const errors: string[] = [];
  const recorder = createRecorder({
    store,
    runId: 'r',
    dataDir: home,
    agentDir: home,
    owner: OWNER,
    checkpointInterval: 0,
    gitEnabled: false,
    now: () => 1,
    emit: () => undefined,
    onStoreError: (message) => errors.push(message),
  });
  const event = (seq: number): RunEvent => ({ type: 'warning', run_id: 'r', seq, time: 1000 + seq, message: `event ${seq}` });
  return { recorder, errors, event };
}

/** Records `seqs` and lets their batch be tried. */
async function record(recorder: Recorder, event: (seq: number) => RunEvent, seqs: number[], settled: () => Promise<unknown>): Promise<void> {
  for (const seq of seqs) recorder.record(event(seq));
  await settled();
}

describe('recorder: a failed event append leaves no gap', () => {
  it('SQLite: a batch refused while another connection holds the write lock is written with the next one', async () => {
    const home = mkdtempSync(join(tmpdir(), 'rm-rec-db-'));
    dirs.push(home);
    ensurePrivateDir(home);
    const path = databasePath(home);
    // A store that gives up at once on a locked database, so that the append fails (the real one waits).
    const store = retryingBusy(new SqliteStore(path), { lockFiles: sqliteLockFiles(path), maxWaitMs: 0 });
    const { recorder, errors, event } = await recorderOf(store);
    const holder = new DatabaseSync(path);
    try {
      await record(recorder, event, [1, 2], () => until('events 1-2', async () => (await store.lastEventSeq('r')) === 2));
      holder.exec('BEGIN IMMEDIATE');
      await record(recorder, event, [3, 4], () => until('the failed append', () => errors.length === 1));
      expect(errors[0]).toMatch(/^store: events 3-4: .* is locked by another process/);
      expect(recorder.unstored().map((e) => e.seq)).toEqual([3, 4]);
      holder.exec('COMMIT');
      await record(recorder, event, [5], () => until('events 3-5', async () => (await store.lastEventSeq('r')) === 5));
      await recorder.close();
      expect((await store.listEvents('r')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(recorder.unstored()).toEqual([]);
      expect(errors).toHaveLength(1);
    } finally {
      if (holder.isTransaction) holder.exec('ROLLBACK');
      holder.close();
      await store.close();
    }
  });

  describe('PostgreSQL', () => {
    const pg = usePostgres({ own: true });
    it('a batch refused while the server is down is written with the next one once it is back', async () => {
      // A short retry budget (default 15 s): the append of 3-4 fails soon after the server stops, as it would later.
      const store = await PostgresStore.open(pg.url, { retryUnavailableMs: 500 });
      const { recorder, errors, event } = await recorderOf(store);
      try {
        await record(recorder, event, [1, 2], () => until('events 1-2', async () => (await store.lastEventSeq('r')) === 2));
        await pg.cluster.stop('immediate');
        await record(recorder, event, [3, 4], () => until('the failed append', () => errors.length >= 1, 60_000));
        expect(errors[0]).toMatch(/^store: events 3-4: /);
        await pg.cluster.start();
        await record(recorder, event, [5], () => until('events 3-5', async () => (await store.lastEventSeq('r').catch(() => 0)) === 5, 60_000));
        await recorder.close();
        expect((await store.listEvents('r')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
        expect(recorder.unstored()).toEqual([]);
      } finally {
        await store.close();
      }
    }, 120_000);
  });
});
