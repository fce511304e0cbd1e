// Cost of the sandbox per iteration: `ringmaster run` with a no-op agent without a sandbox and with each
// sandbox.network (none, all, agent = the filtering proxy and the forwarder), interleaved round by round in the
// same process so all four see the same machine noise. Times are in-loop (run_started -> run_finished).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENTS, CLI, NODE, jsonLines, median, run, summary } from './lib/proc.js';

const AGENT = join(AGENTS, 'noop.sh');
const SIDES = {
  none: [],
  'sandbox network none': ['--sandbox', '--sandbox-network', 'none'],
  'sandbox network all': ['--sandbox', '--sandbox-network', 'all'],
  'sandbox network agent (proxy)': ['--sandbox', '--sandbox-network', 'agent'],
};

async function round(n, cwd, extra) {
  const args = [CLI, 'run', '--agent-command', AGENT, '--max-iterations', String(n), '--prompt', 'noop', '--cwd', cwd, '--checkpoint-interval', '0', '--json', ...extra];
  const r = await run(NODE, args, { cwd, capture: true, env: { ...process.env, RINGMASTER_HOME: join(cwd, '.ringmaster-home') } });
  const events = jsonLines(r.stdout);
  const started = events.find((e) => e.type === 'run_started');
  const finished = events.find((e) => e.type === 'run_finished');
  const completed = events.filter((e) => e.type === 'iteration_completed' && e.exit_code === 0);
  if (r.code !== 2 || !started || !finished || completed.length !== n) throw new Error(`ringmaster run ${extra.join(' ')}: exit ${r.code}, ${completed.length}/${n} iterations\n${r.stderr}`);
  return (finished.time - started.time) / n;
}

/** Runs `rounds` interleaved rounds of `n` iterations for each side; the overhead of each sandbox against none. */
export async function benchSandbox({ rounds, iterations: n }) {
  const rows = [];
  const names = Object.keys(SIDES);
  for (let r = 0; r < rounds; r++) {
    const cwd = mkdtempSync(join(tmpdir(), 'rm-bench-sandbox-'));
    try {
      writeFileSync(join(cwd, 'PROMPT.md'), 'noop\n');
      const row = {};
      for (const name of r % 2 === 0 ? names : [...names].reverse()) row[name] = await round(n, cwd, SIDES[name]);
      rows.push(row);
      process.stderr.write(`  sandbox round ${r + 1}/${rounds}: ${names.map((k) => `${k} ${row[k].toFixed(1)}`).join(', ')} ms/it\n`);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }
  const perIteration = Object.fromEntries(names.map((k) => [k, summary(rows.map((row) => row[k]), 2)]));
  const base = median(rows.map((row) => row.none));
  const overhead = Object.fromEntries(names.slice(1).map((k) => [k, Math.round((median(rows.map((row) => row[k])) - base) * 100) / 100]));
  const plain = overhead['sandbox network none'];
  return {
    name: 'sandbox',
    agent: 'bench/agents/noop.sh',
    iterations: n,
    rounds,
    ms_per_iteration: perIteration,
    overhead_ms_per_iteration: overhead,
    target: "overhead of 'sandbox network none' <= 10 ms per iteration",
    pass: plain <= 10,
    rounds_raw: rows,
  };
}
