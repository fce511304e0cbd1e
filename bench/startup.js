// Start-up of short commands, whole process, against a bare `node -e 0` of the same Node in the same rounds:
// `ringmaster hook stop` (run by Claude Code at every turn of a hook-mode loop; with no loop, and with an
// active loop whose turn is blocked) and a one-iteration `ringmaster run` with a no-op command agent. With
// BENCH_STARTUP_BASELINE=<another checkout, built> the same three also run from that checkout in the same rounds
// (base_*), so that a change is measured against the code before it on the same machine at the same moment.
// Wall time, and CPU time (user + system, from /usr/bin/time when present) that a loaded machine distorts less.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENTS, CLI, NODE, median, run, summary } from './lib/proc.js';

const TIME = '/usr/bin/time';
const TIME_FILE = join(tmpdir(), `rm-bench-startup-time-${process.pid}.txt`);

/** Under /usr/bin/time when there is one (its CPU figures land in TIME_FILE). */
function wrapped(command, args) {
  return existsSync(TIME) ? [TIME, ['-o', TIME_FILE, '-f', '%U %S', command, ...args]] : [command, args];
}

/** CPU ms (user + system) of the last wrapped command, or null. */
function lastCpuMs() {
  if (!existsSync(TIME)) return null;
  const [user, sys] = readFileSync(TIME_FILE, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  return Math.round((user + sys) * 1000);
}

/** Runs `command args` with `input` on stdin; returns its wall and CPU time in ms (throws unless it exits 0). */
function timed(command, args, { cwd, env, input = null }) {
  const started = process.hrtime.bigint();
  const [c, a] = wrapped(command, args);
  execFileSync(c, a, { cwd, env, input: input ?? '', stdio: ['pipe', 'pipe', 'pipe'] });
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, cpu: lastCpuMs() };
}

/** Like `timed`, for a command whose exit code is not 0 (a run that ends at max_iterations exits 2). */
async function timedCode(command, args, { cwd, env, code }) {
  const [c, a] = wrapped(command, args);
  const r = await run(c, a, { cwd, env });
  if (r.code !== code) throw new Error(`${args.join(' ')} exited ${r.code} (expected ${code})`);
  return { ms: r.ms, cpu: lastCpuMs() };
}

/** A workspace with a hook-mode loop started (tracker), a transcript and the hook's stdin for it. */
function hookWorkspace(root, env) {
  const project = join(root, 'loop-project');
  mkdirSync(project, { recursive: true });
  execFileSync(NODE, [CLI, 'loop', 'start', 'Benchmark the stop hook', '--max-iterations', '1000000', '--completion-marker', 'DONE'], { cwd: project, env, stdio: 'ignore' });
  const transcript = join(root, 'transcript.jsonl');
  writeFileSync(transcript, `${JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'still working' }] } })}\n`);
  const input = JSON.stringify({ session_id: 'bench', transcript_path: transcript, cwd: project, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'still working' });
  return { project, input };
}

/** The three commands measured, run by the CLI at `cli`, named with `prefix`. */
function commandCases(cli, prefix, { env, empty, workspace, hook, noLoopInput }) {
  return {
    [`${prefix}hook_no_loop`]: () => timed(NODE, [cli, 'hook', 'stop'], { cwd: empty, env, input: noLoopInput }),
    [`${prefix}hook_active_loop`]: () => timed(NODE, [cli, 'hook', 'stop'], { cwd: hook.project, env, input: hook.input }),
    [`${prefix}run_one_iteration`]: () =>
      timedCode(NODE, [cli, 'run', '--agent-command', join(AGENTS, 'noop.sh'), '--max-iterations', '1', '--prompt-file', 'PROMPT.md', '--checkpoint-interval', '0'], { cwd: workspace, env, code: 2 }),
  };
}

const COMMANDS = ['hook_no_loop', 'hook_active_loop', 'run_one_iteration'];

/** Runs `rounds` interleaved rounds of every case; each round runs every case `perRound` times in turn. */
export async function benchStartup({ rounds, perRound, baseline = process.env.BENCH_STARTUP_BASELINE }) {
  const root = mkdtempSync(join(tmpdir(), 'rm-bench-startup-'));
  const env = { ...process.env, RINGMASTER_HOME: join(root, 'home') };
  const empty = join(root, 'no-loop');
  mkdirSync(empty);
  const workspace = join(root, 'run-workspace');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'PROMPT.md'), 'Do nothing.\n');
  const noLoopInput = JSON.stringify({ session_id: 'bench', transcript_path: null, cwd: empty, hook_event_name: 'Stop', stop_hook_active: false });
  try {
    const setup = { env, empty, workspace, hook: hookWorkspace(root, env), noLoopInput };
    const cases = {
      node: () => timed(NODE, ['-e', '0'], { cwd: root, env }),
      ...commandCases(CLI, '', setup),
      ...(baseline ? commandCases(join(baseline, 'bin', 'ringmaster.js'), 'base_', setup) : {}),
    };
    const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, { ms: [], cpu: [] }]));
    const ratios = Object.fromEntries(Object.keys(cases).filter((k) => k !== 'node').map((k) => [k, []]));
    for (let round = 0; round < rounds; round++) {
      const names = round % 2 === 0 ? Object.keys(cases) : Object.keys(cases).reverse();
      const inRound = Object.fromEntries(names.map((k) => [k, []]));
      for (let i = 0; i < perRound; i++) {
        for (const name of names) {
          const t = await cases[name]();
          inRound[name].push(t.ms);
          samples[name].ms.push(t.ms);
          if (t.cpu !== null) samples[name].cpu.push(t.cpu);
        }
      }
      // Ratios per round (medians of the same round), so that load changes between rounds cancel out.
      for (const name of Object.keys(ratios)) ratios[name].push(median(inRound[name]) / median(inRound.node));
      process.stderr.write(`  round ${round + 1}/${rounds}: ${names.map((n) => `${n} ${median(inRound[n]).toFixed(1)} ms`).join(', ')}\n`);
    }
    const ratio = Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, summary(v, 2)]));
    const cpu = Object.fromEntries(Object.entries(samples).filter(([, v]) => v.cpu.length > 0).map(([k, v]) => [k, summary(v.cpu, 0)]));
    const cpuRatio = cpu.node ? Object.fromEntries(Object.keys(ratios).filter((k) => cpu[k]).map((k) => [k, Math.round((cpu[k].median / cpu.node.median) * 100) / 100])) : null;
    const vsBaseline = baseline ? Object.fromEntries(COMMANDS.map((k) => [k, Math.round((ratio[k].median / ratio[`base_${k}`].median) * 100) / 100])) : null;
    return {
      name: 'startup',
      rounds,
      per_round: perRound,
      baseline: baseline ?? null,
      ms: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summary(v.ms, 1)])),
      cpu_ms: cpu,
      ratio_to_node: ratio,
      cpu_ratio_to_node: cpuRatio,
      ratio_to_baseline: vsBaseline,
      targets: { hook_stop: 2, run_one_iteration: 4 },
      pass: ratio.hook_no_loop.median <= 2 && ratio.hook_active_loop.median <= 2 && ratio.run_one_iteration.median <= 4,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(TIME_FILE, { force: true });
  }
}
