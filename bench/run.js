// Runs the benchmarks (all, or those named as arguments), writes bench/results/<name>.json and RESULTS.md.
// Usage: npm run bench [-- overhead big-output stop-latency dashboard]; sizes via BENCH_* env (see bench/README.md).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchBigOutput, benchBigOutputSizes } from './big-output.js';
import { benchChanges } from './changes.js';
import { benchDashboard } from './dashboard.js';
import { benchManager } from './manager.js';
import { benchOverhead } from './overhead.js';
import { benchPeers } from './peers.js';
import { benchSandbox } from './sandbox.js';
import { ROOT, machine } from './lib/proc.js';
import { writeReport } from './report.js';
import { benchStartup } from './startup.js';
import { benchStopLatency } from './stop-latency.js';
import { benchWorkflowSteps } from './workflow-steps.js';

const RESULTS = join(ROOT, 'bench', 'results');
const int = (name, fallback) => (process.env[name] ? Number.parseInt(process.env[name], 10) : fallback);

const BENCHES = {
  overhead: () => benchOverhead({ rounds: int('BENCH_ROUNDS', 7), iterations: int('BENCH_ITERATIONS', 100) }),
  changes: () => benchChanges({ rounds: int('BENCH_CHANGES_ROUNDS', 5), iterations: int('BENCH_CHANGES_ITERATIONS', 30), files: int('BENCH_CHANGES_FILES', 2000) }),
  peers: () => benchPeers({ rounds: int('BENCH_PEERS_ROUNDS', 5), n1: int('BENCH_PEERS_N1', 5), n2: int('BENCH_PEERS_N2', 25) }),
  sandbox: () => benchSandbox({ rounds: int('BENCH_SANDBOX_ROUNDS', 5), iterations: int('BENCH_SANDBOX_ITERATIONS', 30) }),
  'big-output': () =>
    process.env.BENCH_BIG_SIZES
      ? benchBigOutputSizes({ rounds: int('BENCH_BIG_ROUNDS', 3), sizesMib: process.env.BENCH_BIG_SIZES.split(',').map(Number) })
      : benchBigOutput({ rounds: int('BENCH_BIG_ROUNDS', 3), bytes: int('BENCH_BYTES', 1024 ** 3) }),
  startup: () => benchStartup({ rounds: int('BENCH_STARTUP_ROUNDS', 7), perRound: int('BENCH_STARTUP_PER_ROUND', 5) }),
  manager: () => benchManager({ loops: int('BENCH_LOOPS', 500), seconds: int('BENCH_SECONDS', 60) }),
  'stop-latency': () => benchStopLatency({ honourRuns: int('BENCH_STOP_RUNS', 10), ignoreRuns: int('BENCH_STOP_IGNORE_RUNS', 5), ignoreGraceMs: int('BENCH_STOP_GRACE_MS', 500) }),
  'workflow-steps': () => benchWorkflowSteps({ sizes: (process.env.BENCH_WORKFLOW_SIZES ?? '40,1000,10000').split(',').map(Number), rounds: int('BENCH_WORKFLOW_ROUNDS', 3) }),
  dashboard: () =>
    benchDashboard({
      boardRuns: int('BENCH_BOARD_RUNS', 500),
      lines: int('BENCH_OUTPUT_LINES', 100_000),
      rounds: int('BENCH_DASHBOARD_ROUNDS', 5),
      liveRuns: int('BENCH_LIVE_RUNS', 20),
      liveIterations: int('BENCH_LIVE_ITERATIONS', 60),
      linesPerIteration: int('BENCH_LIVE_LINES', 600),
    }),
};

const wanted = process.argv.slice(2);
for (const name of wanted) {
  if (!(name in BENCHES)) {
    process.stderr.write(`unknown benchmark '${name}' (known: ${Object.keys(BENCHES).join(', ')})\n`);
    process.exit(64);
  }
}

mkdirSync(RESULTS, { recursive: true });
const started = Date.now();
const git = (...args) => {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
};
// The code measured is dist/ as built from the working tree: record the commit and whether src/ was dirty.
const source = { commit: git('rev-parse', '--short', 'HEAD'), src_dirty: (git('status', '--porcelain', '--', 'src') ?? '') !== '' };
const info = { date: new Date().toISOString(), machine: machine(), source };
for (const name of wanted.length ? wanted : Object.keys(BENCHES)) {
  process.stderr.write(`${name}...\n`);
  const t = Date.now();
  const result = await BENCHES[name]();
  const record = { ...info, duration_s: Math.round((Date.now() - t) / 100) / 10, ...result };
  writeFileSync(join(RESULTS, `${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
  process.stderr.write(`  ${result.pass ? 'PASS' : 'FAIL'} (${record.duration_s}s) -> bench/results/${name}.json\n`);
}
const path = writeReport(RESULTS);
process.stderr.write(`total ${Math.round((Date.now() - started) / 1000)}s; summary in ${path}\n`);
