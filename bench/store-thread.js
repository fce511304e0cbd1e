// Bench: what the SQLite store's worker thread costs (serve and worker use it; the one-run CLI does not): the time
// to open the store, and the latency of one small write (an event append, as a recorder batches them) and one
// read, in-thread vs in the worker. Medians of N. Usage: node bench/store-thread.js (after npm run build).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../dist/store/index.js';

const N = Number(process.env.BENCH_STORE_CALLS ?? 2000);
const OPENS = Number(process.env.BENCH_STORE_OPENS ?? 15);
const median = (xs) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (n) => Math.round(n * 1000) / 1000;

async function measure(inWorker) {
  const home = mkdtempSync(join(tmpdir(), 'ringmaster-bench-store-'));
  try {
    const opens = [];
    for (let i = 0; i < OPENS; i++) {
      const t = performance.now();
      const store = await openStore({ env: { RINGMASTER_HOME: home }, inWorker });
      await store.getRun('none');
      opens.push(performance.now() - t);
      await store.close();
    }
    const store = await openStore({ env: { RINGMASTER_HOME: home }, inWorker });
    const owner = { pid: process.pid, host: 'bench' };
    await store.createRun({ id: 'r', agent: 'claude', spec: {}, workspace: home, owner, now: Date.now() });
    const writes = [];
    const reads = [];
    for (let seq = 1; seq <= N; seq++) {
      let t = performance.now();
      await store.appendEvents([{ run_id: 'r', seq, type: 'warning', payload: { message: 'x'.repeat(100) }, at: Date.now() }], owner);
      writes.push(performance.now() - t);
      t = performance.now();
      await store.getRun('r');
      reads.push(performance.now() - t);
    }
    await store.close();
    return { store_thread: inWorker ? 'worker' : 'main', open_ms_median: round(median(opens)), append_ms_median: round(median(writes)), get_run_ms_median: round(median(reads)) };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const results = [];
for (let round_ = 0; round_ < 2; round_++) for (const inWorker of [false, true]) results.push(await measure(inWorker));
process.stdout.write(`${JSON.stringify({ bench: 'store-thread', node: process.version, calls: N, opens: OPENS, results }, null, 2)}\n`);
