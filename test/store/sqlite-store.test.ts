// Runs the Store contract against SQLite, plus what only SQLite has: the file, WAL, migrations.
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { NoStoreError, StoreVersionError } from '../../src/store/errors.js';
import { openStore } from '../../src/store/open-store.js';
import { dataDir, databasePath } from '../../src/store/paths.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { migrate } from '../../src/store/sqlite/migrate.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { writeLegacyDatabase } from './legacy-db.js';
import { storeContract } from './store-contract.js';
import { notesContract } from './notes-contract.js';

storeContract('SQLite file in a temporary data directory', async () => {
  const home = await mkdtemp(join(tmpdir(), 'rm-store-'));
  const store = await openStore({ env: { RINGMASTER_HOME: home } });
  return {
    store,
    async cleanup() {
      await store.close();
      await rm(home, { recursive: true, force: true });
    },
  };
});

notesContract('SQLite file in a temporary data directory', async () => {
  const home = await mkdtemp(join(tmpdir(), 'rm-store-'));
  const store = await openStore({ env: { RINGMASTER_HOME: home } });
  return {
    store,
    async cleanup() {
      await store.close();
      await rm(home, { recursive: true, force: true });
    },
  };
});

describe('SQLite store specifics', () => {
  it('puts the database in the data directory (mode 0700), in WAL mode, with every migration recorded', async () => {
    const home = join(await mkdtemp(join(tmpdir(), 'rm-store-')), 'data');
    try {
      const store = await openStore({ env: { RINGMASTER_HOME: home }, now: () => 1234 });
      await store.close();
      expect(existsSync(databasePath(home))).toBe(true);
      expect(statSync(home).mode & 0o777).toBe(0o700);
      const db = new DatabaseSync(databasePath(home));
      try {
        expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
        expect(db.prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all().map((r) => ({ ...r }))).toEqual(
          SQLITE_MIGRATIONS.map((m) => ({ version: m.version, name: m.name, applied_at: 1234 })),
        );
      } finally {
        db.close();
      }
    } finally {
      await rm(dirname(home), { recursive: true, force: true });
    }
  });

  it('defaults to $XDG_DATA_HOME/ringmaster, then ~/.local/share/ringmaster', () => {
    expect(dataDir({ RINGMASTER_HOME: '/data/rm', XDG_DATA_HOME: '/x' })).toBe('/data/rm');
    expect(dataDir({ XDG_DATA_HOME: '/x', HOME: '/home/u' })).toBe('/x/ringmaster');
    expect(dataDir({ XDG_DATA_HOME: 'relative', HOME: '/home/u' })).toBe('/home/u/.local/share/ringmaster');
    expect(dataDir({ HOME: '/home/u' })).toBe('/home/u/.local/share/ringmaster');
  });

  it('keeps the rows across close and reopen, and does not re-run migrations', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rm-store-'));
    try {
      const first = await openStore({ env: { RINGMASTER_HOME: home } });
      await first.createRun({ id: 'r1', agent: 'claude', spec: { a: 1 }, workspace: home, owner: { pid: 1, host: 'h' }, now: 5 });
      await first.startIteration({ run_id: 'r1', number: 1, agent: 'claude', started_at: 6, log_path: null });
      await first.close();
      const second = await openStore({ env: { RINGMASTER_HOME: home }, create: false });
      expect((await second.getRun('r1'))?.spec).toEqual({ a: 1 });
      expect((await second.getIteration('r1', 1))?.status).toBe('running');
      await second.close();
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('refuses to create a database when asked not to', async () => {
    await expect(openStore({ env: { RINGMASTER_HOME: '/nonexistent/rm-home' }, create: false })).rejects.toThrow(NoStoreError);
    await expect(openStore({ env: { RINGMASTER_HOME: '/nonexistent/rm-home' }, create: false })).rejects.toThrow(
      "no ringmaster runs yet (no database for /nonexistent/rm-home): start one with 'ringmaster run'",
    );
    expect(existsSync('/nonexistent/rm-home')).toBe(false);
  });

  it("imports a workspace's legacy .ringmaster/ringmaster.db once, every row, keyed by the workspace's real path", async () => {
    const root = await mkdtemp(join(tmpdir(), 'rm-store-'));
    const workspace = join(root, 'ws');
    const home = join(root, 'home');
    try {
      mkdirSync(join(workspace, '.ringmaster'), { recursive: true });
      writeLegacyDatabase(join(workspace, '.ringmaster', 'ringmaster.db'));
      for (let i = 0; i < 2; i++) {
        const store = await openStore({ env: { RINGMASTER_HOME: home }, workspace, now: () => 1000 });
        try {
          const runs = await store.listRuns({ workspace: realpathSync(workspace) });
          expect(runs.map((r) => [r.id, r.status, r.kind, r.workspace, r.totals.iterations, r.totals.cost_usd])).toEqual([
            ['old', 'completed', 'prompt', realpathSync(workspace), 1, 0.5],
          ]);
          expect((await store.listEvents('old')).map((e) => [e.seq, e.type])).toEqual([[1, 'run_started'], [2, 'run_finished']]);
          expect((await store.listCheckpoints('old')).map((c) => [c.iteration, c.commit_sha, c.snapshot])).toEqual([[1, 'abc', null]]);
          expect((await store.listErrors('old')).map((e) => e.kind)).toEqual(['x']);
        } finally {
          await store.close();
        }
      }
      const db = new DatabaseSync(databasePath(home));
      expect(db.prepare('SELECT path, imported_at, runs FROM imports').all().map((r) => ({ ...r }))).toEqual([
        { path: join(workspace, '.ringmaster', 'ringmaster.db'), imported_at: 1000, runs: 1 },
      ]);
      db.close();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('fills gaps: a database at 8 without 6 and 7 (migrations taken out of order by branches) gets both and keeps its rows', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rm-store-'));
    const path = join(dir, 'x.db');
    try {
      const old = new DatabaseSync(path);
      expect(migrate(old, path, 1, SQLITE_MIGRATIONS.filter((m) => m.version !== 6 && m.version !== 7))).toEqual([1, 2, 3, 4, 5, 8]);
      old.exec("INSERT INTO runs (id, status, agent, spec_json, workspace, created_at, updated_at) VALUES ('r1', 'completed', 'claude', '{}', '/w', 1, 1)");
      old.close();
      const store = new SqliteStore(path, { now: () => 5 });
      try {
        expect((await store.listRuns()).map((r) => r.id)).toEqual(['r1']);
        expect(await store.setBudget({ daily_usd: 2 }, 5)).toEqual({ daily_usd: 2, monthly_usd: null, updated_at: 5 });
      } finally {
        await store.close();
      }
      const db = new DatabaseSync(path);
      try {
        expect(db.prepare('SELECT version, applied_at FROM schema_migrations ORDER BY version').all().map((r) => ({ ...r }))).toEqual(
          [1, 2, 3, 4, 5, 6, 7, 8].map((version) => ({ version, applied_at: version === 6 || version === 7 ? 5 : 1 })),
        );
        expect(migrate(db, path, 9)).toEqual([]);
      } finally {
        db.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('applies a migration numbered below the newest recorded: a database at 8 gets 7 (notes, note requests)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rm-store-'));
    const path = join(dir, 'x.db');
    try {
      const db = new DatabaseSync(path);
      migrate(db, path, 1, SQLITE_MIGRATIONS.filter((m) => m.version !== 7));
      db.close();
      const store = new SqliteStore(path, { now: () => 2 });
      try {
        const check = new DatabaseSync(path);
        const rows = check.prepare('SELECT version, applied_at FROM schema_migrations ORDER BY version').all() as Array<{ version: number; applied_at: number }>;
        check.close();
        expect(rows.map((r) => [r.version, r.applied_at])).toEqual(SQLITE_MIGRATIONS.map((m) => [m.version, m.version === 7 ? 2 : 1]));
        await store.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: { pid: 1, host: 'h' }, now: 1 });
        expect((await store.addNote({ run_id: 'r1', text: 'hi', created_at: 3 })).text).toBe('hi');
        await store.requestControl({ run_id: 'r1', action: 'note', options: { note_id: 1, text: 'hi' }, requested_by: null, requested_at: 3 });
        expect((await store.pendingControls('r1')).map((r) => r.action)).toEqual(['note']);
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a database written by a newer ringmaster', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rm-store-'));
    const path = join(dir, 'x.db');
    try {
      await new SqliteStore(path).close();
      const db = new DatabaseSync(path);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, ?, 0)').run('future');
      db.close();
      expect(() => new SqliteStore(path)).toThrow(StoreVersionError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('opens an up-to-date database and reads it while another process holds its write lock; a write waits for it', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rm-store-'));
    try {
      await (await openStore({ env: { RINGMASTER_HOME: home } })).close();
      const holder = new DatabaseSync(databasePath(home));
      holder.exec('BEGIN IMMEDIATE');
      const store = await openStore({ env: { RINGMASTER_HOME: home } });
      try {
        expect(await store.listRuns()).toEqual([]);
        let created = false;
        // Its first attempt runs (and finds the database locked) before createRun returns: it is retried later.
        const create = store.createRun({ id: 'r', agent: 'claude', spec: {}, workspace: '/w', owner: { pid: 1, host: 'h' }, now: 1 }).then(() => (created = true));
        await Promise.resolve();
        expect(created).toBe(false);
        holder.exec('COMMIT');
        await create;
        expect((await store.getRun('r'))?.status).toBe('running');
      } finally {
        if (holder.isTransaction) holder.exec('ROLLBACK');
        holder.close();
        await store.close();
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
