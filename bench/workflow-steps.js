// Whether a steps workflow slows down as it grows (issue 21): `ringmaster workflow run` of workflows of 40, 1,000 and
// 10,000 steps (one iteration each, the no-op command agent `true`, checkpoints off, not a git workspace), each in a
// fresh data directory. Per size: steps per second over the whole run (run_started → run_finished, from its own
// events), over its first and its last 40 steps, CPU ms per step (ringmaster and its agents, /usr/bin/time), and the
// size of what is rewritten after every step (runs.meta) and of what is stored once (run_definitions).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, NODE, jsonLines, run } from './lib/proc.js';

/** A workspace with one workflow `many` of `steps` steps. */
function workspace(steps) {
  const dir = mkdtempSync(join(tmpdir(), 'rm-bench-wf-'));
  mkdirSync(join(dir, '.ringmaster', 'workflows'), { recursive: true });
  const lines = ['name: many', 'steps:'];
  for (let i = 1; i <= steps; i++) lines.push(`  - name: step-${i}`, `    prompt: "Do step ${i} of the plan, then say what you did."`);
  writeFileSync(join(dir, '.ringmaster', 'workflows', 'many.yaml'), `${lines.join('\n')}\n`);
  return dir;
}

/** Steps per second between the ends of iteration `from` and iteration `to` (1-based, inclusive of the steps after `from`). */
function rate(completed, from, to) {
  const a = completed[from - 1];
  const b = completed[to - 1];
  return Math.round(((to - from) / ((b.time - a.time) / 1000)) * 10) / 10;
}

async function one(steps) {
  const cwd = workspace(steps);
  const home = mkdtempSync(join(tmpdir(), 'rm-bench-wf-home-'));
  try {
    const args = [CLI, 'workflow', 'run', 'many', '--agent-command', 'true', '--cwd', cwd, '--checkpoint-interval', '0', '--json'];
    const r = await run('/usr/bin/time', ['-f', 'cpu %U %S', NODE, ...args], { cwd, capture: true, env: { ...process.env, RINGMASTER_HOME: home } });
    const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
    const events = jsonLines(r.stdout);
    const started = events.find((e) => e.type === 'run_started');
    const finished = events.find((e) => e.type === 'run_finished');
    const completed = events.filter((e) => e.type === 'iteration_completed');
    if (r.code !== 0 || !cpu || !started || !finished || completed.length !== steps) throw new Error(`${steps} steps: exit ${r.code}, ${completed.length} iterations\n${r.stderr.slice(-2000)}`);
    const db = new DatabaseSync(join(home, 'ringmaster.db'), { readOnly: true });
    const sizes = db.prepare('SELECT length(r.meta_json) AS meta, length(d.definition_json) AS definition FROM runs r LEFT JOIN run_definitions d ON d.run_id = r.id').get();
    db.close();
    const window = Math.min(40, steps - 1);
    return {
      steps,
      steps_per_s: Math.round((steps / ((finished.time - started.time) / 1000)) * 10) / 10,
      first_steps_per_s: rate(completed, 1, 1 + window),
      last_steps_per_s: rate(completed, steps - window, steps),
      cpu_ms_per_step: Math.round((((Number(cpu[1]) + Number(cpu[2])) * 1000) / steps) * 10) / 10,
      meta_bytes: sizes.meta,
      definition_bytes: sizes.definition,
    };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/** Runs each size once (the small ones `rounds` times) and returns the result object. */
export async function benchWorkflowSteps({ sizes, rounds }) {
  const runs = [];
  for (let round = 0; round < rounds; round++) for (const steps of sizes) if (round === 0 || steps <= 1000) runs.push(await one(steps));
  const bySize = sizes.map((steps) => {
    const of = runs.filter((r) => r.steps === steps);
    const median = (key) => of.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(of.length / 2)];
    return { steps, runs: of.length, steps_per_s: median('steps_per_s'), cpu_ms_per_step: median('cpu_ms_per_step'), meta_bytes: median('meta_bytes'), definition_bytes: median('definition_bytes') };
  });
  // "About equal": the largest workflow runs at least 70% as many steps per second as the smallest, its last 40 steps
  // at least 70% as fast as its first 40, and the metadata rewritten after every step is no larger (a busy machine
  // shakes wall time: CPU per step is reported too, though the smallest run's includes Node's start-up in fewer steps).
  const small = bySize[0];
  const large = bySize.at(-1);
  const largest = runs.find((r) => r.steps === large.steps);
  const pass = large.steps_per_s >= small.steps_per_s * 0.7 && largest.last_steps_per_s >= largest.first_steps_per_s * 0.7 && large.meta_bytes <= small.meta_bytes * 1.1;
  return { pass, sizes, by_size: bySize, runs };
}
