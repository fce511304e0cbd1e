// Stop latency: SIGINT to ringmaster while its agent (a shell with a grandchild) runs, then the time until
// every process of the agent tree is gone (zombies count as gone) and until ringmaster itself exits.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { AGENTS, CLI, NODE, aliveNonZombie, groupMembers, now, sleep, summary } from './lib/proc.js';

const AGENT = join(AGENTS, 'tree.sh');

async function waitForPids(file, child, timeoutMs) {
  const deadline = now() + timeoutMs;
  while (now() < deadline) {
    if (child.exitCode !== null) throw new Error(`ringmaster exited ${child.exitCode} before the agent started`);
    if (existsSync(file)) return readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
    await sleep(2);
  }
  throw new Error('the agent did not report its pids in time');
}

async function oneStop(ignoreTerm, graceMs) {
  const cwd = mkdtempSync(join(tmpdir(), 'rm-bench-stop-'));
  const pidFile = join(cwd, 'pids');
  try {
    writeFileSync(join(cwd, 'PROMPT.md'), 'Wait.\n');
    const env = { ...process.env, BENCH_PIDFILE: pidFile, BENCH_IGNORE_TERM: ignoreTerm ? '1' : '0', RINGMASTER_HOME: join(cwd, '.ringmaster-home') };
    if (graceMs !== null) env.RINGMASTER_LOOP_KILL_GRACE = `${graceMs}ms`;
    const args = [CLI, 'run', '--agent-command', AGENT, '--max-iterations', '1', '--prompt-file', join(cwd, 'PROMPT.md'), '--cwd', cwd, '--checkpoint-interval', '0', '--json'];
    const child = spawn(NODE, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, at: now() })));
    const [agentPid, grandchildPid] = await waitForPids(pidFile, child, 10_000);
    const tree = [agentPid, grandchildPid];
    const t0 = now();
    child.kill('SIGINT');
    let treeGoneAt = null;
    while (treeGoneAt === null && now() - t0 < 15_000) {
      // Scan both the reported pids and the agent's whole process group (agentPid is the group id).
      if (!tree.some(aliveNonZombie) && groupMembers(agentPid).length === 0) treeGoneAt = now();
      else await sleep(1);
    }
    const exit = await exited;
    return {
      treeGoneMs: treeGoneAt === null ? null : Math.round((treeGoneAt - t0) * 10) / 10,
      ringmasterExitMs: Math.round((exit.at - t0) * 10) / 10,
      exitCode: exit.code,
      exitSignal: exit.signal,
      stderr: stderr.slice(-300),
    };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

function report(rows, label) {
  const tree = rows.map((r) => r.treeGoneMs ?? Infinity);
  const exit = rows.map((r) => r.ringmasterExitMs);
  process.stderr.write(`  stop (${label}): tree gone median ${summary(tree, 1).median} ms, ringmaster exit median ${summary(exit, 1).median} ms\n`);
  return {
    tree_gone_ms: summary(tree, 1),
    ringmaster_exit_ms: summary(exit, 1),
    exit_codes: rows.map((r) => r.exitCode),
    all_exit_130: rows.every((r) => r.exitCode === 130),
    runs: rows,
  };
}

/** Measures `honourRuns` stops of a SIGTERM-honouring tree and `ignoreRuns` of a SIGTERM-ignoring one. */
export async function benchStopLatency({ honourRuns, ignoreRuns, ignoreGraceMs }) {
  const honour = [];
  for (let i = 0; i < honourRuns; i++) honour.push(await oneStop(false, null));
  const ignore = [];
  for (let i = 0; i < ignoreRuns; i++) ignore.push(await oneStop(true, ignoreGraceMs));
  const honours = report(honour, 'honours SIGTERM');
  const ignores = report(ignore, `ignores SIGTERM, grace ${ignoreGraceMs} ms`);
  return {
    name: 'stop-latency',
    agent: 'bench/agents/tree.sh (sh + grandchild sleep; BENCH_IGNORE_TERM=1 makes both ignore SIGTERM)',
    honours_sigterm: { kill_grace: 'default (loop.kill_grace 3s)', ...honours },
    ignores_sigterm: { kill_grace_ms: ignoreGraceMs, env: `RINGMASTER_LOOP_KILL_GRACE=${ignoreGraceMs}ms`, ...ignores },
    target: 'agent tree gone < 500 ms after SIGINT (agent honouring SIGTERM), exit code 130',
    pass: honours.tree_gone_ms.max < 500 && honours.all_exit_130,
  };
}
