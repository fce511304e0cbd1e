// Another process holds the SQLite database (a backup, `sqlite3` in a shell with BEGIN IMMEDIATE) for longer than
// the 5 s busy timeout while a run ends an iteration, through the real CLI: the run waits for the database, says
// who holds it, and records exactly what happened (the iteration complete, not interrupted, the run completed,
// events gap-free). Needs `npm run build`.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A process that, once `go` exists, takes the database's write lock, says so in `locked`, holds it `ms`, then commits. */
const HOLDER = `
const { DatabaseSync } = require('node:sqlite');
const { existsSync, writeFileSync } = require('node:fs');
const [db, go, locked, ms] = process.argv.slice(1);
const wait = () => {
  if (!existsSync(go)) return setTimeout(wait, 20);
  const conn = new DatabaseSync(db);
  conn.exec('PRAGMA busy_timeout = 5000');
  conn.exec('BEGIN IMMEDIATE');
  writeFileSync(locked, String(process.pid));
  setTimeout(() => { conn.exec('COMMIT'); conn.close(); }, Number(ms));
};
wait();
`;

it('a run whose database is locked for 7 s when its iteration ends waits, says by whom, and records the truth', async () => {
  const ws = mkdtempSync(join(tmpdir(), 'rm-locked-ws-'));
  const home = mkdtempSync(join(tmpdir(), 'rm-locked-home-'));
  dirs.push(ws, home);
  writeFileSync(join(ws, 'PROMPT.md'), 'Work.\n');
  const go = join(ws, 'go');
  const locked = join(ws, 'locked');
  // The agent asks for the lock, waits until it is held, then signals completion.
  const agent = join(ws, 'agent.sh');
  writeFileSync(
    agent,
    `#!/bin/sh\ncat >/dev/null\n: > "${go}"\nwhile [ ! -f "${locked}" ]; do sleep 0.05; done\n` +
      `echo 'all done <promise>COMPLETE</promise>'\n`,
    { mode: 0o755 },
  );
  const env = cleanEnv({ RINGMASTER_HOME: home });
  const holder = spawn(process.execPath, ['-e', HOLDER, join(home, 'ringmaster.db'), go, locked, '7000'], { stdio: 'ignore' });
  children.push(holder);
  const run = await runCli(['run', '--agent-command', agent, '--max-iterations', '2', '--checkpoint-interval', '0'], { cwd: ws, env });
  await until('the holder to end', () => holder.exitCode !== null);
  expect(run.stderr).toContain(`waiting for the database (locked by pid ${holder.pid})`);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).not.toContain('WARNING: store');
  const db = new DatabaseSync(join(home, 'ringmaster.db'), { readOnly: true });
  try {
    const runs = db.prepare('SELECT id, status, stop_reason FROM runs').all();
    expect(runs.map((r) => [r.status, r.stop_reason])).toEqual([['completed', 'success_signal']]);
    const rows = db.prepare('SELECT number, status, cost_usd, error_message FROM iterations ORDER BY number').all();
    expect(rows.map((r) => ({ ...r }))).toEqual([{ number: 1, status: 'complete', cost_usd: null, error_message: null }]);
    const seqs = db.prepare('SELECT seq FROM events ORDER BY seq').all().map((r) => r.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(db.prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'run_finished'").get()).toEqual({ n: 1 });
    // Once writable again, the run's events say how long it waited, and for whom.
    const warnings = db.prepare("SELECT json_extract(payload_json, '$.message') AS m FROM events WHERE type = 'warning'").all().map((r) => String(r.m));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^the database was locked by pid ${holder.pid}: the run's writes waited \\d+\\.\\ds, nothing was lost$`));
  } finally {
    db.close();
  }
  expect(existsSync(locked)).toBe(true);
}, 60_000);
