// A busy server's store checkpoints its WAL from a worker thread: the writing connection never does it itself
// (wal_autocheckpoint = 0), and what is written reaches the database file anyway. Uses the built dist/.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { expect, it } from 'vitest';
import type * as StoreModule from '../../src/store/index.js';
import { ROOT } from '../helpers/cli.js';

const { openStore, databasePath } = (await import(join(ROOT, 'dist', 'store', 'index.js'))) as typeof StoreModule;

it('writes go through the WAL into the database file while the writer never checkpoints', async () => {
  const home = mkdtempSync(join(tmpdir(), 'rm-checkpoint-'));
  try {
    const store = await openStore({ env: { RINGMASTER_HOME: home }, backgroundCheckpoints: true });
    const path = databasePath(home);
    const before = statSync(path).size;
    await store.createRun({ id: 'r', agent: 'claude', spec: {}, workspace: home, owner: { pid: 1, host: 'h' }, now: 1 });
    for (let i = 1; i <= 2000; i++) await store.appendEvents([{ run_id: 'r', seq: i, type: 'warning', payload: { message: 'x'.repeat(200) }, at: i }]);
    // The checkpoint thread runs every second: wait until it has copied the WAL into the database file.
    for (let i = 0; i < 200 && statSync(path).size === before; i++) await new Promise((r) => setTimeout(r, 50));
    expect(statSync(path).size).toBeGreaterThan(before + 200 * 2000 * 0.9);
    await store.close();
    const db = new DatabaseSync(path);
    expect((db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n).toBe(2000);
    db.close();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
