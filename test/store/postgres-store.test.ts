// Runs the Store contract against PostgreSQL (a throwaway cluster; one migrated database, emptied before each test),
// plus what only PostgreSQL has: migrations by several processes at once (on new databases), concurrent writers,
// errors as StoreErrors with the password never shown, a database restart under a live store.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { OwnershipLostError, StoreError, StoreVersionError } from '../../src/store/errors.js';
import { migratePostgres } from '../../src/store/postgres/migrate.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { StoreUnavailableError } from '../../src/store/postgres/pool.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import type { Owner } from '../../src/store/store.js';
import { emptyTables, usePostgres } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';
import { storeContract } from './store-contract.js';
import { notesContract } from './notes-contract.js';

const fixture = usePostgres({ own: true });

/** A fresh database and a cleanup that drops it. */
async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const url = await fixture.cluster.createDatabase();
  return { url, drop: () => fixture.cluster.dropDatabase(new URL(url).pathname.slice(1)) };
}

/**
 * The database of the tests that need a migrated one, empty: migrated once, its tables emptied for each test (a new
 * database per test cost ~0.3 s, ~13 s over this file).
 */
let migrated: Promise<string> | null = null;
async function emptyDatabase(): Promise<string> {
  migrated ??= fixture.cluster.createDatabase().then(async (url) => {
    await (await PostgresStore.open(url)).close();
    return url;
  });
  const url = await migrated;
  await emptyTables(url);
  return url;
}

/** Runs `fn` with a store on the empty migrated database, then closes the store. */
async function withStore(fn: (store: PostgresStore, url: string) => Promise<void>): Promise<void> {
  const url = await emptyDatabase();
  const store = await PostgresStore.open(url);
  try {
    await fn(store, url);
  } finally {
    await store.close();
  }
}

async function sql<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

storeContract('PostgreSQL database in a throwaway cluster', async () => {
  const store = await PostgresStore.open(await emptyDatabase());
  return { store, cleanup: () => store.close() };
});

notesContract('PostgreSQL database in a throwaway cluster', async () => {
  const store = await PostgresStore.open(await emptyDatabase());
  return { store, cleanup: () => store.close() };
});

const OWNER: Owner = { pid: 4242, host: 'host-a' };

describe('PostgreSQL store specifics', () => {
  it('migrates once when eight processes open a new database at the same moment', async () => {
    const { url, drop } = await freshDatabase();
    try {
      const stores = await Promise.all(Array.from({ length: 8 }, (_, i) => PostgresStore.open(url, { max: 2, now: () => 1000 + i })));
      await Promise.all(stores.map((s) => s.close()));
      const rows = await sql<{ version: number; name: string }>(url, 'SELECT version, name FROM schema_migrations ORDER BY version');
      expect(rows).toEqual(POSTGRES_MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    } finally {
      await drop();
    }
  });

  it('applies a migration numbered below the newest recorded: a database at 8 gets 7 (notes, note requests)', async () => {
    const { url, drop } = await freshDatabase();
    try {
      const pool = new pg.Pool({ connectionString: url });
      await migratePostgres(pool, url, 1, POSTGRES_MIGRATIONS.filter((m) => m.version !== 7)).finally(() => pool.end());
      const store = await PostgresStore.open(url, { now: () => 2 });
      try {
        const rows = await sql<{ version: number; applied_at: string }>(url, 'SELECT version, applied_at FROM schema_migrations ORDER BY version');
        expect(rows.map((r) => [r.version, Number(r.applied_at)])).toEqual(POSTGRES_MIGRATIONS.map((m) => [m.version, m.version === 7 ? 2 : 1]));
        await store.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: 1 });
        expect((await store.addNote({ run_id: 'r1', text: 'hi', created_at: 3 })).text).toBe('hi');
        await store.requestControl({ run_id: 'r1', action: 'note', options: { note_id: 1, text: 'hi' }, requested_by: null, requested_at: 3 });
        expect((await store.pendingControls('r1')).map((r) => r.action)).toEqual(['note']);
      } finally {
        await store.close();
      }
    } finally {
      await drop();
    }
  });

  it('keeps event seq gap-free and unique with four writers appending to one run at once', async () => {
    const url = await emptyDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => PostgresStore.open(url, { max: 4 })));
    try {
      await stores[0]!.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: 1 });
      await Promise.all(
        stores.flatMap((store, w) =>
          Array.from({ length: 25 }, (_, i) => store.appendEvent({ run_id: 'r1', type: 'text', payload: { w, i }, at: 10 + i })),
        ),
      );
      const events = await stores[1]!.listEvents('r1');
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(new Set(events.map((e) => JSON.stringify(e.payload))).size).toBe(100);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('serializes two takeovers of one run: one open owner at the end, the second saw the first', async () => {
    const url = await emptyDatabase();
    const [a, b] = await Promise.all([PostgresStore.open(url), PostgresStore.open(url)]);
    try {
      await a.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: 1 });
      await a.startIteration({ run_id: 'r1', number: 1, agent: 'claude', started_at: 2, log_path: null });
      const claims = await Promise.all([
        a.claimRun('r1', { pid: 1, host: 'worker-a' }, 100),
        b.claimRun('r1', { pid: 2, host: 'worker-b' }, 100),
      ]);
      const first = claims.find((c) => c.previous?.host === 'host-a');
      const second = claims.find((c) => c !== first);
      expect(second?.previous?.host).toBe(first?.run.owner_host);
      expect(claims.flatMap((c) => c.interrupted)).toEqual([1]);
      const owners = await sql<{ seq: number; open: boolean }>(url, 'SELECT seq, ended_at IS NULL AS open FROM run_owners WHERE run_id = $1 ORDER BY seq', ['r1']);
      expect(owners).toEqual([{ seq: 1, open: false }, { seq: 2, open: false }, { seq: 3, open: true }]);
      const run = await a.getRun('r1');
      expect(await a.heartbeat('r1', { pid: run!.owner_pid!, host: run!.owner_host! }, 200)).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('lets no write of a fenced-out owner land after the claim that took its run, even while it writes as fast as it can', () =>
    withStore(async (store, url) => {
      const other = await PostgresStore.open(url);
      try {
        await store.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: 1 });
        let written = 0;
        const writer = (async () => {
          for (let seq = 1; ; seq++) {
            try {
              await store.appendEvents([{ run_id: 'r1', seq, type: 'tick', payload: {}, at: seq }], OWNER);
              written = seq;
            } catch (error) {
              return error;
            }
          }
        })();
        await until('a few writes', () => written >= 5);
        await other.claimRun('r1', { pid: 2, host: 'worker-b' }, 100);
        const seenAtClaim = await other.lastEventSeq('r1');
        expect(await writer).toBeInstanceOf(OwnershipLostError);
        expect(written).toBe(seenAtClaim);
        expect((await other.listEvents('r1')).map((e) => e.seq)).toEqual(Array.from({ length: written }, (_, i) => i + 1));
      } finally {
        await other.close();
      }
    }));

  it('refuses a second open owner row at the database level', () =>
    withStore(async (store, url) => {
    await store.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: 1 });
    await expect(
      sql(url, "INSERT INTO run_owners (run_id, seq, pid, host, started_at, heartbeat_at) VALUES ('r1', 2, 1, 'h', 1, 1)"),
    ).rejects.toThrow('run_owners_one_open');
    }));

  it('raises driver errors as StoreError, a duplicate run id included', () =>
    withStore(async (store) => {
    await store.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: 1 });
    const duplicate = store.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: 1 });
    await expect(duplicate).rejects.toBeInstanceOf(StoreError);
    await expect(duplicate).rejects.toThrow('createRun: duplicate key value violates unique constraint "runs_pkey"');
    await expect(store.appendEvent({ run_id: 'nope', type: 'x', payload: null, at: 1 })).rejects.toThrow('appendEvent: no run nope');
    await expect(store.claimRun('nope', OWNER, 1)).rejects.toThrow('claimRun: no run nope');
    }));

  it('stores NUL characters of agent text as U+FFFD instead of failing (PostgreSQL text cannot hold them)', () =>
    withStore(async (store) => {
    await store.createRun({ id: 'r1', agent: 'claude', spec: { p: 'a\u0000b' }, workspace: '/w', owner: OWNER, now: 1 });
    await store.startIteration({ run_id: 'r1', number: 1, agent: 'claude', started_at: 2, log_path: null });
    const row = await store.completeIteration('r1', 1, {
      status: 'failure', exit_code: 1, duration_ms: 1, completion_signal_found: false, error_kind: 'exit_nonzero',
      error_message: 'bad\u0000byte', completed_at: 3,
    });
    expect(row.error_message).toBe('bad\uFFFDbyte');
    expect((await store.getRun('r1'))?.spec).toEqual({ p: 'a\u0000b' });
    const event = await store.appendEvent({ run_id: 'r1', type: 'text', payload: { text: 'x\u0000y' }, at: 4 });
    expect(event.payload).toEqual({ text: 'x\u0000y' });
    }));

  it('fills gaps: a database at 8 without 6 and 7 gets both when opened, keeps its rows', async () => {
    const { url, drop } = await freshDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      expect(await migratePostgres(pool, url, 1, POSTGRES_MIGRATIONS.filter((m) => m.version !== 6 && m.version !== 7))).toEqual([1, 2, 3, 4, 5, 8]);
      await sql(url, "INSERT INTO runs (id, status, agent, spec_json, workspace, created_at, updated_at) VALUES ('r1', 'completed', 'claude', '{}', '/w', 1, 1)");
      const store = await PostgresStore.open(url, { now: () => 5 });
      try {
        expect((await store.listRuns()).map((r) => r.id)).toEqual(['r1']);
        expect(await store.setBudget({ monthly_usd: 3 }, 5)).toEqual({ daily_usd: null, monthly_usd: 3, updated_at: 5 });
      } finally {
        await store.close();
      }
      const rows = await sql<{ version: number; applied_at: string }>(url, 'SELECT version, applied_at FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => [r.version, Number(r.applied_at)])).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((v) => [v, v === 6 || v === 7 ? 5 : 1]));
      expect(await migratePostgres(pool, url, 9)).toEqual([]);
    } finally {
      await pool.end();
      await drop();
    }
  });

  it('refuses a database migrated by a newer ringmaster, naming it without the password', async () => {
    const { url, drop } = await freshDatabase();
    try {
      await (await PostgresStore.open(url)).close();
      await sql(url, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 0)");
      const password = decodeURIComponent(new URL(url).password);
      const opening = PostgresStore.open(url);
      await expect(opening).rejects.toBeInstanceOf(StoreVersionError);
      const error = (await opening.catch((e: unknown) => e)) as Error;
      expect(error.message).toContain(`postgres://ringmaster:***@127.0.0.1:${fixture.cluster.port}/`);
      expect(error.message).toContain('has schema version 99, this ringmaster knows up to');
      expect(error.message).not.toContain(password);
    } finally {
      await drop();
    }
  });

  it('reports an unreachable database as StoreUnavailableError without the password', async () => {
    const url = 'postgres://someone:s3cret-pass@127.0.0.1:1/nothing';
    const opening = PostgresStore.open(url);
    await expect(opening).rejects.toBeInstanceOf(StoreUnavailableError);
    const error = (await opening.catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^opening the PostgreSQL store postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/nothing: database unavailable: /);
    expect(error.message).not.toContain('s3cret-pass');
  });

  it('survives a database restart: unavailable while down (without retries), working again once it is back', async () => {
    const url = await emptyDatabase();
    const store = await PostgresStore.open(url, { retryUnavailableMs: 0 });
    try {
      await store.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: 1 });
      await fixture.cluster.stop('immediate');
      await expect(store.heartbeat('r1', OWNER, 5)).rejects.toBeInstanceOf(StoreUnavailableError);
      await fixture.cluster.start();
      expect(await store.heartbeat('r1', OWNER, 6)).toBe(true);
      expect((await store.getRun('r1'))?.heartbeat_at).toBe(6);
    } finally {
      await store.close();
    }
  });

  it('retries while the database restarts: a write made during the outage lands once it is back, once', () =>
    withStore(async (store) => {
      await store.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: OWNER, now: 1 });
      await store.appendEvent({ run_id: 'r1', seq: 1, type: 'run_started', payload: {}, at: 2 });
      await fixture.cluster.stop('immediate');
      const during = store.appendEvent({ run_id: 'r1', seq: 2, type: 'iteration_started', payload: {}, at: 3, iteration: 1 });
      await new Promise((r) => setTimeout(r, 1000));
      await fixture.cluster.start();
      expect(await during).toMatchObject({ seq: 2, type: 'iteration_started' });
      expect((await store.appendEvent({ run_id: 'r1', seq: 2, type: 'iteration_started', payload: {}, at: 3, iteration: 1 })).seq).toBe(2);
      await expect(store.appendEvent({ run_id: 'r1', seq: 2, type: 'other', payload: {}, at: 9 })).rejects.toThrow('appendEvent: run r1 already has event 2');
      expect((await store.listEvents('r1')).map((e) => e.seq)).toEqual([1, 2]);
    }));
});
