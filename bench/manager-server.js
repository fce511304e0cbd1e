// The server side of the manager bench: `ringmaster serve` as a library in this process, so that the event-loop
// delay (perf_hooks) and the RSS measured are the server's own. Prints its URL, then on SIGTERM a JSON report.
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Session } from 'node:inspector';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../dist/server/server.js';
import { dataDir, openStore } from '../dist/store/index.js';
import { Credentials, sha256 } from '../dist/server/credentials.js';

const env = process.env;
// BENCH_V8_FLAGS='--flag ...' (experiment): V8 flags set in this server process before it starts.
if (env.BENCH_V8_FLAGS) {
  const { setFlagsFromString } = await import('node:v8');
  for (const flag of env.BENCH_V8_FLAGS.split(' ').filter(Boolean)) setFlagsFromString(flag);
}
// As `serve` opens it (SQLite in a worker thread); BENCH_STORE_THREAD=main keeps it on this thread (as before).
const store = await openStore({ env, backgroundCheckpoints: true, inWorker: env.BENCH_STORE_THREAD !== 'main', onBusy: (n) => process.stderr.write(`store: ${n.state} ${JSON.stringify(n.holders)} ${n.waitedMs} ms\n`) });
/** Wraps every store method: `onCall(name, ms)` with the time the calling thread spent in it. */
function timeStoreCalls(onCall) {
  for (const name of [...Object.keys(store), ...Object.getOwnPropertyNames(Object.getPrototypeOf(store))]) {
    const fn = store[name];
    if (typeof fn !== 'function' || name === 'constructor') continue;
    store[name] = function (...args) {
      const t = performance.now();
      const r = fn.apply(this, args);
      onCall(name, performance.now() - t);
      return r;
    };
  }
}
const slow = [];
if (env.BENCH_SLOW_STORE) {
  timeStoreCalls((name, d) => {
    if (d > 15) slow.push([name, Math.round(d)]);
  });
  setInterval(() => { if (slow.length) process.stderr.write(`slow store calls: ${JSON.stringify(slow.splice(0))}\n`); }, 2000).unref();
}
// BENCH_STORE_CALLS=1: per store method, how many calls and how long the calling thread spent in each (the part of a
// call made on the main thread: with the store in its worker thread, the message's serialization and posting).
const calls = new Map();
if (env.BENCH_STORE_CALLS) {
  timeStoreCalls((name, d) => {
    const c = calls.get(name) ?? { count: 0, ms: 0, max: 0 };
    c.count += 1;
    c.ms += d;
    c.max = Math.max(c.max, d);
    calls.set(name, c);
  });
}
// BENCH_NICE_POOL=N (experiment): Ringmaster's own threads (the iteration threads, ringmaster-iter, and with them the
// agents they spawn; the store's, ringmaster-db) at nice N, checked every second. BENCH_NICE_NAMES=a,b: only those.
if (env.BENCH_NICE_POOL) {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { setPriority, getPriority } = await import('node:os');
  const level = Number(env.BENCH_NICE_POOL);
  const names = (env.BENCH_NICE_NAMES ?? 'ringmaster-iter,ringmaster-db').split(',');
  setInterval(() => {
    for (const tid of readdirSync('/proc/self/task').map(Number)) {
      try {
        const comm = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
        if (names.some((n) => comm.startsWith(n)) && getPriority(tid) < level) setPriority(tid, level);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  }, 1000).unref();
}
const server = await startServer({
  store,
  env,
  host: '127.0.0.1',
  port: 0,
  // The token comes from manager.js (RINGMASTER_TOKEN); its requests carry it like any script's.
  access: { credentials: new Credentials(dataDir(env), sha256(env.RINGMASTER_TOKEN ?? '')), loopback: true },
  maxConcurrent: Number(env.BENCH_MAX_CONCURRENT ?? 500),
  ...(env.BENCH_ITERATION_THREADS !== undefined ? { iterationThreads: Number(env.BENCH_ITERATION_THREADS) } : {}),
  resumeOnStart: false,
  version: 'bench',
  dashboardDir: null,
  log: (message) => process.stderr.write(`${message}\n`),
});
// The histogram's values are the time between two ticks of a timer armed every RESOLUTION ms: the lag is that minus
// RESOLUTION.
const RESOLUTION = 10;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION });
let rss = [];
let helperRss = [];
let sampling = null;
// The iteration helper processes (runner/iteration-pool.ts: children titled ringmaster-iter) are part of the server's
// memory: their RSS is added to the process's (read from /proc; the pids are found once per window, a scan of /proc
// in every sample would cost the main thread what it measures).
const procStat = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8');
function helperPids() {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = procStat(entry);
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      // Its title once its module runs; its command line (…/iteration-worker.js) while it starts.
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.startsWith('ringmaster-iter') || cmdline.includes('iteration-worker.js')) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
const rssKbOf = (pids) => pids.reduce((sum, pid) => {
  try {
    return sum + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return sum;
  }
}, 0);
let helpers = [];
/** Proportional set size (shared pages divided among their processes: the Node binary and libraries, ~48 MB RSS). */
const pssKbOf = (pid) => {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
  } catch {
    return null;
  }
};
const median = (xs) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)] ?? null;
// The main thread's garbage-collection pauses in the window (a pause is a stretch of event-loop delay).
let gcPauses = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcPauses.push({ ms: entry.duration, kind: entry.detail?.kind ?? 0 });
}).observe({ entryTypes: ['gc'] });
const GC_KINDS = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weakcb' };
helpers = helperPids();
const idleHelpersKb = rssKbOf(helpers);
process.stdout.write(`${JSON.stringify({ url: server.url, idle_rss_kb: Math.round(process.memoryUsage().rss / 1024) + idleHelpersKb, idle_helpers_rss_kb: idleHelpersKb, helpers: helpers.length })}\n`);
const lag = (ns) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION) * 100) / 100);
const snapshot = () => ({
  event_loop_lag_ms: { p50: lag(delay.percentile(50)), p99: lag(delay.percentile(99)), max: lag(delay.max), samples: delay.count },
  rss_kb: { samples: rss.length, median: median(rss), max: Math.max(...rss) },
  helpers_rss_kb: { helpers: helpers.length, median: median(helperRss), max: Math.max(...helperRss) },
  // Read once, when the window ends (a page-table walk: too slow to sample every 250 ms on the measured thread).
  pss_kb_at_end: { server: pssKbOf('self'), helpers: helpers.reduce((sum, pid) => sum + (pssKbOf(pid) ?? 0), 0) },
  store_calls: Object.fromEntries([...calls].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12).map(([k, c]) => [k, { count: c.count, ms: Math.round(c.ms), max_ms: Math.round(c.max * 10) / 10 }])),
  gc: Object.fromEntries(
    Object.entries(Object.groupBy(gcPauses, (p) => GC_KINDS[p.kind] ?? String(p.kind))).map(([kind, ps]) => [
      kind,
      { count: ps.length, total_ms: Math.round(ps.reduce((a, p) => a + p.ms, 0)), max_ms: Math.round(Math.max(...ps.map((p) => p.ms)) * 10) / 10, over_20ms: ps.filter((p) => p.ms > 20).length },
    ]),
  ),
});
// BENCH_PROFILE=DIR: a CPU profile of each measured window (open it in Chrome DevTools), for finding what blocks.
const profiler = env.BENCH_PROFILE ? new Session() : null;
profiler?.connect();
const post = (method, params) => new Promise((resolve, reject) => profiler.post(method, params ?? {}, (e, r) => (e ? reject(e) : resolve(r))));
let windows = 0;
createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line === 'measure') {
    if (profiler) {
      await post('Profiler.enable');
      await post('Profiler.start');
    }
    delay.reset();
    delay.enable();
    gcPauses = [];
    calls.clear();
    rss = [];
    helperRss = [];
    helpers = helperPids();
    sampling = setInterval(() => {
      const h = rssKbOf(helpers);
      helperRss.push(h);
      rss.push(Math.round(process.memoryUsage().rss / 1024) + h);
    }, 250);
  } else if (line === 'heap') {
    // After a full collection (with --expose-gc): what the process really keeps, to tell a leak from heap growth.
    globalThis.gc?.();
    const m = process.memoryUsage();
    const kb = (n) => Math.round(n / 1024);
    process.stdout.write(`${JSON.stringify({ heap_used_kb: kb(m.heapUsed), heap_total_kb: kb(m.heapTotal), external_kb: kb(m.external), array_buffers_kb: kb(m.arrayBuffers), rss_kb: kb(m.rss) })}\n`);
  } else if (line === 'snapshot') {
    if (profiler) {
      const { profile } = await post('Profiler.stop');
      mkdirSync(env.BENCH_PROFILE, { recursive: true });
      writeFileSync(join(env.BENCH_PROFILE, `window-${++windows}.cpuprofile`), JSON.stringify(profile));
    }
    delay.disable();
    if (sampling) clearInterval(sampling);
    process.stdout.write(`${JSON.stringify(snapshot())}\n`);
  }
});
process.once('SIGTERM', async () => {
  const t0 = Date.now();
  await server.close();
  const shutdown_ms = Date.now() - t0;
  await store.close();
  process.stdout.write(`${JSON.stringify({ shutdown_ms })}\n`);
  process.exit(0);
});
