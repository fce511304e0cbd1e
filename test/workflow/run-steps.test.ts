// Steps workflows end to end through the CLI (seed 004: "steps workflows continue to work unchanged"): steps
// run once, in order, a step may loop, $PREVIOUS_OUTPUT carries the last step's text, an agent error or a loop
// out of iterations names the step; sessions carried from step to step and between loop iterations
// (fresh_context, clear_context) with a fake `claude` that records its argv.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { agentRuns, env, jsonEvents, lastRun, lines, promptOf, runWorkflow, workspace } from './run-harness.js';

const PIR = `name: pir
description: plan, implement, review
steps:
  - name: plan
    prompt: "Plan: $USER_MESSAGE"
  - name: implement
    loop:
      until: DONE
      max_iterations: 3
    prompt: "Implement $ITERATION/$MAX_ITERATIONS after [$PREVIOUS_OUTPUT]"
  - name: review
    clear_context: true
    prompt: "Review after [$PREVIOUS_OUTPUT]"
`;

describe('steps workflows', () => {
  it('plan once, loop on implement until its signal, review once: Step X/Y, Iteration X/Y, Loop complete', async () => {
    const dir = workspace({ pir: PIR }, [{ say: 'the plan\n' }, { say: 'item 1\n' }, { say: 'item 2 <promise>DONE</promise>\n' }, { say: 'looks fine\n' }]);
    const r = await runWorkflow(dir, ['pir', 'add a flag']);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      '[T] Starting workflow: pir (3 steps: plan → implement (loop) → review)',
      '[T] Step 1/3: plan',
      '[T] Step 1/3 completed in Xs (success)',
      '[T] Step 2/3: implement',
      '[T] Iteration 1/3',
      '[T] Iteration 1/3 completed in Xs (success)',
      '[T] Iteration 2/3',
      '[T] Iteration 2/3 completed in Xs (complete)',
      '[T] Loop complete: implement (2 iterations)',
      '[T] Step 3/3: review',
      '[T] Step 3/3 completed in Xs (success)',
      '[T] Workflow complete: pir (3 steps, 4 iterations), total: X',
    ]);
    expect([1, 2, 3, 4].map((n) => promptOf(dir, n))).toEqual([
      'Plan: add a flag',
      'Implement 1/3 after [the plan]',
      'Implement 2/3 after [item 1]',
      'Review after [item 2 <promise>DONE</promise>]',
    ]);
    const { run, iterations } = await lastRun(dir);
    expect(run).toMatchObject({ status: 'completed', stop_reason: 'success_signal', kind: 'workflow' });
    expect(run.meta).toMatchObject({ workflow: 'pir', workflow_kind: 'steps', user_message: 'add a flag', current_step: null, iteration_count: 1, max_iterations: 1 });
    expect((run.meta.steps as Array<Record<string, unknown>>).map((s) => [s.name, s.status, s.iterations, s.max_iterations, s.message])).toEqual([
      ['plan', 'completed', 1, 1, null],
      ['implement', 'completed', 2, 3, 'Loop complete: implement (2 iterations)'],
      ['review', 'completed', 1, 1, null],
    ]);
    expect(iterations.map((i) => i.unit_id)).toEqual(['plan', 'implement', 'implement', 'review']);
    const shown = await runCli(['show', run.id], { cwd: dir, env: env() });
    // Columns collapsed to one space: their widths follow the durations.
    const tail = shown.stdout.slice(shown.stdout.indexOf('workflow:')).replace(/\d+(\.\d)?m?s\b/g, 'T').replace(/ +/g, ' ');
    expect(tail.split('\n')).toEqual([
      'workflow: pir (3 steps) message: "add a flag"',
      'iteration_count: 1 max_iterations: 1',
      '',
      'STEP NAME STATUS ITERATIONS RUNTIME COST OUTCOME',
      ' 1 plan completed 1/1 T ?',
      ' 2 implement completed 2/3 T ? Loop complete: implement (2 iterations)',
      ' 3 review completed 1/1 T ?',
      '',
      '# STEP STATUS EXIT DURATION TOKENS IN TOKENS OUT COST SIGNAL ERROR',
      '1 plan success 0 T - - ? -',
      '2 implement success 0 T - - ? -',
      '3 implement complete 0 T - - ? yes',
      '4 review success 0 T - - ? -',
      '',
    ]);
  });

  it('a step without a loop runs once whatever it prints (no signal is looked for)', async () => {
    const dir = workspace({ two: 'name: two\nsteps:\n  - prompt: a\n  - prompt: b\n' }, [{ say: '<promise>COMPLETE</promise>\n' }, { say: 'fine\n' }]);
    const r = await runWorkflow(dir, ['two', '--json']);
    expect(r.code).toBe(0);
    const events = jsonEvents(r.stdout);
    expect(events.filter((e) => e.type === 'iteration_completed').map((e) => e.type === 'iteration_completed' && [e.unit?.id, e.outcome])).toEqual([
      ['step-1', 'success'],
      ['step-2', 'success'],
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', message: 'Workflow complete: two (2 steps, 2 iterations)' });
  });

  it('an agent error in a step fails the workflow with the step and the error; later steps never run', async () => {
    const dir = workspace({ pir: PIR }, [{ say: 'the plan\n' }, { say: 'tests crashed\n', exit: 2 }]);
    const r = await runWorkflow(dir, ['pir']);
    expect(r.code).toBe(1);
    expect(lines(r.stdout).slice(-1)).toEqual(['[T] Workflow failed: Step 2/3 (implement), iteration 1: tests crashed (2 iterations, total: X)']);
    expect(agentRuns(dir)).toBe(2);
    const { run } = await lastRun(dir);
    expect(run).toMatchObject({ status: 'failed', stop_reason: 'fatal_error' });
    expect((run.meta.steps as Array<Record<string, unknown>>).map((s) => [s.name, s.status, s.message])).toEqual([
      ['plan', 'completed', null],
      ['implement', 'failed', 'Step 2/3 (implement), iteration 1: tests crashed'],
      ['review', 'pending', null],
    ]);
    expect(run.meta.current_step).toEqual({ number: 2, name: 'implement' });
  });

  it("a loop step out of iterations fails the workflow with the seed's message, naming the step (exit 2)", async () => {
    const dir = workspace({ pir: PIR }, [{ say: 'the plan\n' }, { say: 'still working\n' }]);
    const r = await runWorkflow(dir, ['pir', '--json']);
    expect(r.code).toBe(2);
    const events = jsonEvents(r.stdout);
    expect(events.at(-1)).toMatchObject({
      type: 'run_finished',
      status: 'failed',
      stop_reason: 'max_iterations',
      message: 'Step 2/3 (implement), iteration 3: Max iterations (3) reached without completion signal "DONE"',
    });
    expect(events.filter((e) => e.type === 'step_completed').map((e) => e.type === 'step_completed' && [e.name, e.status, e.iterations])).toEqual([
      ['plan', 'completed', 1],
      ['implement', 'failed', 3],
    ]);
    expect(agentRuns(dir)).toBe(4);
  });
});

describe('sessions (fake claude that records its argv)', () => {
  const fakeClaude = () => env({ PATH: `${join(ROOT, 'test', 'fixtures', 'bin-claude-session')}:${process.env.PATH ?? ''}` });
  const argv = (dir: string) => readFileSync(join(dir, '.fake-claude-argv'), 'utf8').trim().split('\n');
  const loop = (fresh: boolean) => `name: l\nagent: claude\nloop:\n  until: DONE\n  max_iterations: 3\n  fresh_context: ${fresh}\nprompt: go\n`;

  it('fresh_context: false: iteration 1 starts a session, iterations 2..N resume it', async () => {
    const dir = workspace({ l: loop(false) });
    const r = await runCli(['workflow', 'run', 'l', '--json', '--checkpoint-interval', '0'], { cwd: dir, env: fakeClaude() });
    expect(r.code).toBe(2);
    const calls = argv(dir);
    expect(calls).toHaveLength(3);
    expect(calls[0]).not.toContain('--resume');
    expect(calls[1]).toContain('--resume sess-1');
    expect(calls[2]).toContain('--resume sess-1');
    const costs = jsonEvents(r.stdout).flatMap((e) => (e.type === 'iteration_completed' ? [[e.session_id, e.cost_usd]] : []));
    expect(costs).toEqual([
      ['sess-1', 0.01],
      ['sess-1', 0.01],
      ['sess-1', 0.01],
    ]);
  });

  it('fresh_context: true: every iteration is a new session', async () => {
    const dir = workspace({ l: loop(true) });
    const r = await runCli(['workflow', 'run', 'l', '--json', '--checkpoint-interval', '0'], { cwd: dir, env: fakeClaude() });
    expect(r.code).toBe(2);
    expect(argv(dir).every((a) => !a.includes('--resume'))).toBe(true);
    expect(jsonEvents(r.stdout).flatMap((e) => (e.type === 'iteration_completed' ? [e.session_id] : []))).toEqual(['sess-1', 'sess-2', 'sess-3']);
  });

  it('steps carry the session from step to step; clear_context starts a new one', async () => {
    const dir = workspace({ pir: PIR.replace('description: plan, implement, review\n', 'agent: claude\n') });
    const r = await runCli(['workflow', 'run', 'pir', '--max-iterations', '2', '--checkpoint-interval', '0'], { cwd: dir, env: fakeClaude() });
    // The fake never prints DONE: implement uses its two iterations and the workflow stops there.
    expect(r.code).toBe(2);
    expect(argv(dir).map((a) => /--resume (\S+)/.exec(a)?.[1] ?? 'new')).toEqual(['new', 'sess-1', 'sess-1']);
    const review = workspace({ r: 'name: r\nagent: claude\nsteps:\n  - prompt: one\n  - prompt: two\n  - prompt: three\n    clear_context: true\n' });
    expect((await runCli(['workflow', 'run', 'r', '--checkpoint-interval', '0'], { cwd: review, env: fakeClaude() })).code).toBe(0);
    expect(argv(review).map((a) => /--resume (\S+)/.exec(a)?.[1] ?? 'new')).toEqual(['new', 'sess-1', 'new']);
  });
});
