// What the PostgreSQL store adds for many processes: new events and control requests announced by
// LISTEN/NOTIFY (also after a database restart), global event ids that a poller can follow without
// skipping a late commit, migration of a version-1 database, import of a legacy SQLite database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/store/postgres/migrate.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import type { Owner } from '../../src/store/store.js';
import { usePostgres } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';
import { writeLegacyDatabase } from './legacy-db.js';

const fixture = usePostgres({ own: true });
const OWNER: Owner = { pid: 4242, host: 'host-a' };

async function withStore(fn: (store: PostgresStore, url: string) => Promise<void>): Promise<void> {
  const url = await fixture.cluster.createDatabase();
  const store = await PostgresStore.open(url);
  try {
    await fn(store, url);
  } finally {
    await store.close();
    await fixture.cluster.dropDatabase(new URL(url).pathname.slice(1));
  }
}

describe('PostgreSQL store across processes', () => {
  it('announces each new event and control request to watchers, in commit order', () =>
    withStore(async (store) => {
      await store.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: 1 });
      const events: unknown[] = [];
      const controls: unknown[] = [];
      await store.watch('events', (p) => events.push(p));
      await store.watch('control', (p) => controls.push(p));
      const e1 = await store.appendEvent({ run_id: 'r1', seq: 1, type: 'run_started', payload: {}, at: 2 });
      await store.appendEvent({ run_id: 'r1', seq: 2, type: 'iteration_started', payload: {}, at: 3, iteration: 1 });
      const stop = await store.requestControl({ run_id: 'r1', action: 'stop', requested_at: 4 });
      await until('two events and one control notification', () => events.length === 2 && controls.length === 1);
      const first = (await store.listEventsAfterId(0, 10))[0];
      expect(events).toEqual([
        { id: first?.id, run_id: 'r1', seq: e1.seq },
        { id: (first?.id ?? 0) + 1, run_id: 'r1', seq: 2 },
      ]);
      expect(controls).toEqual([{ id: stop.id, run_id: 'r1', action: 'stop' }]);
    }));

  it('watches again after a database restart and says so, so the watcher can catch up', () =>
    withStore(async (store) => {
      await store.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: 1 });
      const seen: unknown[] = [];
      let ready = 0;
      await store.watch('events', (p) => seen.push(p), () => ready++);
      expect(ready).toBe(1);
      await fixture.cluster.stop('immediate');
      await fixture.cluster.start();
      await until('the watcher to reconnect', () => ready === 2);
      await store.appendEvent({ run_id: 'r1', seq: 1, type: 'run_started', payload: {}, at: 2 });
      await until('the event after the restart', () => seen.length === 1);
      expect(seen).toMatchObject([{ run_id: 'r1', seq: 1 }]);
    }));

  it('gives a poller following global event ids every event exactly once while eight writers append', () =>
    withStore(async (store, url) => {
      const writers = await Promise.all(Array.from({ length: 8 }, () => PostgresStore.open(url, { max: 3 })));
      try {
        for (let r = 0; r < 8; r++) await store.createRun({ id: `r${r}`, agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: 1 });
        const seen: string[] = [];
        let cursor = 0;
        let writing = true;
        const poller = (async () => {
          while (writing || cursor < (await store.lastEventId())) {
            for (const e of await store.listEventsAfterId(cursor, 50)) {
              seen.push(`${e.run_id}:${e.seq}`);
              cursor = e.id;
            }
          }
        })();
        await Promise.all(
          writers.map(async (writer, r) => {
            for (let seq = 1; seq <= 40; seq++) await writer.appendEvent({ run_id: `r${r}`, seq, type: 'text', payload: { seq }, at: seq });
          }),
        );
        writing = false;
        await poller;
        expect(seen).toHaveLength(320);
        expect(new Set(seen).size).toBe(320);
      } finally {
        await Promise.all(writers.map((w) => w.close()));
      }
    }));

  it('migrates a version-1 database with rows: events get global ids in their order', async () => {
    const url = await fixture.cluster.createDatabase();
    const pool = new pg.Pool({ connectionString: url });
    try {
      await migratePostgres(pool, url, 1, POSTGRES_MIGRATIONS.filter((m) => m.version === 1));
      await pool.query("INSERT INTO runs VALUES ('old', 'completed', NULL, 'claude', '{}', '/w', NULL, NULL, 1, 2, 2)");
      await pool.query("INSERT INTO events VALUES ('old', 1, 1, 'a', NULL, '{}'), ('old', 2, 2, 'b', NULL, '{}')");
      await pool.end();
      const store = await PostgresStore.open(url);
      try {
        expect(await store.getRun('old')).toMatchObject({ kind: 'prompt', meta: {} });
        const events = await store.listEventsAfterId(0, 10);
        expect(events.map((e) => [e.seq, e.type])).toEqual([[1, 'a'], [2, 'b']]);
        expect(events[0]!.id).toBeLessThan(events[1]!.id);
      } finally {
        await store.close();
      }
    } finally {
      if (!pool.ended) await pool.end();
      await fixture.cluster.dropDatabase(new URL(url).pathname.slice(1));
    }
  });

  it("imports a workspace's legacy SQLite database once, every row", () =>
    withStore(async (store) => {
      const dir = mkdtempSync(join(tmpdir(), 'rm-pg-import-'));
      try {
        const path = join(dir, 'ringmaster.db');
        writeLegacyDatabase(path);
        expect(await store.importDatabase(path, 1000, '/real/ws')).toBe(1);
        expect(await store.importDatabase(path, 2000, '/real/ws')).toBe(0);
        const [run] = await store.listRuns({ workspace: '/real/ws' });
        expect([run?.id, run?.status, run?.totals.iterations, run?.totals.cost_usd, run?.totals.runtime_ms]).toEqual(['old', 'completed', 1, 0.5, 10]);
        expect((await store.getIteration('old', 1))?.completion_signal_found).toBe(true);
        expect((await store.listEvents('old')).map((e) => [e.seq, e.type])).toEqual([[1, 'run_started'], [2, 'run_finished']]);
        expect((await store.listCheckpoints('old')).map((c) => c.commit_sha)).toEqual(['abc']);
        expect((await store.listErrors('old')).map((e) => e.kind)).toEqual(['x']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }));
});
