// Ringmaster next to its peers, per iteration, whole process, the same fake Claude Code agent for all
// (bench/agents/peers/claude: prints stream-json, changes one file per call), interleaved round by round:
// - a bare bash loop running the agent;
// - ralphy (ralphy-cli, a compiled bun binary): a markdown checklist PRD.md, one task completed per agent call;
// - ralph-tui (runs on bun): a prd.json tracker, one user story per agent call (<promise>COMPLETE</promise>),
//   iterationDelay 0 (its default pauses 1 s between iterations);
// - Ringmaster `--agent claude`, change tracking on (the default), checkpoints off and at their default (every 5);
//   and, for reference, with change tracking off too.
// The peers are installed on demand into a temporary directory (npm install --prefix), never as devDependencies.
// Per-iteration cost = (wall(n2) - wall(n1)) / (n2 - n1): the whole process's time, start-up cancelled out.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENTS, CLI, NODE, jsonLines, median, run } from './lib/proc.js';

const PEERS = { 'ralphy-cli': '4.7.2', 'ralph-tui': '0.11.0', bun: '1.4.5' };
const FAKE_BIN = join(AGENTS, 'peers');
const gitEnv = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@x', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@x' };
const BASH_LOOP = 'i=0; while [ "$i" -lt "$1" ]; do claude -p --output-format stream-json --verbose < PROMPT.md > /dev/null; i=$((i+1)); done';

/** Installs the peers (once per machine: reused from BENCH_PEERS_DIR or the temp directory); returns their paths. */
function installPeers() {
  const dir = process.env.BENCH_PEERS_DIR ?? join(tmpdir(), `ringmaster-bench-peers-${Object.values(PEERS).join('-')}`);
  const ralphy = join(dir, 'node_modules', 'ralphy-cli', 'dist', `ralphy-linux-${process.arch}`);
  const ralphTui = join(dir, 'node_modules', 'ralph-tui', 'dist', 'cli.js');
  const bun = join(dir, 'node_modules', '.bin', 'bun');
  if (![ralphy, ralphTui, bun].every((p) => existsSync(p))) {
    mkdirSync(dir, { recursive: true });
    process.stderr.write(`  installing ${Object.entries(PEERS).map(([n, v]) => `${n}@${v}`).join(' ')} into ${dir}\n`);
    execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', ...Object.entries(PEERS).map(([n, v]) => `${n}@${v}`)], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const version = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8' }).trim().split('\n')[0];
  return { dir, ralphy, ralphTui, bun, versions: { ralphy: version(ralphy, ['--version']), bun: version(bun, ['--version']), 'ralph-tui': PEERS['ralph-tui'] } };
}

/** A fresh git repository with n tasks in each peer's format and a prompt file. */
function workspace(n) {
  const dir = mkdtempSync(join(tmpdir(), 'rm-bench-peers-'));
  const stories = Array.from({ length: n }, (_, i) => ({ id: `US-${String(i + 1).padStart(3, '0')}`, title: `Task ${i + 1}`, description: `Do task ${i + 1}`, acceptanceCriteria: ['done'], priority: 1, passes: false, dependsOn: [] }));
  writeFileSync(join(dir, 'prd.json'), `${JSON.stringify({ name: 'Bench', userStories: stories }, null, 2)}\n`);
  writeFileSync(join(dir, 'PRD.md'), `# PRD\n\n## Tasks\n${stories.map((s) => `- [ ] ${s.title}\n`).join('')}`);
  writeFileSync(join(dir, 'PROMPT.md'), '# Task\n\nRead the plan, pick the most important item, do it, run the tests, commit.\n');
  writeFileSync(join(dir, 'work.txt'), 'work\n');
  mkdirSync(join(dir, '.ralph-tui'));
  writeFileSync(join(dir, '.ralph-tui', 'config.toml'), 'iterationDelay = 0\nagent = "claude"\ntracker = "json"\n');
  mkdirSync(join(dir, 'home'));
  writeFileSync(join(dir, '.gitignore'), 'home/\n');
  const git = (...args) => execFileSync('git', args, { cwd: dir, env: { ...process.env, ...gitEnv } });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return dir;
}

function count(text, needle) {
  return text.split(needle).length - 1;
}

/** Runs one side for n tasks in a fresh workspace; returns the whole process's wall ms (checked for n agent calls). */
async function side(name, n, peers) {
  const cwd = workspace(n);
  const home = mkdtempSync(join(tmpdir(), 'rm-bench-peers-home-'));
  const env = { ...process.env, ...gitEnv, HOME: home, PATH: `${FAKE_BIN}:${process.env.PATH}`, RINGMASTER_HOME: join(home, 'rm') };
  delete env.FAKE_CLAUDE_PROMISE;
  try {
    // CPU time of the process and every process it waited for (agents, git): far less shaken by a busy machine than wall time.
    const timed = (command, args, extraEnv = {}) => run('/usr/bin/time', ['-f', 'cpu %U %S', command, ...args], { cwd, env: { ...env, ...extraEnv }, capture: true });
    let r;
    if (name === 'bash') r = await timed('bash', ['-c', BASH_LOOP, 'bash', String(n)]);
    else if (name === 'ralphy') r = await timed(peers.ralphy, ['--fast', '--prd', 'PRD.md', '--claude']);
    else if (name === 'ralph-tui') {
      r = await timed(peers.bun, [peers.ralphTui, 'run', '--headless', '--no-setup', '--no-notify', '--prd', 'prd.json', '--agent', 'claude', '--iterations', String(n)], { FAKE_CLAUDE_PROMISE: '1' });
    } else {
      const interval = name.endsWith('-checkpoints') ? [] : ['--checkpoint-interval', '0'];
      const tracking = { RINGMASTER_LOOP_TRACK_CHANGES: name.endsWith('-untracked') ? 'false' : 'true' };
      const cli = name.startsWith('baseline') ? join(BASELINE, 'bin', 'ringmaster.js') : CLI;
      r = await timed(NODE, [cli, 'run', '--agent', 'claude', '--max-iterations', String(n), '--prompt-file', 'PROMPT.md', '--cwd', cwd, ...interval, '--json'], tracking);
    }
    const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
    const calls = count(readFileSync(join(cwd, 'work.txt'), 'utf8'), 'done ');
    // ralph-tui calls the agent twice more than once per task (its start-up checks): the calls per task are what count.
    const tasks = name === 'ralphy' ? count(readFileSync(join(cwd, 'PRD.md'), 'utf8'), '- [x]') : name === 'ralph-tui' ? count(readFileSync(join(cwd, 'prd.json'), 'utf8'), '"passes": true') : calls;
    const ok = name.startsWith('ringmaster') || name.startsWith('baseline') ? r.code === 2 && jsonLines(r.stdout).filter((e) => e.type === 'iteration_completed').length === n : r.code === 0;
    if (!ok || tasks !== n) throw new Error(`${name}: exit ${r.code}, ${tasks}/${n} tasks, ${calls} agent calls\n${(r.stderr ?? '').slice(-2000)}`);
    if (!cpu) throw new Error(`${name}: no CPU time in\n${r.stderr.slice(-500)}`);
    return { ms: r.ms, cpuMs: (Number(cpu[1]) + Number(cpu[2])) * 1000, calls };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

// ringmaster-untracked (checkpoints off, loop.track_changes false) is not a target: it says what change tracking costs.
// BENCH_PEERS_BASELINE (a built checkout of another commit) adds its runs with tracking on and off (checkpoints off)
// and with the default checkpoints, measured in the same rounds, and the paired per-round differences.
const BASELINE = process.env.BENCH_PEERS_BASELINE;
const SIDES = ['bash', 'ralphy', 'ralph-tui', 'ringmaster', 'ringmaster-checkpoints', 'ringmaster-untracked', ...(BASELINE ? ['baseline', 'baseline-untracked', 'baseline-checkpoints'] : [])];

/** Runs `rounds` interleaved rounds (each side at n1 and n2 tasks) and returns the result object. */
export async function benchPeers({ rounds, n1, n2 }) {
  const peers = installPeers();
  const rows = [];
  for (let round = 0; round < rounds; round++) {
    const row = { round };
    const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
    for (const name of order) {
      const small = await side(name, n1, peers);
      const large = await side(name, n2, peers);
      row[name] = (large.ms - small.ms) / (n2 - n1);
      row[`${name}Cpu`] = (large.cpuMs - small.cpuMs) / (n2 - n1);
      row[`${name}Calls`] = large.calls;
      row[`${name}WholeMs`] = large.ms / n2;
    }
    if (BASELINE) {
      row.diffTracked = row.ringmasterCpu - row.baselineCpu;
      row.diffUntracked = row['ringmaster-untrackedCpu'] - row['baseline-untrackedCpu'];
      row.diffCheckpoints = row['ringmaster-checkpointsCpu'] - row['baseline-checkpointsCpu'];
    }
    rows.push(row);
    process.stderr.write(`  peers round ${round + 1}/${rounds}: ${SIDES.map((s) => `${s} ${row[s].toFixed(2)} (${row[`${s}Cpu`].toFixed(2)} CPU)`).join(', ')} ms/it\n`);
  }
  const med = (key) => Math.round(median(rows.map((r) => r[key])) * 100) / 100;
  const perIteration = Object.fromEntries(SIDES.map((s) => [s, med(s)]));
  const fastestPeer = Math.min(perIteration.ralphy, perIteration['ralph-tui']);
  const ratioOff = perIteration.ringmaster / fastestPeer;
  const ratioDefault = perIteration['ringmaster-checkpoints'] / fastestPeer;
  return {
    name: 'peers',
    agent: 'bench/agents/peers/claude (fake Claude Code: stream-json, appends a line to work.txt per call)',
    peers: peers.versions,
    workspace: 'a small git repository (PRD.md, prd.json, PROMPT.md, work.txt): the orchestrators, not the repository, are compared',
    n1,
    n2,
    rounds,
    method: 'per iteration = (wall of the whole process for n2 tasks - for n1 tasks) / (n2 - n1), fresh workspace each run; median of rounds',
    ms_per_iteration: perIteration,
    cpu_ms_per_iteration: Object.fromEntries(SIDES.map((s) => [s, med(`${s}Cpu`)])),
    cpu_ratio_checkpoints_off: Math.round((med('ringmasterCpu') / Math.min(med('ralphyCpu'), med('ralph-tuiCpu'))) * 100) / 100,
    cpu_ratio_untracked: Math.round((med('ringmaster-untrackedCpu') / Math.min(med('ralphyCpu'), med('ralph-tuiCpu'))) * 100) / 100,
    ...(BASELINE
      ? {
          baseline: BASELINE,
          cpu_ratio_checkpoints_off_baseline: Math.round((med('baselineCpu') / Math.min(med('ralphyCpu'), med('ralph-tuiCpu'))) * 100) / 100,
          cpu_ratio_untracked_baseline: Math.round((med('baseline-untrackedCpu') / Math.min(med('ralphyCpu'), med('ralph-tuiCpu'))) * 100) / 100,
          cpu_ratio_default_checkpoints_baseline: Math.round((med('baseline-checkpointsCpu') / Math.min(med('ralphyCpu'), med('ralph-tuiCpu'))) * 100) / 100,
          // Paired per round (the same machine minute): this checkout minus the baseline, CPU ms per iteration.
          cpu_diff_vs_baseline: { tracked: med('diffTracked'), untracked: med('diffUntracked'), checkpoints: med('diffCheckpoints') },
        }
      : {}),
    cpu_ratio_default_checkpoints: Math.round((med('ringmaster-checkpointsCpu') / Math.min(med('ralphyCpu'), med('ralph-tuiCpu'))) * 100) / 100,
    ms_per_iteration_including_startup_at_n2: Object.fromEntries(SIDES.map((s) => [s, med(`${s}WholeMs`)])),
    agent_calls_at_n2: Object.fromEntries(SIDES.map((s) => [s, rows[0]?.[`${s}Calls`]])),
    fastest_peer_ms: fastestPeer,
    ratio_checkpoints_off: Math.round(ratioOff * 100) / 100,
    ratio_default_checkpoints: Math.round(ratioDefault * 100) / 100,
    target: 'ringmaster --agent claude <= 0.67x the fastest of ralphy and ralph-tui with checkpoints off, <= 1.0x with default checkpoints (every 5)',
    pass: ratioOff <= 0.67 && ratioDefault <= 1.0,
    rounds_raw: rows,
  };
}
