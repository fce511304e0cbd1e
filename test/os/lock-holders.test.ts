// Who holds a file lock, read from /proc/locks: the parser, and a real SQLite write lock held by another process.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';
import { lockHolders, parseProcLocks } from '../../src/os/lock-holders.js';
import { sqliteLockFiles } from '../../src/store/paths.js';

it('parses /proc/locks lines, skipping waiters and what it cannot read', () => {
  const text = [
    '1: POSIX  ADVISORY  WRITE 11341 fe:00:2155307 120 120',
    '2: POSIX  ADVISORY  READ 11342 fe:00:2155305 1073741826 1073742335',
    '2: -> POSIX  ADVISORY  WRITE 999 fe:00:2155307 120 120',
    '3: OFDLCK ADVISORY  WRITE -1 08:01:77 0 EOF',
    'garbage',
  ].join('\n');
  expect(parseProcLocks(text)).toEqual([
    { access: 'WRITE', pid: 11341, inode: 2155307 },
    { access: 'READ', pid: 11342, inode: 2155305 },
    { access: 'WRITE', pid: -1, inode: 77 },
  ]);
});

it.runIf(process.platform === 'linux')('names the process holding a SQLite write lock, never this one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rm-lockholders-'));
  const db = join(dir, 'x.db');
  const code = `const { DatabaseSync } = require('node:sqlite'); const c = new DatabaseSync(process.argv[1]); c.exec('PRAGMA journal_mode = WAL');
c.exec('CREATE TABLE t (a)'); c.exec('BEGIN IMMEDIATE'); process.stdout.write('locked\\n'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', code, db], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    expect(lockHolders(sqliteLockFiles(db))).toEqual([child.pid]);
    expect(lockHolders(sqliteLockFiles(db), child.pid ?? 0)).toEqual([]);
    expect(lockHolders([join(dir, 'absent')])).toEqual([]);
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
