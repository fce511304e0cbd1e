// Evaluates pg-boss 12 on this machine for Ringmaster's workers (issue 13): kill -9 takeover with
// heartbeats, cancel latency through the job's abort signal, the 24 h job cap and continuing a run as a
// new job, LISTEN/NOTIFY fan-out latency. Starts its own throwaway PostgreSQL cluster; workers are separate
// processes (bench/pgboss/worker.js). Writes bench/results/pgboss-eval.json and prints a summary.
// Usage: node bench/pgboss-eval.js   (BENCH_TAKEOVER_TRIALS=10 BENCH_CANCEL_TRIALS=10 BENCH_NOTIFY_COUNT=500)
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { startPgCluster } from '../test/helpers/pg-cluster.ts';
import { ROOT, machine, sleep } from './lib/proc.js';

const int = (name, fallback) => (process.env[name] ? Number.parseInt(process.env[name], 10) : fallback);
const TAKEOVER_TRIALS = int('BENCH_TAKEOVER_TRIALS', 10);
const CANCEL_TRIALS = int('BENCH_CANCEL_TRIALS', 10);
const NOTIFY_COUNT = int('BENCH_NOTIFY_COUNT', 500);
const WORKER = join(ROOT, 'bench', 'pgboss', 'worker.js');

/** Summary statistics of a list of numbers (ms). */
function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  const round = (v) => Math.round(v * 100) / 100;
  return { n: sorted.length, min: round(sorted[0]), median: round(at(50)), p99: round(at(99)), max: round(sorted.at(-1)) };
}

/** A worker process and the JSON events it prints. */
class Worker {
  constructor(name, config) {
    this.name = name;
    this.events = [];
    this.waiters = [];
    this.child = spawn(process.execPath, [WORKER, JSON.stringify({ ...config, name })], { stdio: ['ignore', 'pipe', 'inherit'] });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const event = JSON.parse(line);
      this.events.push(event);
      for (const w of [...this.waiters]) if (w.match(event)) w.resolve(event);
    });
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
  }

  /** The first event (already seen or to come) that matches, or a rejection after `ms`. */
  next(match, ms = 60_000) {
    const seen = this.events.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = { match, resolve: (e) => { clearTimeout(timer); this.waiters.splice(this.waiters.indexOf(waiter), 1); resolve(e); } };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`${this.name}: no matching event within ${ms} ms`));
      }, ms);
      this.waiters.push(waiter);
    });
  }

  async kill(signal = 'SIGKILL') {
    this.child.kill(signal);
    await this.exited;
  }
}

/** The first of several workers to print a matching event. */
function firstOf(workers, match, ms) {
  return Promise.any(workers.map((w) => w.next(match, ms).then((event) => ({ worker: w, event }))));
}

async function takeover(boss, url) {
  const queue = 'takeover';
  await boss.createQueue(queue, { policy: 'exclusive', heartbeatSeconds: 10, expireInSeconds: 3600, retryLimit: 1000, retryDelay: 0, notify: true });
  const config = { url, queues: [queue], refresh: 1, polling: 0.5 };
  let workers = [new Worker('w1', config), new Worker('w2', config)];
  await Promise.all(workers.map((w) => w.next((e) => e.ev === 'ready')));
  const trials = [];
  for (let trial = 0; trial < TAKEOVER_TRIALS; trial++) {
    const id = await boss.send(queue, { trial }, { singletonKey: `run-${trial}` });
    const first = await firstOf(workers, (e) => e.ev === 'start' && e.id === id, 30_000);
    // Kill at a different phase of the 1 s heartbeat refresh each trial.
    await sleep(1000 + ((trial * 370) % 1000));
    const killedAt = Date.now();
    await first.worker.kill('SIGKILL');
    const others = workers.filter((w) => w !== first.worker);
    const second = await firstOf(others, (e) => e.ev === 'start' && e.id === id, 60_000);
    trials.push({ trial, takeover_ms: second.event.t - killedAt, retry: second.event.retry });
    process.stderr.write(`takeover trial ${trial}: ${second.event.t - killedAt} ms (retry ${second.event.retry})\n`);
    await boss.cancel(queue, id);
    await second.worker.next((e) => e.ev === 'abort' && e.id === id, 30_000);
    const replacement = new Worker(`w${3 + trial}`, config);
    await replacement.next((e) => e.ev === 'ready');
    workers = [...others, replacement];
  }
  await Promise.all(workers.map((w) => w.kill('SIGTERM')));
  return { heartbeat_seconds: 10, heartbeat_refresh_seconds: 1, supervise_interval_seconds: 1, polling_seconds: 0.5, trials, takeover_ms: summary(trials.map((t) => t.takeover_ms)) };
}

async function cancel(boss, url, withHeartbeat) {
  const queue = withHeartbeat ? 'cancel-hb' : 'cancel-nohb';
  await boss.createQueue(queue, { policy: 'exclusive', expireInSeconds: 3600, retryLimit: 0, notify: true, ...(withHeartbeat ? { heartbeatSeconds: 10 } : {}) });
  const worker = new Worker(`c-${queue}`, { url, queues: [queue], refresh: withHeartbeat ? 1 : undefined, polling: 0.5 });
  await worker.next((e) => e.ev === 'ready');
  const latencies = [];
  let never = 0;
  const trials = withHeartbeat ? CANCEL_TRIALS : Math.min(3, CANCEL_TRIALS);
  for (let trial = 0; trial < trials; trial++) {
    const id = await boss.send(queue, { trial }, { singletonKey: `run-${trial}` });
    await worker.next((e) => e.ev === 'start' && e.id === id, 30_000);
    await sleep(300 + ((trial * 290) % 1000));
    const cancelledAt = Date.now();
    await boss.cancel(queue, id);
    try {
      const aborted = await worker.next((e) => e.ev === 'abort' && e.id === id, withHeartbeat ? 15_000 : 12_000);
      latencies.push(aborted.t - cancelledAt);
    } catch {
      never++;
      await worker.kill('SIGKILL');
      return { heartbeat: withHeartbeat, aborted: latencies.length, never_aborted_within_12s: never + (trials - trial - 1), latency_ms: latencies.length ? summary(latencies) : null };
    }
  }
  await worker.kill('SIGTERM');
  return { heartbeat: withHeartbeat, aborted: latencies.length, never_aborted_within_12s: never, latency_ms: summary(latencies) };
}

async function jobCap(boss, url) {
  const result = {};
  try {
    await boss.createQueue('too-long', { expireInSeconds: 24 * 3600 + 1 });
    result.over_24h = 'accepted';
  } catch (error) {
    result.over_24h = `refused: ${error.message}`;
  }
  // A run longer than the cap continues as a new job: in one transaction, complete the current job and
  // send the next one with the same singleton key (the exclusive policy allows one queued-or-active job per
  // run). Here the "cap" is 4 s; the gap is from the continuation's commit to the next job's handler start.
  const queue = 'continue';
  await boss.createQueue(queue, { policy: 'exclusive', expireInSeconds: 4, retryLimit: 5, notify: true, heartbeatSeconds: 10 });
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const gaps = [];
  let segments = 0;
  const worker = new PgBoss({ connectionString: url, superviseIntervalSeconds: 1, monitorIntervalSeconds: 1, useListenNotify: true, schedule: false, registerInstance: false });
  worker.on('error', (e) => process.stderr.write(`continue worker: ${e.message}\n`));
  await worker.start();
  let committedAt = 0;
  const done = new Promise((resolve, reject) => {
    void worker.work(queue, { pollingIntervalSeconds: 2, heartbeatRefreshSeconds: 1 }, async ([job]) => {
      if (committedAt) gaps.push(Date.now() - committedAt);
      segments++;
      await sleep(2500); // the segment's share of the run, below the 4 s cap
      if (segments >= 5) return resolve();
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const tx = { executeSql: (text, values) => client.query(text, values) };
        await worker.complete(queue, job.id, { continued: true }, { db: tx });
        await worker.send(queue, { segment: segments + 1 }, { singletonKey: 'long-run', db: tx });
        await client.query('COMMIT');
        committedAt = Date.now();
      } catch (error) {
        await client.query('ROLLBACK');
        reject(error);
      } finally {
        client.release();
      }
    });
  });
  await boss.send(queue, { segment: 1 }, { singletonKey: 'long-run' });
  await done;
  await worker.stop({ graceful: false, timeout: 2000 });
  await pool.end();
  result.continuation = { segments, simulated_cap_seconds: 4, gap_ms: summary(gaps) };
  return result;
}

async function fanout(url) {
  // One LISTEN connection per process, as a server would hold: the writer stores an event row and
  // notifies in one transaction; latency = the listener's receipt - the writer's time just before COMMIT.
  const results = [];
  const writer = new pg.Client({ connectionString: url });
  await writer.connect();
  await writer.query('CREATE TABLE IF NOT EXISTS bench_events (id BIGSERIAL PRIMARY KEY, payload TEXT)');
  for (const listeners of [1, 4, 16]) {
    const children = Array.from({ length: listeners }, () =>
      spawn(process.execPath, [join(ROOT, 'bench', 'pgboss', 'listener.js'), url], { stdio: ['ignore', 'pipe', 'inherit'] }),
    );
    const outputs = children.map((child) => {
      const lines = [];
      const ready = new Promise((resolve) => createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        if (line === 'ready') resolve();
      }));
      return { child, lines, ready, exited: new Promise((resolve) => child.once('exit', resolve)) };
    });
    await Promise.all(outputs.map((o) => o.ready));
    for (let i = 0; i < NOTIFY_COUNT; i++) {
      await writer.query('BEGIN');
      await writer.query('INSERT INTO bench_events (payload) VALUES ($1)', [`event ${i}`]);
      const sent = performance.timeOrigin + performance.now();
      await writer.query("SELECT pg_notify('ringmaster_events', $1)", [JSON.stringify({ i, sent })]);
      await writer.query('COMMIT');
      await sleep(10);
    }
    await sleep(500);
    for (const o of outputs) o.child.kill('SIGTERM');
    await Promise.all(outputs.map((o) => o.exited));
    const latencies = outputs.flatMap((o) => JSON.parse(o.lines.at(-1)));
    results.push({ listener_processes: listeners, notifications: NOTIFY_COUNT, received: latencies.length, latency_ms: summary(latencies) });
    process.stderr.write(`fan-out to ${listeners} processes: ${JSON.stringify(summary(latencies))}\n`);
  }
  await writer.end();
  return results;
}

async function wakeup(boss, url) {
  // Send -> handler start on an idle worker: with LISTEN/NOTIFY, and with polling every 2 s (pg-boss default).
  const out = {};
  for (const notify of [true, false]) {
    const queue = notify ? 'wake-notify' : 'wake-poll';
    await boss.createQueue(queue, { notify });
    const worker = new Worker(`wake-${queue}`, { url, queues: [queue], polling: notify ? 30 : 2, notify });
    await worker.next((e) => e.ev === 'ready');
    await sleep(1000);
    const latencies = [];
    for (let i = 0; i < 10; i++) {
      const sentAt = Date.now();
      const id = await boss.send(queue, { ms: 10 });
      const started = await worker.next((e) => e.ev === 'start' && e.id === id, 30_000);
      latencies.push(started.t - sentAt);
      await worker.next((e) => e.ev === 'done' && e.id === id, 30_000);
      await sleep(200 + i * 130);
    }
    await worker.kill('SIGTERM');
    out[notify ? 'listen_notify' : 'polling_2s'] = summary(latencies);
  }
  return out;
}

async function serverVersion(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SHOW server_version')).rows[0].server_version;
  } finally {
    await client.end();
  }
}

const cluster = await startPgCluster();
try {
  const url = await cluster.createDatabase('pgboss_eval');
  const boss = new PgBoss({ connectionString: url, superviseIntervalSeconds: 1, monitorIntervalSeconds: 1, schedule: false, registerInstance: false });
  boss.on('error', (e) => process.stderr.write(`pg-boss error: ${e.message}\n`));
  await boss.start();
  const started = Date.now();
  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    // 2 cores shared with other work: the 1-minute load average says how busy the machine was.
    load_average_at_start: loadavg().map((v) => Math.round(v * 100) / 100),
    pg_boss: JSON.parse(readFileSync(join(ROOT, 'node_modules', 'pg-boss', 'package.json'), 'utf8')).version,
    postgres: await serverVersion(url),
    takeover: await takeover(boss, url),
    cancel_with_heartbeat: await cancel(boss, url, true),
    cancel_without_heartbeat: await cancel(boss, url, false),
    job_cap: await jobCap(boss, url),
    wakeup_ms: await wakeup(boss, url),
    fanout: await fanout(url),
  };
  result.load_average_at_end = loadavg().map((v) => Math.round(v * 100) / 100);
  result.seconds = Math.round((Date.now() - started) / 1000);
  await boss.stop({ graceful: false, timeout: 2000 });
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'pgboss-eval.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  await cluster.destroy();
}
process.exit(0);
