// Controlling a workflow run from other processes of the real CLI: pause and resume in place, stop then resume
// (the interrupted iteration runs again and is not counted), kill -9 in the middle of a step then resume from
// the stored definition (the YAML file deleted meanwhile), and resume of a loop that used all its iterations.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { agentRuns, env, lastRun, lines, promptOf, runWorkflow, startWorkflow, until, workspace } from './run-harness.js';

const loop = (max: number) => `name: fix\nloop:\n  until: COMPLETE\n  max_iterations: ${max}\nprompt: "Fix (iteration $ITERATION)"\n`;

async function runStatus(dir: string): Promise<{ id: string; status: string } | null> {
  const r = await runCli(['runs', '--json'], { cwd: dir, env: env() });
  return r.code === 0 ? ((JSON.parse(r.stdout) as Array<{ id: string; status: string }>)[0] ?? null) : null;
}

describe('workflow runs are controlled like any run', () => {
  it('pause after the current iteration, then resume in place', async () => {
    const dir = workspace({ fix: loop(4) }, [{ gate: true }, { gate: true }, { say: '<promise>COMPLETE</promise>\n' }]);
    const live = startWorkflow(dir, ['fix']);
    const run = await until('the run', () => runStatus(dir));
    await until('iteration 1', () => (agentRuns(dir) === 1 ? true : null));
    expect((await runCli(['pause', run.id], { cwd: dir, env: env() })).code).toBe(0);
    writeFileSync(join(dir, '.gate-1'), '');
    await until('paused', async () => ((await runStatus(dir))?.status === 'paused' ? true : null));
    expect(agentRuns(dir)).toBe(1);
    expect((await lastRun(dir)).run.meta).toMatchObject({ iteration_count: 1, max_iterations: 4 });
    expect(await runCli(['resume', run.id], { cwd: dir, env: env() })).toMatchObject({ code: 0, stdout: `resumed run ${run.id}\n` });
    await until('iteration 2', () => (agentRuns(dir) === 2 ? true : null));
    writeFileSync(join(dir, '.gate-2'), '');
    const ended = await live.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(lines(ended.stdout)).toEqual([
      '[T] Starting workflow: fix (loop until "COMPLETE", max 4 iterations)',
      '[T] Iteration 1/4',
      '[T] Pause requested (by user): pausing after the current iteration...',
      '[T] Iteration 1/4 completed in Xs (success)',
      '[T] Paused (by user) after iteration 1',
      '[T] Resumed',
      '[T] Iteration 2/4',
      '[T] Iteration 2/4 completed in Xs (success)',
      '[T] Iteration 3/4',
      '[T] Iteration 3/4 completed in Xs (complete)',
      '[T] Loop complete: fix (3 iterations), total: X',
    ]);
  }, 60_000);

  it('stop, then resume: the stopped iteration runs again and only counted iterations use up the loop', async () => {
    const dir = workspace({ fix: loop(4) }, [{ say: 'one\n' }, { gate: true }, { say: 'two <promise>COMPLETE</promise>\n' }]);
    const live = startWorkflow(dir, ['fix']);
    const run = await until('the run', () => runStatus(dir));
    await until('iteration 2', () => (agentRuns(dir) === 2 ? true : null));
    expect((await runCli(['stop', run.id], { cwd: dir, env: env() })).code).toBe(0);
    expect((await live.done).code).toBe(130);
    expect((await lastRun(dir)).run).toMatchObject({ status: 'stopped', stop_reason: 'user_stop', meta: { iteration_count: 1, current_step: { number: 1 } } });

    const resumed = await runCli(['resume', run.id], { cwd: dir, env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(lines(resumed.stdout)).toEqual([
      `Resuming run ${run.id} after 2 iteration(s), cost unknown`,
      '[T] Resuming workflow: fix (loop until "COMPLETE", max 4 iterations)',
      '[T] Iteration 2/4',
      '[T] Iteration 2/4 completed in Xs (complete)',
      '[T] Loop complete: fix (2 iterations), total: X',
    ]);
    expect(promptOf(dir, 3)).toBe('Fix (iteration 2)');
    const { run: after, iterations } = await lastRun(dir);
    expect(after).toMatchObject({ status: 'completed', stop_reason: 'success_signal', meta: { iteration_count: 2, current_step: null } });
    expect(iterations.map((i) => [i.number, i.status])).toEqual([
      [1, 'success'],
      [2, 'interrupted'],
      [3, 'complete'],
    ]);
  }, 60_000);

  it('kill -9 in the middle of a step, then resume: continues at that step from the stored definition, even with the file gone', async () => {
    const steps = 'name: pir\nsteps:\n  - name: plan\n    prompt: "Plan $USER_MESSAGE"\n  - name: build\n    loop:\n      until: DONE\n      max_iterations: 3\n    prompt: "Build $ITERATION/$MAX_ITERATIONS after [$PREVIOUS_OUTPUT]"\n  - name: review\n    prompt: Review\n';
    const dir = workspace({ pir: steps }, [{ say: 'the plan\n' }, { gate: true }, { say: 'built <promise>DONE</promise>\n' }, { say: 'reviewed\n' }]);
    const live = startWorkflow(dir, ['pir', 'the flag']);
    const run = await until('the run', () => runStatus(dir));
    await until('step 2', () => (agentRuns(dir) === 2 ? true : null));
    live.child.kill('SIGKILL');
    await live.done;
    rmSync(join(dir, '.ringmaster', 'workflows', 'pir.yaml'));

    const resumed = await runCli(['resume', run.id], { cwd: dir, env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(lines(resumed.stdout)).toEqual([
      `Resuming run ${run.id} after 2 iteration(s), cost unknown; iteration 2 recorded as interrupted`,
      '[T] Resuming workflow: pir (3 steps: plan → build (loop) → review)',
      '[T] Step 2/3: build',
      '[T] Iteration 1/3',
      '[T] Iteration 1/3 completed in Xs (complete)',
      '[T] Loop complete: build (1 iteration)',
      '[T] Step 3/3: review',
      '[T] Step 3/3 completed in Xs (success)',
      '[T] Workflow complete: pir (3 steps, 3 iterations), total: X',
    ]);
    expect(promptOf(dir, 3)).toBe('Build 1/3 after [the plan]');
    expect(agentRuns(dir)).toBe(4);
  }, 60_000);

  it('a loop that used all its iterations fails again on resume, and resume --max-iterations gives it more', async () => {
    const dir = workspace({ fix: loop(2) }, [{ say: 'one\n' }, { say: 'two\n' }, { say: 'three\n' }, { say: '<promise>COMPLETE</promise>\n' }]);
    expect((await runWorkflow(dir, ['fix'])).code).toBe(2);
    const { run } = await lastRun(dir);

    const again = await runCli(['resume', run.id, '--json'], { cwd: dir, env: env() });
    expect(again.code).toBe(2);
    expect(JSON.parse(again.stdout.trim().split('\n').at(-1) ?? '{}')).toMatchObject({
      type: 'run_finished',
      status: 'failed',
      stop_reason: 'max_iterations',
      message: 'Max iterations (2) reached without completion signal "COMPLETE" (resume with --max-iterations N to allow more)',
    });
    expect(agentRuns(dir)).toBe(2);

    const more = await runCli(['resume', run.id, '--max-iterations', '4'], { cwd: dir, env: env() });
    expect(more.code, more.stderr).toBe(0);
    expect(lines(more.stdout).slice(1)).toEqual([
      '[T] Resuming workflow: fix (loop until "COMPLETE", max 4 iterations)',
      '[T] Iteration 3/4',
      '[T] Iteration 3/4 completed in Xs (success)',
      '[T] Iteration 4/4',
      '[T] Iteration 4/4 completed in Xs (complete)',
      '[T] Loop complete: fix (4 iterations), total: X',
    ]);
    expect((await lastRun(dir)).run.meta).toMatchObject({ iteration_count: 4, max_iterations: 4 });
  }, 60_000);
});
