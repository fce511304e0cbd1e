// The manager bench: N concurrent loops of a fake agent (sleeps ~1 s, then exits) in one `ringmaster serve`
// for S seconds. Measures the server's event-loop delay (perf_hooks, inside the server), WebSocket event latency
// (event time in the server -> received by a subscribed client in this process), the server's RSS and RSS per
// active loop, and the iterations run. The server runs in its own process (bench/manager-server.js).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { AGENTS, NODE, ROOT, sleep } from './lib/proc.js';

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The server's token (RINGMASTER_TOKEN) and the header that carries it. */
const TOKEN = randomBytes(24).toString('base64url');
const AUTH = { authorization: `Bearer ${TOKEN}` };

/** Runs the bench; resolves its JSON result. */
export async function benchManager({ loops, seconds }) {
  const root = mkdtempSync(join(tmpdir(), 'ringmaster-bench-manager-'));
  const home = join(root, 'home');
  const server = spawn(NODE, [join(ROOT, 'bench', 'manager-server.js')], {
    env: { ...process.env, RINGMASTER_HOME: home, RINGMASTER_TOKEN: TOKEN, BENCH_MAX_CONCURRENT: String(loops) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: server.stdout });
  const next = () => new Promise((resolve) => lines.once('line', (line) => resolve(JSON.parse(line))));
  try {
    const { url, idle_rss_kb, idle_helpers_rss_kb } = await next();
    const latencies = [];
    let measuring = false;
    let events = 0;
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/ws`, { headers: AUTH });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString('utf8'));
      if (message.type !== 'event') return;
      events += 1;
      if (measuring) latencies.push(Date.now() - message.time);
    });
    ws.send(JSON.stringify({ type: 'subscribe', runs: '*', activity: 'none' }));
    // Baseline in the same run: the same server with no loops, measured as long, on a machine as busy as it is now.
    server.stdin.write('measure\n');
    await sleep(Math.min(seconds, 15) * 1000);
    server.stdin.write('snapshot\n');
    const idle = await next();
    const agent = join(AGENTS, 'sleep1.sh');
    const createdAt = Date.now();
    for (let i = 0; i < loops; i++) {
      const workspace = join(root, `ws-${i}`);
      mkdirSync(workspace);
      const response = await fetch(`${url}/api/runs`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ workspace, prompt: 'work', agent_command: [agent], unlimited: true, max_runtime: '2h', cooldown: 0, checkpoint_interval: 0 }),
      });
      if (response.status !== 201) throw new Error(`POST /api/runs: ${response.status} ${await response.text()}`);
    }
    const createMs = Date.now() - createdAt;
    // Let every loop reach its steady state before measuring.
    await sleep(5000);
    const before = await (await fetch(`${url}/api/stats`, { headers: AUTH })).json();
    server.stdin.write('measure\n');
    measuring = true;
    await sleep(seconds * 1000);
    measuring = false;
    const after = await (await fetch(`${url}/api/stats`, { headers: AUTH })).json();
    server.stdin.write('snapshot\n');
    const report = await next();
    ws.close();
    const done = next();
    server.kill('SIGTERM');
    const { shutdown_ms } = await done;
    latencies.sort((a, b) => a - b);
    const iterations = after.total_iterations - before.total_iterations;
    return {
      loops,
      seconds,
      create_ms: createMs,
      running_during_measure: after.running,
      iterations_in_window: iterations,
      iterations_per_second: Math.round((iterations / seconds) * 10) / 10,
      event_loop_lag_ms: report.event_loop_lag_ms,
      event_loop_lag_ms_idle_baseline: idle.event_loop_lag_ms,
      main_thread_gc: report.gc,
      ...(report.store_calls && Object.keys(report.store_calls).length > 0 ? { store_calls: report.store_calls } : {}),
      ws_latency_ms: { events: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? null },
      events_received: events,
      // The server's process and its iteration helpers together; the helpers' part beside it.
      rss_kb: { idle: idle_rss_kb, median: report.rss_kb.median, max: report.rss_kb.max },
      helpers_rss_kb: { idle: idle_helpers_rss_kb, ...report.helpers_rss_kb },
      pss_kb_at_end: report.pss_kb_at_end,
      rss_kb_per_active_loop: report.rss_kb.median === null ? null : Math.round(((report.rss_kb.median - idle_rss_kb) / loops) * 10) / 10,
      shutdown_ms,
      targets: { event_loop_lag_p99_ms: 50, ws_latency_p99_ms: 100 },
      pass: report.event_loop_lag_ms.p99 < 50 && latencies.length > 0 && (percentile(latencies, 99) ?? Infinity) < 100,
    };
  } finally {
    if (server.exitCode === null) server.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  }
}
