// Orchestration overhead per iteration: ringmaster with a no-op agent next to a bare bash loop running the
// same agent, interleaved round by round in the same process so both see the same machine noise.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENTS, CLI, NODE, jsonLines, median, run, summary } from './lib/proc.js';

const AGENT = join(AGENTS, 'noop.sh');
const PROMPT = '# Task\n\nRead the plan, pick the most important item, do it, run the tests, commit.\n'.repeat(8);

// The baseline, `while ...; do agent < PROMPT.md; done`, with the count and paths as arguments.
const BASH_LOOP = 'i=0; while [ "$i" -lt "$1" ]; do "$2" < "$3"; i=$((i+1)); done';
// The same loop also writing each iteration's output to its own log file, as ringmaster does.
const BASH_LOOP_LOGGED = 'mkdir -p logs; i=0; while [ "$i" -lt "$1" ]; do "$2" < "$3" > "logs/iteration-$i.log" 2>&1; i=$((i+1)); done';

async function bashRound(script, n, cwd) {
  const r = await run('bash', ['-c', script, 'bash', String(n), AGENT, join(cwd, 'PROMPT.md')], { cwd });
  if (r.code !== 0) throw new Error(`bash loop exited ${r.code}`);
  return r.ms;
}

async function ringmasterRound(n, cwd) {
  const args = [CLI, 'run', '--agent-command', AGENT, '--max-iterations', String(n), '--prompt-file', join(cwd, 'PROMPT.md'), '--cwd', cwd, '--checkpoint-interval', '0', '--json'];
  // Its own data directory in the workspace: the bench never writes to the user's store.
  const r = await run(NODE, args, { cwd, capture: true, env: { ...process.env, RINGMASTER_HOME: join(cwd, '.ringmaster-home') } });
  const events = jsonLines(r.stdout);
  const started = events.find((e) => e.type === 'run_started');
  const finished = events.find((e) => e.type === 'run_finished');
  const completed = events.filter((e) => e.type === 'iteration_completed');
  if (r.code !== 2 || !started || !finished || completed.length !== n) {
    throw new Error(`ringmaster run: exit ${r.code}, ${completed.length}/${n} iterations\n${r.stderr}`);
  }
  // --json times are epoch milliseconds.
  const loopMs = finished.time - started.time;
  return { wallMs: r.ms, loopMs, exitCode: r.code, agentMedianMs: median(completed.map((e) => e.duration_ms)) };
}

async function libraryRound(n, cwd) {
  const r = await run(NODE, [join(import.meta.dirname, 'loop-no-store.js'), String(n), AGENT, cwd], { cwd, capture: true });
  if (r.code !== 0) throw new Error(`library loop exited ${r.code}\n${r.stderr}`);
  return JSON.parse(r.stdout).loop_ms;
}

/** Runs `rounds` interleaved rounds of `n` iterations each and returns the result object. */
export async function benchOverhead({ rounds, iterations: n }) {
  const rows = [];
  for (let round = 0; round < rounds; round++) {
    const cwd = mkdtempSync(join(tmpdir(), 'rm-bench-overhead-'));
    try {
      writeFileSync(join(cwd, 'PROMPT.md'), PROMPT);
      const row = { round };
      // Alternate which side goes first so neither always gets the warm (or cold) slot.
      const order = round % 2 === 0 ? ['bash', 'logged', 'ringmaster', 'library'] : ['library', 'ringmaster', 'logged', 'bash'];
      for (const side of order) {
        if (side === 'bash') row.bashMs = await bashRound(BASH_LOOP, n, cwd);
        else if (side === 'logged') row.bashLoggedMs = await bashRound(BASH_LOOP_LOGGED, n, cwd);
        else if (side === 'library') row.libraryLoopMs = await libraryRound(n, cwd);
        else row.ringmaster = await ringmasterRound(n, cwd);
      }
      rows.push(row);
      process.stderr.write(
        `  overhead round ${round + 1}/${rounds}: bash ${(row.bashMs / n).toFixed(2)} ms/it, ` +
          `ringmaster ${(row.ringmaster.loopMs / n).toFixed(2)} ms/it in loop, ${row.ringmaster.wallMs.toFixed(0)} ms process\n`,
      );
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }
  const bashPerIt = rows.map((r) => r.bashMs / n);
  const loggedPerIt = rows.map((r) => r.bashLoggedMs / n);
  const rmLoopPerIt = rows.map((r) => r.ringmaster.loopMs / n);
  const rmWallPerIt = rows.map((r) => r.ringmaster.wallMs / n);
  const rmFixed = rows.map((r) => r.ringmaster.wallMs - r.ringmaster.loopMs);
  const ratio = median(rmLoopPerIt) / median(bashPerIt);
  const ratioWall = median(rows.map((r) => r.ringmaster.wallMs)) / median(rows.map((r) => r.bashMs));
  return {
    name: 'overhead',
    agent: 'bench/agents/noop.sh (sh exec cat > /dev/null)',
    iterations: n,
    rounds,
    bash_loop_ms_per_iteration: summary(bashPerIt, 3),
    bash_loop_logged_ms_per_iteration: summary(loggedPerIt, 3),
    ringmaster_ms_per_iteration_in_loop: summary(rmLoopPerIt, 3),
    ringmaster_ms_per_iteration_whole_process: summary(rmWallPerIt, 3),
    ringmaster_fixed_ms_startup_and_exit: summary(rmFixed, 1),
    library_loop_without_store_ms_per_iteration: summary(rows.map((r) => r.libraryLoopMs / n), 3),
    store_cost_ms_per_iteration: Math.round((median(rmLoopPerIt) - median(rows.map((r) => r.libraryLoopMs / n))) * 1000) / 1000,
    ratio_per_iteration: Math.round(ratio * 100) / 100,
    ratio_vs_logged_loop: Math.round((median(rmLoopPerIt) / median(loggedPerIt)) * 100) / 100,
    ratio_whole_process: Math.round(ratioWall * 100) / 100,
    target: 'ratio_per_iteration <= 2',
    pass: ratio <= 2,
    rounds_raw: rows,
  };
}
