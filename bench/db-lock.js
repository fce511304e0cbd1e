// Bench: `ringmaster serve` (bench/manager-server.js) driving 10 loops while another process holds the SQLite
// database's write lock for 20 s (BEGIN IMMEDIATE, as `sqlite3` in a shell or a backup tool would). Measures the
// server's event-loop delay over the lock window and the latency of GET /api/health polled every 100 ms, with
// the store on the main thread (before) and in its worker thread (after, what serve does), in the same run.
// Afterwards every run's events must be gap-free and no iteration recorded as interrupted.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..');
const NODE = process.execPath;
const HOLD_MS = Number(process.env.BENCH_HOLD_MS ?? 20_000);
const LOOPS = 10;

/** A process holding the write lock of `db` for `ms`; resolves once it holds it. */
async function holdLock(db, ms) {
  const code = `const { DatabaseSync } = require('node:sqlite'); const c = new DatabaseSync(process.argv[1]); c.exec('PRAGMA busy_timeout = 10000');
c.exec('BEGIN IMMEDIATE'); process.stdout.write('locked\\n'); setTimeout(() => { c.exec('COMMIT'); c.close(); }, Number(process.argv[2]));`;
  const child = spawn(NODE, ['-e', code, db, String(ms)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  return { pid: child.pid, done: new Promise((resolve) => child.once('exit', resolve)) };
}

/** Polls GET /api/health every 100 ms until `stop()`; returns the latencies (ms). */
function pollHealth(url) {
  const latencies = [];
  let failures = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      // A reset connection counts as an answer as slow as the time it took to fail (and is counted).
      await fetch(`${url}/api/health`).then((r) => r.text(), () => failures++);
      latencies.push(performance.now() - t);
      await sleep(100);
    }
  })();
  return { stop: async () => ((running = false), await loop, { latencies, failures }) };
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? null;
const round = (n) => (n === null ? null : Math.round(n * 10) / 10);

async function benchMode(thread) {
  const root = mkdtempSync(join(tmpdir(), 'ringmaster-bench-lock-'));
  const home = join(root, 'home');
  const server = spawn(NODE, [join(ROOT, 'bench', 'manager-server.js')], {
    env: { ...process.env, RINGMASTER_HOME: home, BENCH_MAX_CONCURRENT: String(LOOPS), BENCH_STORE_THREAD: thread },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let log = '';
  server.stderr.on('data', (c) => (log += c));
  const lines = createInterface({ input: server.stdout });
  const next = () => new Promise((resolve) => lines.once('line', (line) => resolve(JSON.parse(line))));
  try {
    const { url } = await next();
    const agent = join(ROOT, 'bench', 'agents', 'sleep1.sh');
    for (let i = 0; i < LOOPS; i++) {
      const workspace = join(root, `ws-${i}`);
      mkdirSync(workspace);
      const response = await fetch(`${url}/api/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ workspace, prompt: 'work', agent_command: [agent], unlimited: true, max_runtime: '120s', cooldown: 0, checkpoint_interval: 0 }),
      });
      if (response.status !== 201) throw new Error(`POST /api/runs: ${response.status} ${await response.text()}`);
    }
    await sleep(3000);
    const health = pollHealth(url);
    server.stdin.write('measure\n');
    const holder = await holdLock(join(home, 'ringmaster.db'), HOLD_MS);
    await holder.done;
    server.stdin.write('snapshot\n');
    const report = await next();
    const polled = await health.stop();
    const latencies = polled.latencies.sort((a, b) => a - b);
    // Let the runs catch up, then stop them all and check what was recorded.
    await sleep(3000);
    const done = next();
    server.kill('SIGTERM');
    await done;
    const db = new DatabaseSync(join(home, 'ringmaster.db'), { readOnly: true });
    const gaps = db.prepare('SELECT run_id, COUNT(*) AS n, MAX(seq) AS top FROM events GROUP BY run_id HAVING n <> top').all().length;
    const wrong = db.prepare("SELECT COUNT(*) AS n FROM iterations WHERE status = 'interrupted' AND error_message LIKE '%crash%'").get().n;
    const iterations = db.prepare('SELECT COUNT(*) AS n FROM iterations').get().n;
    db.close();
    return {
      store_thread: thread,
      hold_ms: HOLD_MS,
      event_loop_lag_ms: report.event_loop_lag_ms,
      health_ms: { requests: latencies.length, p50: round(pct(latencies, 50)), p99: round(pct(latencies, 99)), max: round(latencies.at(-1) ?? null), failed: polled.failures },
      iterations,
      runs_with_event_gaps: gaps,
      iterations_recorded_as_crashed: wrong,
      store_errors_logged: (log.match(/store: (?!waiting|resumed)/g) ?? []).length,
      lock_notices: log.split('\n').filter((l) => l.startsWith('store: waiting') || l.startsWith('store: resumed')),
    };
  } finally {
    if (server.exitCode === null) server.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  }
}

const results = [];
for (const thread of ['main', 'worker']) results.push(await benchMode(thread));
process.stdout.write(`${JSON.stringify({ bench: 'db-lock', node: process.version, cpus: (await import('node:os')).cpus().length, results }, null, 2)}\n`);
