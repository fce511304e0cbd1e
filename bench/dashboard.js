// Dashboard benchmarks, in headless Debian Chromium (playwright-core) against a real `ringmaster serve`:
// time to first render of the board with 500 runs and of a run page with 100,000 output lines (and frame times
// while scrolling it: wheel-like and by jumps), and the page's memory while 20 runs stream an hour's worth of output, sped up.
/* global document, window, requestAnimationFrame, MutationObserver */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CLI, NODE, memoryOf, now, ROOT, sleep, summary } from './lib/proc.js';

const CHROMIUM = process.env.RINGMASTER_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const mib = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function freePort() {
  const server = createServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

/** `ringmaster serve` over a fresh data directory; resolves once it listens. */
async function startServe(base, maxConcurrent) {
  const port = await freePort();
  const token = randomBytes(24).toString('base64url');
  const env = { ...process.env, RINGMASTER_HOME: join(base, 'data'), RINGMASTER_TOKEN: token, XDG_CONFIG_HOME: join(base, 'config'), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  const child = spawn(NODE, [CLI, 'serve', '--port', String(port), '--max-concurrent', String(maxConcurrent)], { cwd: base, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', () => undefined);
  const deadline = now() + 30_000;
  while (!out.includes('serving on')) {
    if (child.exitCode !== null || now() > deadline) throw new Error(`ringmaster serve did not start: ${out}`);
    await sleep(20);
  }
  const url = `http://127.0.0.1:${port}`;
  const api = async (path, body) => {
    const auth = { authorization: `Bearer ${token}` };
    const response = await fetch(`${url}${path}`, body === undefined ? { headers: auth } : { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = await response.json();
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    url,
    /** `path` on the server, signing the browser in (the token leaves the address bar at once). */
    signIn: (path = '/') => `${url}${path}${path.includes('?') ? '&' : '?'}token=${token}`,
    api,
    pid: child.pid,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((done) => (child.exitCode !== null ? done() : child.on('close', done)));
    },
  };
}

/** Writes an executable agent script. */
function agentScript(dir, name, body) {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\ncat >/dev/null\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** Runs `work` over `items` with at most `limit` at once. */
async function pool(items, limit, work) {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

async function waitFor(what, probe, timeoutMs = 300_000) {
  const deadline = now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/** JS heap in use after a full garbage collection, and DOM counters, through the DevTools protocol. */
async function pageMemory(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = await cdp.send('Runtime.getHeapUsage');
  const dom = await cdp.send('Memory.getDOMCounters');
  await cdp.detach();
  return { heap_mib: mib(heap.usedSize), dom_nodes: dom.nodes, listeners: dom.jsEventListeners };
}

/** Marks `window.__rendered` (ms since navigation start) the first time `ready()` holds after a DOM change. */
function renderProbe(ready) {
  const check = () => {
    if (window.__rendered === undefined && ready()) window.__rendered = performance.now();
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true });
}

async function firstRender(browser, url, ready, arg, signIn) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  // Signed in before the clock starts: the session cookie lands in the context (what a returning user has).
  await context.request.get(signIn, { maxRedirects: 0 });
  const page = await context.newPage();
  await page.addInitScript(`(${renderProbe.toString()})((${ready.toString()}).bind(null, ${JSON.stringify(arg)}))`);
  await page.goto(url);
  await page.waitForFunction(() => window.__rendered !== undefined, undefined, { timeout: 120_000, polling: 100 });
  const ms = await page.evaluate(() => window.__rendered);
  return { page, context, ms };
}

/** The board with `count` runs of every status: time to the first render with every column filled. */
async function boardBench(browser, serve, base, { count, rounds }) {
  const ok = agentScript(base, 'ok.sh', 'exit 0');
  const fail = agentScript(base, 'fail.sh', 'echo "tests failed"; exit 1');
  const hang = agentScript(base, 'hang.sh', 'exec sleep 600');
  const kinds = Array.from({ length: count }, (_, i) => (i % 25 === 0 ? 'running' : i % 10 === 1 ? 'failed' : i % 10 === 2 ? 'stopped' : 'completed'));
  const started = now();
  const ids = { running: [], stopped: [] };
  await pool(kinds.map((kind, i) => ({ kind, i })), 8, async ({ kind, i }) => {
    const workspace = join(base, 'boards', `project-${i}`);
    mkdirSync(workspace, { recursive: true });
    const agent = kind === 'completed' ? ok : kind === 'failed' ? fail : hang;
    const { id } = await serve.api('/api/runs', { workspace, prompt: `Task ${i}: make the tests pass`, agent_command: [agent], max_iterations: kind === 'completed' ? 2 : 5, failure_threshold: 1, cooldown: 0, checkpoint_interval: 0 });
    if (kind === 'running' || kind === 'stopped') ids[kind].push(id);
    if (kind === 'stopped') await serve.api(`/api/runs/${id}/stop`, {});
  });
  await waitFor('the board runs to settle', async () => {
    const { runs } = await serve.api('/api/runs?status=pending,running&limit=1000');
    return runs.length === ids.running.length;
  });
  const seeded_s = Math.round((now() - started) / 100) / 10;
  const times = [];
  let memory = null;
  let cards = 0;
  for (let round = 0; round < rounds; round++) {
    const { page, context, ms } = await firstRender(
      browser,
      serve.url,
      (n) => document.querySelector('[data-testid="board-summary"]')?.textContent === `${n} runs` && document.querySelectorAll('[data-testid="run-card"]').length > 0,
      count,
      serve.signIn('/'),
    );
    times.push(ms);
    if (round === rounds - 1) {
      cards = await page.evaluate(() => document.querySelectorAll('[data-testid="run-card"]').length);
      memory = await pageMemory(page);
    }
    await context.close();
  }
  for (const id of ids.running) await serve.api(`/api/runs/${id}/stop`, {});
  return { runs: count, seeded_s, by_status: Object.fromEntries(['completed', 'failed', 'stopped', 'running'].map((k) => [k, kinds.filter((x) => x === k).length])), first_render_ms: summary(times, 0), cards_in_dom: cards, memory };
}

/** A run page with `lines` lines of output: time to the first render of its last line, then frame times while scrolling. */
async function outputBench(browser, serve, base, { lines, rounds }) {
  const flood = agentScript(base, 'flood.sh', `awk 'BEGIN { for (i = 1; i <= ${lines}; i++) if (i % 10 == 0) printf "\\033[32mline %d ok\\033[0m\\n", i; else printf "line %d: the agent says something about the code\\n", i }'`);
  const workspace = join(base, 'flood');
  mkdirSync(workspace, { recursive: true });
  const { id } = await serve.api('/api/runs', { workspace, prompt: 'Print a flood of lines', agent_command: [flood], max_iterations: 1, checkpoint_interval: 0 });
  await waitFor('the flood run to end', async () => (await serve.api(`/api/runs/${id}`)).run.status !== 'running');
  const times = [];
  let frames = null;
  let memory = null;
  for (let round = 0; round < rounds; round++) {
    const { page, context, ms } = await firstRender(
      browser,
      `${serve.url}/runs/${id}`,
      (n) => document.querySelector('[data-testid="output-count"]')?.textContent === `${n.toLocaleString('en-US')} rows` && [...document.querySelectorAll('[data-testid="output-line"]')].some((e) => e.textContent === `line ${n - 1} ok`),
      lines + 1,
      serve.signIn('/'),
    );
    times.push(ms);
    if (round === rounds - 1) {
      memory = await pageMemory(page);
      // Wheel-like scrolling: 120 px a frame (7,200 px/s at 60 frames/s) for 240 frames from the middle; then
      // 60 jumps to far-apart places, a frame each. The time between frames says how smooth it stays.
      frames = await page.evaluate(async () => {
        const el = document.querySelector('[data-testid="output-scroll"]');
        const frame = () => new Promise((r) => requestAnimationFrame(r));
        const stats = (gaps) => {
          gaps.sort((a, b) => a - b);
          const at = (q) => Math.round(gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))] * 10) / 10;
          return { frames: gaps.length, p50_ms: at(0.5), p95_ms: at(0.95), max_ms: Math.round(gaps.at(-1) * 10) / 10 };
        };
        const measure = async (moves) => {
          const gaps = [];
          let last = performance.now();
          for (const move of moves) {
            move();
            await frame();
            const t = performance.now();
            gaps.push(t - last);
            last = t;
          }
          return stats(gaps);
        };
        el.scrollTop = el.scrollHeight / 2;
        await frame();
        await frame();
        const wheel = await measure(Array.from({ length: 240 }, () => () => (el.scrollTop += 120)));
        const jump = await measure(Array.from({ length: 60 }, (_, i) => () => (el.scrollTop = ((i * 37) % 60) / 60 * (el.scrollHeight - el.clientHeight))));
        return { wheel, jump, rows_in_dom: document.querySelectorAll('.output-row').length };
      });
    }
    await context.close();
  }
  return { lines, first_render_ms: summary(times, 0), scroll: frames, memory };
}

/**
 * 20 runs stream an hour's worth of output each (an iteration a minute, 10 lines a second: 60 iterations of 600
 * lines), as fast as the machine goes. A board page and a run page following one run watch it all; their memory
 * is sampled as the runs progress.
 */
async function liveBench(browser, serve, base, { runs, iterations, linesPerIteration }) {
  const chatter = agentScript(base, 'chatter.sh', `awk 'BEGIN { for (i = 1; i <= ${linesPerIteration}; i++) printf "working: step %d of the plan, reading files and running tests\\n", i }'`);
  const board = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  await board.goto(serve.signIn('/'));
  await board.getByTestId('board-summary').waitFor();
  const ids = [];
  const started = now();
  const follower = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  for (let i = 0; i < runs; i++) {
    const workspace = join(base, 'live', `run-${i}`);
    mkdirSync(workspace, { recursive: true });
    ids.push((await serve.api('/api/runs', { workspace, prompt: `Live run ${i}`, agent_command: [chatter], max_iterations: iterations, cooldown: 0, checkpoint_interval: 0 })).id);
    if (i === 0) {
      // The run page follows the first run from its first iteration on.
      await follower.goto(serve.signIn(`/runs/${ids[0]}`));
      await follower.getByTestId('output-count').waitFor();
    }
  }
  const total = runs * iterations;
  const samples = [];
  const marks = [0.25, 0.5, 0.75, 1];
  for (;;) {
    const { runs: list } = await serve.api('/api/runs?limit=1000');
    const mine = list.filter((r) => ids.includes(r.id));
    const done = mine.reduce((sum, r) => sum + (r.status === 'running' ? Math.max(0, r.iterations - 1) : r.iterations), 0);
    const progress = done / total;
    const finished = mine.every((r) => r.status !== 'running' && r.status !== 'pending');
    if (finished || (marks.length > 1 && progress >= marks[0])) {
      const mark = finished ? 1 : marks.shift();
      if (finished) await sleep(1000);
      const rss = memoryOf(serve.pid);
      samples.push({
        progress: mark,
        elapsed_s: Math.round((now() - started) / 100) / 10,
        board: await pageMemory(board),
        run_page: { ...(await pageMemory(follower)), rows: await follower.getByTestId('output-count').textContent() },
        server_rss_mib: rss ? Math.round(rss.rssKb / 102.4) / 10 : null,
      });
      if (finished) break;
    }
    await sleep(500);
  }
  await board.context().close();
  await follower.context().close();
  const first = samples[0];
  const last = samples.at(-1);
  return {
    runs,
    iterations_per_run: iterations,
    lines_per_iteration: linesPerIteration,
    lines_total: runs * iterations * linesPerIteration,
    hour_equivalent: 'each run: 60 iterations (one a minute) of 600 lines (10 lines a second)',
    duration_s: Math.round((now() - started) / 100) / 10,
    samples,
    board_heap_growth_mib: Math.round((last.board.heap_mib - first.board.heap_mib) * 10) / 10,
    run_page_heap_growth_mib: Math.round((last.run_page.heap_mib - first.run_page.heap_mib) * 10) / 10,
  };
}

/** Runs the three dashboard benchmarks. */
export async function benchDashboard({ boardRuns, lines, rounds, liveRuns, liveIterations, linesPerIteration }) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  if (!existsSync(join(ROOT, 'dist', 'web', 'index.html'))) throw new Error('dist/web is missing: npm run build');
  const base = mkdtempSync(join(tmpdir(), 'rm-bench-dashboard-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  let serve = null;
  try {
    serve = await startServe(join(base), 25);
    const board = await boardBench(browser, serve, base, { count: boardRuns, rounds });
    const output = await outputBench(browser, serve, base, { lines, rounds });
    await serve.stop();
    // A fresh server for the live part: its numbers are about the 20 live runs only.
    const liveBase = join(base, 'live-server');
    mkdirSync(liveBase);
    serve = await startServe(liveBase, liveRuns);
    const live = await liveBench(browser, serve, liveBase, { runs: liveRuns, iterations: liveIterations, linesPerIteration });
    const pass = board.first_render_ms.median < 3000 && output.first_render_ms.median < 5000 && output.scroll.wheel.p95_ms < 50 && live.board_heap_growth_mib < 10 && live.samples.every((s) => s.run_page.heap_mib < 256);
    return { pass, board, output, live };
  } finally {
    await serve?.stop();
    await browser.close();
    rmSync(base, { recursive: true, force: true });
  }
}
