// Start-up of short commands, whole process, against a bare `node -e 0` of the same Node in the same rounds:
// `ringmaster hook stop` (run by Claude Code at every turn of a hook-mode loop; with no loop, and with an
// active loop whose turn is blocked) and a one-iteration `ringmaster run` with a no-op command agent.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENTS, CLI, NODE, median, run, summary } from './lib/proc.js';

/** Runs `command args` with `input` on stdin; returns its wall time in ms (throws unless it exits 0). */
function timed(command, args, { cwd, env, input = null }) {
  const started = process.hrtime.bigint();
  execFileSync(command, args, { cwd, env, input: input ?? '', stdio: ['pipe', 'pipe', 'pipe'] });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Like `timed`, for a command whose exit code is not 0 (a run that ends at max_iterations exits 2). */
async function timedCode(command, args, { cwd, env, code }) {
  const r = await run(command, args, { cwd, env });
  if (r.code !== code) throw new Error(`${args.join(' ')} exited ${r.code} (expected ${code})`);
  return r.ms;
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

/** Runs `rounds` interleaved rounds of every case; each round runs every case `perRound` times in turn. */
export async function benchStartup({ rounds, perRound }) {
  const root = mkdtempSync(join(tmpdir(), 'rm-bench-startup-'));
  const env = { ...process.env, RINGMASTER_HOME: join(root, 'home') };
  const empty = join(root, 'no-loop');
  mkdirSync(empty);
  const workspace = join(root, 'run-workspace');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'PROMPT.md'), 'Do nothing.\n');
  const noLoopInput = JSON.stringify({ session_id: 'bench', transcript_path: null, cwd: empty, hook_event_name: 'Stop', stop_hook_active: false });
  const cases = {
    node: () => timed(NODE, ['-e', '0'], { cwd: root, env }),
    hook_no_loop: () => timed(NODE, [CLI, 'hook', 'stop'], { cwd: empty, env, input: noLoopInput }),
    hook_active_loop: null,
    run_one_iteration: () =>
      timedCode(NODE, [CLI, 'run', '--agent-command', join(AGENTS, 'noop.sh'), '--max-iterations', '1', '--prompt-file', 'PROMPT.md', '--checkpoint-interval', '0'], { cwd: workspace, env, code: 2 }),
  };
  try {
    const hook = hookWorkspace(root, env);
    cases.hook_active_loop = () => timed(NODE, [CLI, 'hook', 'stop'], { cwd: hook.project, env, input: hook.input });
    const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    const ratios = { hook_no_loop: [], hook_active_loop: [], run_one_iteration: [] };
    for (let round = 0; round < rounds; round++) {
      const names = round % 2 === 0 ? Object.keys(cases) : Object.keys(cases).reverse();
      const inRound = Object.fromEntries(names.map((k) => [k, []]));
      for (let i = 0; i < perRound; i++) for (const name of names) inRound[name].push(await cases[name]());
      for (const name of names) samples[name].push(...inRound[name]);
      // Ratios per round (medians of the same round), so that load changes between rounds cancel out.
      for (const name of Object.keys(ratios)) ratios[name].push(median(inRound[name]) / median(inRound.node));
      process.stderr.write(`  round ${round + 1}/${rounds}: ${names.map((n) => `${n} ${median(inRound[n]).toFixed(1)} ms`).join(', ')}\n`);
    }
    const ratio = Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, summary(v, 2)]));
    return {
      name: 'startup',
      rounds,
      per_round: perRound,
      ms: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summary(v, 1)])),
      ratio_to_node: ratio,
      targets: { hook_stop: 2, run_one_iteration: 4 },
      pass: ratio.hook_no_loop.median <= 2 && ratio.hook_active_loop.median <= 2 && ratio.run_one_iteration.median <= 4,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
