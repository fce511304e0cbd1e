// Runs the Store contract against SQLite, plus what only SQLite has: the file, WAL, migrations.
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { NoStoreError, StoreVersionError } from '../../src/store/errors.js';
import { openStore } from '../../src/store/open-store.js';
import { databasePath } from '../../src/store/paths.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite-migrations.js';
import { storeContract } from './store-contract.js';

storeContract('SQLite file in a temporary workspace', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'rm-store-'));
  const store = openStore(dir);
  return {
    store,
    async cleanup() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite store specifics', () => {
  it('puts the database in .ringmaster/ with a .gitignore, in WAL mode, with every migration recorded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rm-store-'));
    try {
      const store = openStore(dir, { now: () => 1234 });
      await store.close();
      expect(existsSync(databasePath(dir))).toBe(true);
      expect(readFileSync(join(dir, '.ringmaster', '.gitignore'), 'utf8')).toContain('\n*\n');
      const db = new DatabaseSync(databasePath(dir));
      try {
        expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
        expect(db.prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all().map((r) => ({ ...r }))).toEqual(
          SQLITE_MIGRATIONS.map((m) => ({ version: m.version, name: m.name, applied_at: 1234 })),
        );
      } finally {
        db.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps the rows across close and reopen, and does not re-run migrations', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rm-store-'));
    try {
      const first = openStore(dir);
      await first.createRun({ id: 'r1', agent: 'claude', spec: { a: 1 }, workspace: dir, owner: { pid: 1, host: 'h' }, now: 5 });
      await first.startIteration({ run_id: 'r1', number: 1, agent: 'claude', started_at: 6, log_path: null });
      await first.close();
      const second = openStore(dir, { create: false });
      expect((await second.getRun('r1'))?.spec).toEqual({ a: 1 });
      expect((await second.getIteration('r1', 1))?.status).toBe('running');
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a workspace without a database when asked not to create one', () => {
    expect(() => openStore('/nonexistent/ws', { create: false })).toThrow(NoStoreError);
    expect(() => openStore('/nonexistent/ws', { create: false })).toThrow(
      'no ringmaster runs in /nonexistent/ws (no .ringmaster/ringmaster.db); use --cwd to pick another workspace',
    );
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
});
