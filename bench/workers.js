// Workers on many machines (issue 13), measured on this machine with the real CLI as separate processes, a
// throwaway PostgreSQL cluster and a bare git remote:
//   - takeover: a worker and its agent killed with SIGKILL mid-iteration -> another worker's next iteration
//     starts (median and max over BENCH_TAKEOVER_TRIALS, default 10);
//   - stop: `ringmaster stop <run>` from another machine while a worker's agent works -> the run stopped and its
//     agent gone (BENCH_STOP_TRIALS, default 5), the wall time of the command (which waits for both);
//   - throughput: BENCH_RUNS repository runs (default 8) of BENCH_ITERATIONS iterations (default 10) with 1, 2
//     and 4 workers (one run at a time each), twice: a no-op agent (the store and git are the bottleneck) and
//     an agent that works 1 s (agents are): iterations per second; event latency from the owner's emission (the
//     event's `time`) to a dashboard's WebSocket on `ringmaster serve --workers external` (subscribed to every
//     run), and to a plain LISTENer on ringmaster_events (the database's part of it).
// Usage: npm run build && node bench/workers.js   (writes bench/results/workers.json)
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';
import { startPgCluster } from '../test/helpers/pg-cluster.ts';
import { AGENTS, CLI, NODE, ROOT, machine, run, sleep } from './lib/proc.js';

const int = (name, fallback) => (process.env[name] ? Number.parseInt(process.env[name], 10) : fallback);
const TAKEOVER_TRIALS = int('BENCH_TAKEOVER_TRIALS', 10);
const STOP_TRIALS = int('BENCH_STOP_TRIALS', 5);
const RUNS = int('BENCH_RUNS', 8);
const ITERATIONS = int('BENCH_ITERATIONS', 10);
const PLAN_AGENT = join(ROOT, 'test', 'fixtures', 'agents', 'plan-agent.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'rm-bench-workers-'));
const children = new Set();

function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  const round = (v) => Math.round(v * 100) / 100;
  return { n: sorted.length, min: round(sorted[0]), median: round(at(50)), p99: round(at(99)), max: round(sorted.at(-1)) };
}

/** The servers' token (RINGMASTER_TOKEN): the WebSocket sends it. */
const TOKEN = randomBytes(24).toString('base64url');

function env(url, home) {
  const out = { ...process.env, RINGMASTER_HOME: home, RINGMASTER_DATABASE_URL: url, RINGMASTER_TOKEN: TOKEN, XDG_CONFIG_HOME: join(tmp, 'no-config'), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  for (const k of Object.keys(out)) if (k.startsWith('RINGMASTER_') && !['RINGMASTER_HOME', 'RINGMASTER_DATABASE_URL', 'RINGMASTER_TOKEN'].includes(k)) delete out[k];
  return out;
}

let homes = 0;
function startWorker(url) {
  const home = join(tmp, `worker-${++homes}`);
  mkdirSync(home, { recursive: true });
  const child = spawn(NODE, [CLI, 'worker', '--workdir', join(home, 'work')], { cwd: home, env: env(url, home), stdio: ['ignore', 'ignore', 'inherit'] });
  children.add(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  exited.then(() => children.delete(child));
  return { home, workdir: join(home, 'work'), child, exited };
}

async function stopWorkers(workers) {
  for (const w of workers) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
}

// Asynchronous: this process's event loop keeps running meanwhile, so the events it receives (WebSocket,
// NOTIFY) are timed when they arrive, not when a blocking call returns.
async function enqueue(url, repo, agentCommand, iterations, checkpointInterval) {
  const home = join(tmp, 'enqueuer');
  mkdirSync(home, { recursive: true });
  const r = await run(
    NODE,
    [CLI, 'run', '--repository', repo, '--branch', 'main', '--prompt', 'work', '--agent-command', agentCommand, '--max-iterations', String(iterations), '--checkpoint-interval', String(checkpointInterval), '--json'],
    { cwd: home, env: env(url, home), capture: true },
  );
  if (r.code !== 0) throw new Error(`bench: ringmaster run --repository failed: ${r.stderr}`);
  return JSON.parse(r.stdout).id;
}

function remote() {
  const src = join(tmp, `src-${Date.now()}`);
  mkdirSync(src);
  const g = (cwd, ...args) => execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } });
  g(src, 'init', '-q', '-b', 'main');
  writeFileSync(join(src, 'README.md'), 'bench\n');
  g(src, 'add', '-A');
  g(src, 'commit', '-qm', 'initial');
  const bare = join(tmp, `remote-${Date.now()}.git`);
  g(tmp, 'clone', '-q', '--bare', src, bare);
  return bare;
}

async function until(probe, ms = 120_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('bench: timed out');
    await sleep(50);
  }
}

/** The agent's process group from a machine's agent.pid (`<pid> <start time> <boot id>`), or null. */
function agentGroup(home, id) {
  const pidFile = join(home, 'runs', id, 'agent.pid');
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').trim().split(/\s+/)[0]);
  return Number.isInteger(pid) && pid > 1 ? pid : null;
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stopLatency(cluster) {
  const url = await cluster.createDatabase('stop');
  const db = new pg.Client({ connectionString: url });
  const worker = startWorker(url);
  await sleep(2000);
  await db.connect();
  const trials = [];
  const home = join(tmp, 'stopper');
  mkdirSync(home, { recursive: true });
  for (let trial = 0; trial < STOP_TRIALS; trial++) {
    const id = await enqueue(url, remote(), `${NODE} ${PLAN_AGENT} hang`, 3, 1);
    const group = await until(async () => (await db.query('SELECT status FROM iterations WHERE run_id = $1 AND number = 1', [id])).rows[0]?.status === 'running' && agentGroup(worker.home, id));
    await sleep(500 + ((trial * 370) % 1000));
    const stopped = await run(NODE, [CLI, 'stop', id], { cwd: home, env: env(url, home) });
    const ms = Math.round(stopped.ms);
    const status = (await db.query('SELECT status, stop_reason FROM runs WHERE id = $1', [id])).rows[0];
    if (status?.status !== 'stopped' || groupAlive(group)) throw new Error(`bench: run ${id} not stopped: ${JSON.stringify(status)}`);
    trials.push(ms);
    process.stderr.write(`stop trial ${trial}: ${ms} ms\n`);
  }
  await db.end();
  await stopWorkers([worker]);
  return { trials_ms: trials, stop_ms: summary(trials), note: 'wall time of `ringmaster stop` (a new CLI process: ~0.3 s of it is its start) until the run is stopped and its agent gone' };
}

/** `ringmaster serve --workers external` on a free port, and a WebSocket subscribed to every run's events. */
async function dashboard(url) {
  const home = join(tmp, `server-${++homes}`);
  mkdirSync(home, { recursive: true });
  const child = spawn(NODE, [CLI, 'serve', '--port', '0', '--workers', 'external'], { cwd: home, env: env(url, home), stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let out = '';
  child.stdout.on('data', (c) => (out += c.toString('utf8')));
  const base = await until(() => /serving on (http:\/\/\S+)/.exec(out)?.[1]);
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/ws`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const received = [];
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString('utf8'));
    if (message.type === 'event') received.push({ type: message.event.type, ms: Date.now() - message.time });
  });
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  ws.send(JSON.stringify({ type: 'subscribe', runs: '*' }));
  await sleep(500);
  return {
    received,
    async close() {
      ws.close();
      child.kill('SIGTERM');
      await exited;
      children.delete(child);
    },
  };
}

async function takeover(cluster) {
  const url = await cluster.createDatabase('takeover');
  const db = new pg.Client({ connectionString: url });
  const trials = [];
  let workers = [startWorker(url), startWorker(url)];
  await sleep(2000);
  await db.connect();
  const iteration = async (id, n) => (await db.query('SELECT status FROM iterations WHERE run_id = $1 AND number = $2', [id, n])).rows[0]?.status;
  for (let trial = 0; trial < TAKEOVER_TRIALS; trial++) {
    const id = await enqueue(url, remote(), `${NODE} ${PLAN_AGENT} ok,gate,complete`, 6, 1);
    await until(async () => (await iteration(id, 2)) === 'running');
    const owner = (await db.query('SELECT pid FROM run_owners WHERE run_id = $1 AND ended_at IS NULL', [id])).rows[0]?.pid;
    const first = workers.find((w) => w.child.pid === owner);
    // A different phase of the 2 s lease renewal each trial.
    await sleep(300 + ((trial * 730) % 2000));
    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    const group = agentGroup(first.home, id);
    if (group !== null) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await first.exited;
    await until(async () => (await iteration(id, 3)) === 'running');
    const ms = Date.now() - killedAt;
    trials.push(ms);
    process.stderr.write(`takeover trial ${trial}: ${ms} ms\n`);
    const other = workers.find((w) => w !== first);
    writeFileSync(join(other.workdir, 'runs', id, '.gate-2'), '');
    await until(async () => (await db.query('SELECT status FROM runs WHERE id = $1', [id])).rows[0]?.status === 'completed');
    workers = [other, startWorker(url)];
    await sleep(1000);
  }
  await db.end();
  await stopWorkers(workers);
  return { trials_ms: trials, takeover_ms: summary(trials), lease_ms: 10_000, job_heartbeat_s: 10 };
}

async function throughput(cluster, workerCount, agent) {
  const url = await cluster.createDatabase(`throughput_${agent.replace(/\W/g, '_')}_${workerCount}`);
  const workers = Array.from({ length: workerCount }, () => startWorker(url));
  const server = await dashboard(url);
  const listener = new pg.Client({ connectionString: url });
  await sleep(2000);
  await listener.connect();
  const latencies = [];
  const pending = [];
  listener.on('notification', (msg) => pending.push({ payload: JSON.parse(msg.payload), at: Date.now() }));
  await listener.query('LISTEN ringmaster_events');
  const repo = remote();
  const ids = [];
  for (let i = 0; i < RUNS; i++) ids.push(await enqueue(url, repo, join(AGENTS, agent), ITERATIONS, 0));
  await until(async () => (await listener.query("SELECT COUNT(*)::int AS n FROM runs WHERE status IN ('completed', 'failed', 'stopped')")).rows[0].n === RUNS, 600_000);
  const span = (await listener.query('SELECT MIN(started_at)::float8 AS first, MAX(completed_at)::float8 AS last, COUNT(*)::int AS n FROM iterations')).rows[0];
  // Latency: the event's emission time (its `at`, the owner's clock, this machine) -> NOTIFY received here.
  for (const { payload, at } of pending) {
    const row = (await listener.query('SELECT at::float8 AS at, type FROM events WHERE id = $1', [payload.id])).rows[0];
    if (!row) continue;
    latencies.push(at - row.at);
  }
  // The server relays what it reads after each NOTIFY: wait until it has sent every stored event.
  const stored = (await listener.query('SELECT COUNT(*)::int AS n FROM events')).rows[0].n;
  await until(() => server.received.length >= stored, 60_000).catch(() => undefined);
  const viaWebSocket = [...server.received].sort((a, b) => b.ms - a.ms);
  await server.close();
  await listener.end();
  await stopWorkers(workers);
  return {
    agent,
    workers: workerCount,
    runs: RUNS,
    iterations: span.n,
    seconds: Math.round((span.last - span.first) / 10) / 100,
    iterations_per_second: Math.round((span.n / ((span.last - span.first) / 1000)) * 100) / 100,
    event_latency_ms: summary(viaWebSocket.map((e) => e.ms)),
    events_stored: stored,
    events_received_by_websocket: viaWebSocket.length,
    slowest_events: viaWebSocket.slice(0, 5),
    notify_latency_ms: summary(latencies),
  };
}

const RESULTS = join(ROOT, 'bench', 'results', 'workers.json');
// A section skipped in this run (BENCH_TAKEOVER_TRIALS=0...) keeps its figures from the previous results file.
const previous = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : {};
const measured = async (name, trials, fn) => (trials > 0 ? { ...(await fn()), measured_at: new Date().toISOString() } : previous[name]);
const cluster = await startPgCluster();
try {
  const result = { date: new Date().toISOString(), machine: machine(), load_average_at_start: loadavg().map((v) => Math.round(v * 100) / 100) };
  result.takeover = await measured('takeover', TAKEOVER_TRIALS, () => takeover(cluster));
  result.stop = await measured('stop', STOP_TRIALS, () => stopLatency(cluster));
  result.throughput = [];
  for (const agent of (process.env.BENCH_AGENTS ?? 'noop.sh,sleep1.sh').split(',')) {
    for (const n of (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number)) {
      result.throughput.push(await throughput(cluster, n, agent));
      process.stderr.write(`throughput ${JSON.stringify(result.throughput.at(-1))}\n`);
    }
  }
  result.load_average_at_end = loadavg().map((v) => Math.round(v * 100) / 100);
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  for (const child of children) child.kill('SIGKILL');
  await cluster.destroy();
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(0);
