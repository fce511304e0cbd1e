// max_cost while the agent works: an agent whose reported usage spends the run's budget in the middle of its turn
// is stopped there (its iteration ends with max_cost, the rest of its turn never happens), not after the turn.
// The budget counts what earlier iterations cost plus what the running one has spent so far.
import { existsSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTagged, runTagMatcher } from '../../src/os/process-tag.js';
import type { RunEvent } from '../../src/runner/events.js';
import { readAgentPid } from '../../src/runner/leftover.js';
import { agentPidPath } from '../../src/store/paths.js';
import { cleanEnv, fakeBin, normalise, runCli, startCli, useWorkspace } from '../helpers/cli.js';
import { testHome } from '../helpers/home.js';
import { until } from '../helpers/until.js';

const ws = useWorkspace('Work. When done, print <promise>COMPLETE</promise>.\n');

/** What the fake agent reports: input tokens early in its turn, and the cost in its final result. */
interface Turn {
  /** Input tokens of claude-opus-5-5 ($4 per million) in an assistant message early in the turn. */
  tokens: number;
  /** total_cost_usd of the final result. */
  cost: number;
  /** From this invocation on, the turn goes on for 30 s after that message. */
  slowFrom: number;
}

/** A fake `claude` playing `turn` each time; at the end of a turn it writes late-<n>.txt, then its result. */
function fakeClaude(dir: string, { tokens, cost, slowFrom }: Turn): string {
  return fakeBin(
    dir,
    'claude',
    `#!/bin/sh
cat >/dev/null
n=$(cat .fake-count 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > .fake-count
echo '{"type":"system","subtype":"init","session_id":"s'$n'","model":"claude-opus-5-5"}'
echo '{"type":"assistant","message":{"id":"m'$n'","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"reading the code"}],"usage":{"input_tokens":${tokens},"output_tokens":0}},"session_id":"s'$n'"}'
if [ "$n" -ge ${slowFrom} ]; then sleep 30; fi
echo "turn $n" > "late-$n.txt"
echo '{"type":"result","subtype":"success","is_error":false,"session_id":"s'$n'","total_cost_usd":${cost},"usage":{"input_tokens":${tokens},"output_tokens":0},"result":"done"}'
`,
  );
}

async function run(turn: Turn, args: string[] = ['--max-iterations', '5']): Promise<{ code: number | null; stdout: string; events: RunEvent[] }> {
  const bin = fakeClaude(ws.dir, turn);
  const env = cleanEnv({ PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` });
  const r = await runCli(['run', '--agent', 'claude', ...args, '--max-cost', '1', '--cooldown', '0', '--json'], { cwd: ws.dir, env });
  return { code: r.code, stdout: r.stdout, events: r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as RunEvent) };
}

const completed = (events: RunEvent[]): unknown[] =>
  events.flatMap((e) => (e.type === 'iteration_completed' ? [[e.iteration, e.outcome, e.error_kind, e.error_message, e.cost_usd]] : []));

const budgetWarnings = (events: RunEvent[]): string[] => events.flatMap((e) => (e.type === 'warning' && e.message.startsWith('max cost') ? [e.message] : []));

describe('max_cost reached in the middle of an iteration', () => {
  it('stops the agent there: the iteration ends with max_cost and its cost so far, the run completes at its budget', async () => {
    // $1.20 of tokens reported early in the first turn, against a $1 budget.
    const r = await run({ tokens: 300_000, cost: 1.2, slowFrom: 1 });
    expect(r.code).toBe(2);
    expect(completed(r.events)).toEqual([[1, 'failure', 'max_cost', "the run's cost budget was spent while the agent worked: agent stopped", 1.2]]);
    expect(r.events.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'max_cost', iterations: 1, cost_usd: 1.2 });
    expect(budgetWarnings(r.events)).toEqual(['max cost $1.00 reached while iteration 1 ran ($1.2000 spent): stopping the agent']);
    // The rest of the turn never happened, and nothing of the agent is left.
    expect(existsSync(join(ws.dir, 'late-1.txt'))).toBe(false);
    expect(findTagged(runTagMatcher(r.events[0]?.run_id ?? ''))).toEqual([]);
  });

  it("counts the earlier iterations' cost: the second turn is stopped once both together reach the budget", async () => {
    // $0.60 per turn: the first ends by itself under the budget; the second reaches it while it works.
    const r = await run({ tokens: 150_000, cost: 0.6, slowFrom: 2 });
    expect(r.code).toBe(2);
    expect(completed(r.events)).toEqual([
      [1, 'success', 'none', null, 0.6],
      [2, 'failure', 'max_cost', "the run's cost budget was spent while the agent worked: agent stopped", 0.6],
    ]);
    expect(r.events.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'max_cost', iterations: 2, cost_usd: 1.2 });
    expect(budgetWarnings(r.events)).toEqual(['max cost $1.00 reached while iteration 2 ran ($1.2000 spent): stopping the agent']);
    // Each turn's spend was reported as it happened, with the run's total so far.
    expect(r.events.flatMap((e) => (e.type === 'cost_so_far' ? [[e.iteration, e.cost_usd, e.total_cost_usd]] : []))).toEqual([
      [1, 0.6, 0.6],
      [2, 0.6, 1.2],
    ]);
    expect(existsSync(join(ws.dir, 'late-1.txt'))).toBe(true);
    expect(existsSync(join(ws.dir, 'late-2.txt'))).toBe(false);
  });

  it('in the last iteration allowed, with a failure threshold of 1, the run still ends with max_cost', async () => {
    const r = await run({ tokens: 300_000, cost: 1.2, slowFrom: 1 }, ['--max-iterations', '1', '--failure-threshold', '1']);
    expect(r.code).toBe(2);
    expect(completed(r.events)).toEqual([[1, 'failure', 'max_cost', "the run's cost budget was spent while the agent worked: agent stopped", 1.2]]);
    expect(r.events.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'max_cost', consecutive_failures: 0 });
  });

  it('says so in the terminal: the iteration was stopped, not failed, and the run reached its max cost', async () => {
    const bin = fakeClaude(ws.dir, { tokens: 300_000, cost: 1.2, slowFrom: 1 });
    const r = await runCli(['run', '--agent', 'claude', '--max-iterations', '3', '--max-cost', '1'], { cwd: ws.dir, env: cleanEnv({ PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` }) });
    expect(r.code).toBe(2);
    const lines = normalise(r.stdout + r.stderr).split('\n');
    expect(lines).toContain('WARNING: max cost $1.00 reached while iteration 1 ran ($1.2000 spent): stopping the agent');
    expect(lines).toContain('[T] Iteration 1/3 completed in Xs (stopped: max cost reached)');
    expect(lines).toContain("  reason: the run's cost budget was spent while the agent worked: agent stopped");
    expect(lines).toContain('[T] Reached max cost: $1.00 (spent $1.2000, 1 iteration completed, total: X)');
  });

  it('keeps what an iteration spent when its process is killed with kill -9, and the resumed run counts it', async () => {
    // No budget: the agent reports $0.60 early in its turn, then works for 30 s.
    const bin = fakeClaude(ws.dir, { tokens: 150_000, cost: 0.6, slowFrom: 1 });
    const env = cleanEnv({ PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` });
    const { child, done } = startCli(['run', '--agent', 'claude', '--max-iterations', '2', '--json'], { cwd: ws.dir, env });
    const show = async (): Promise<{ run: { id: string; cost_usd: number; cost_unknown: boolean }; iterations: Array<{ number: number; status: string; cost_usd: number | null }> } | null> => {
      const runs = JSON.parse((await runCli(['runs', '--json'], { cwd: ws.dir, env })).stdout) as Array<{ id: string }>;
      if (runs[0] === undefined) return null;
      return JSON.parse((await runCli(['show', runs[0].id, '--json'], { cwd: ws.dir, env })).stdout) as never;
    };
    const seen = await until('the iteration cost of $0.60 recorded', async () => {
      const shown = await show();
      return shown?.iterations[0]?.cost_usd === 0.6 ? shown : null;
    });
    const id = seen.run.id;
    const agent = readAgentPid(agentPidPath(testHome(), id))?.pid ?? 0;
    expect(agent).toBeGreaterThan(1);
    child.kill('SIGKILL');
    process.kill(-agent, 'SIGKILL');
    await done;
    // The run is orphaned with what its iteration had spent so far.
    expect(await show()).toMatchObject({ run: { id, cost_usd: 0.6, cost_unknown: false }, iterations: [{ number: 1, status: 'running', cost_usd: 0.6 }] });
    // Resumed, iteration 1 is interrupted with its cost so far kept; iteration 2 (the last allowed) runs; the total
    // counts both, and says some cost is not known (what iteration 1 spent after its last report is not).
    writeFileSync(join(ws.dir, '.fake-count'), '-100');
    const resumed = await runCli(['resume', id, '--json'], { cwd: ws.dir, env });
    expect(resumed.code).toBe(2);
    expect(await show()).toMatchObject({
      run: { id, cost_usd: 1.2, cost_unknown: true },
      iterations: [
        { number: 1, status: 'interrupted', cost_usd: 0.6 },
        { number: 2, status: 'success', cost_usd: 0.6 },
      ],
    });
  });

  it('does not stop an agent whose final result is what crosses the budget: its turn is over', async () => {
    // Nothing spent mid-turn; each result says $0.70: the second crosses the budget as the turn ends.
    const r = await run({ tokens: 0, cost: 0.7, slowFrom: 99 });
    expect(r.code).toBe(2);
    expect(budgetWarnings(r.events)).toEqual([]);
    expect(completed(r.events)).toEqual([
      [1, 'success', 'none', null, 0.7],
      [2, 'success', 'none', null, 0.7],
    ]);
    expect(r.events.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'max_cost', iterations: 2, cost_usd: 1.4 });
    expect(existsSync(join(ws.dir, 'late-2.txt'))).toBe(true);
  });
});
