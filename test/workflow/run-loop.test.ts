// Seed 004 end to end through the CLI, loop workflows: max_iterations 1, the signal anywhere in the agent's
// own text (any case in the promise form; the plain form only on its own line or at the end), an agent error,
// invalid files refused before anything runs, the iteration count in the run's metadata, run options over
// the workflow's, until_command, prompt variables, and the --json event stream.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { agentRuns, env, jsonEvents, lastRun, lines, promptOf, runWorkflow, workspace } from './run-harness.js';

const loop = (max: number, extra = '') => `name: fix
description: keeps fixing
loop:
  until: COMPLETE
  max_iterations: ${max}
${extra}prompt: |
  Fix the next thing. Print <promise>COMPLETE</promise> when nothing is left.
`;

describe('loop workflows', () => {
  it('max_iterations 1 with the signal: one iteration, Loop complete, exit 0', async () => {
    const dir = workspace({ fix: loop(1) }, [{ say: 'fixed it <promise>COMPLETE</promise>\n' }]);
    const r = await runWorkflow(dir, ['fix']);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      '[T] Starting workflow: fix (loop until "COMPLETE", max 1 iteration)',
      '[T] Iteration 1/1',
      '[T] Iteration 1/1 completed in Xs (complete)',
      '[T] Loop complete: fix (1 iteration), total: X',
    ]);
    expect(r.stderr).toBe("WARNING: agent 'command' cannot resume sessions: each iteration will be a new session\n");
    expect(agentRuns(dir)).toBe(1);
  });

  it("max_iterations 1 without the signal: the run fails with the seed's message and exit code 2", async () => {
    const dir = workspace({ fix: loop(1) }, [{ say: 'fixed one thing\n' }]);
    const r = await runWorkflow(dir, ['fix']);
    expect(r.code).toBe(2);
    expect(lines(r.stdout)).toEqual([
      '[T] Starting workflow: fix (loop until "COMPLETE", max 1 iteration)',
      '[T] Iteration 1/1',
      '[T] Iteration 1/1 completed in Xs (success)',
      '[T] Workflow failed: Max iterations (1) reached without completion signal "COMPLETE" (1 iteration, total: X)',
    ]);
    const { run } = await lastRun(dir);
    expect(run).toMatchObject({ status: 'failed', stop_reason: 'max_iterations', kind: 'workflow' });
    expect(run.meta).toMatchObject({ workflow: 'fix', workflow_kind: 'loop', iteration_count: 1, max_iterations: 1, current_step: { number: 1, name: 'fix' } });
    expect(run.meta.steps).toEqual([
      { name: 'fix', status: 'failed', iterations: 1, max_iterations: 1, cost_usd: 0, cost_unknown: true, runtime_ms: expect.any(Number) as number, message: 'Max iterations (1) reached without completion signal "COMPLETE"' },
    ]);
  });

  it('iterates until the signal, reports Iteration X/Y, and stores the iteration count in the run metadata', async () => {
    const dir = workspace({ fix: loop(5) }, [{ say: 'one\n' }, { say: 'two\n' }, { say: 'three <promise>COMPLETE</promise>\n' }]);
    const r = await runWorkflow(dir, ['fix']);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      '[T] Starting workflow: fix (loop until "COMPLETE", max 5 iterations)',
      '[T] Iteration 1/5',
      '[T] Iteration 1/5 completed in Xs (success)',
      '[T] Iteration 2/5',
      '[T] Iteration 2/5 completed in Xs (success)',
      '[T] Iteration 3/5',
      '[T] Iteration 3/5 completed in Xs (complete)',
      '[T] Loop complete: fix (3 iterations), total: X',
    ]);
    const { run, iterations } = await lastRun(dir);
    expect(run).toMatchObject({ status: 'completed', stop_reason: 'success_signal', kind: 'workflow', iterations: 3 });
    expect(run.meta).toMatchObject({ workflow: 'fix', workflow_kind: 'loop', description: 'keeps fixing', user_message: '', iteration_count: 3, max_iterations: 5, current_step: null, previous_output: 'three <promise>COMPLETE</promise>' });
    expect((run.meta.steps as Array<{ status: string; message: string }>).map((s) => [s.status, s.message])).toEqual([['completed', 'Loop complete: fix (3 iterations)']]);
    expect(iterations.map((i) => [i.number, i.unit_id, i.status, i.completion_signal_found])).toEqual([
      [1, 'fix', 'success', false],
      [2, 'fix', 'success', false],
      [3, 'fix', 'complete', true],
    ]);
    // `show` prints the workflow and its steps.
    const shown = await runCli(['show', run.id], { cwd: dir, env: env() });
    expect(shown.stdout).toContain('workflow: fix (loop)\niteration_count: 3   max_iterations: 5\n');
    expect(shown.stdout).toMatch(/ {3}1 {2}fix {3}completed {9}3\/5 +\S+ +\? {2}Loop complete: fix \(3 iterations\)\n/);
  });

  const detection: Array<[string, string | string[], boolean]> = [
    ['the promise in the middle of a message', 'Done: <promise>COMPLETE</promise> and here is what I changed.\nMore notes.\n', true],
    ['the promise in another case with whitespace inside the tags', 'all good < Promise >  complete </PROMISE> bye\n', true],
    ['the promise split across output chunks', ['almost <prom', 'ise>COMP', 'LETE</promise>\n'], true],
    ['the plain signal on its own line mid-output', 'Finished the last story.\nCOMPLETE\nSummary follows.\n', true],
    ['the plain signal at the very end of the output', 'All stories pass: COMPLETE', true],
    ['prose that mentions the signal', 'I will print COMPLETE when every story passes.\n', false],
    ['the plain signal in another case (only the promise form ignores case)', 'complete\n', false],
    ['the signal only in the echoed prompt', '', false],
  ];
  it.each(detection)('completion: %s', async (_what, say, complete) => {
    const dir = workspace({ fix: loop(1) }, [{ say, echo: say === '' }]);
    const r = await runWorkflow(dir, ['fix', '--json']);
    expect(r.code).toBe(complete ? 0 : 2);
    const done = jsonEvents(r.stdout).find((e) => e.type === 'iteration_completed');
    expect(done).toMatchObject({ completion_signal_found: complete, outcome: complete ? 'complete' : 'success' });
  });

  it('an agent error during an iteration fails the workflow at once with the iteration and the error (exit 1)', async () => {
    const dir = workspace({ fix: loop(5) }, [{ say: 'one\n' }, { say: 'fatal: cannot write to the disk\n', exit: 3 }, { say: 'never\n' }]);
    const r = await runWorkflow(dir, ['fix']);
    expect(r.code).toBe(1);
    expect(lines(r.stdout).slice(3)).toEqual([
      '[T] Iteration 2/5',
      '[T] Iteration 2/5 completed in Xs (failure)',
      '  reason: fatal: cannot write to the disk',
      '[T] Workflow failed: Iteration 2: fatal: cannot write to the disk (2 iterations, total: X)',
    ]);
    expect(agentRuns(dir)).toBe(2);
    const { run } = await lastRun(dir);
    expect(run).toMatchObject({ status: 'failed', stop_reason: 'fatal_error' });
    expect(run.meta).toMatchObject({ iteration_count: 2, current_step: { number: 1, name: 'fix' } });
  });

  it("the agent's failure signal fails the workflow (success vs failure signals)", async () => {
    const dir = workspace({ fix: loop(5) }, [{ say: 'I am blocked: <promise>FAILURE</promise>\n' }]);
    const r = await runWorkflow(dir, ['fix', '--json']);
    expect(r.code).toBe(1);
    expect(jsonEvents(r.stdout).at(-1)).toMatchObject({ type: 'run_finished', status: 'failed', stop_reason: 'fatal_error', message: 'Iteration 1: the agent signalled failure' });
  });

  it('run options override the workflow: --max-iterations, and --agent-command over its agent', async () => {
    const dir = workspace({ fix: `agent: codex\nmodel: gpt-5\n${loop(9)}` }, [{ say: 'working\n' }]);
    const r = await runWorkflow(dir, ['fix', '--max-iterations', '2']);
    expect(r.code).toBe(2);
    expect(lines(r.stdout)).toEqual([
      '[T] Starting workflow: fix (loop until "COMPLETE", max 2 iterations)',
      '[T] Iteration 1/2',
      '[T] Iteration 1/2 completed in Xs (success)',
      '[T] Iteration 2/2',
      '[T] Iteration 2/2 completed in Xs (success)',
      '[T] Workflow failed: Max iterations (2) reached without completion signal "COMPLETE" (2 iterations, total: X)',
    ]);
    expect(agentRuns(dir)).toBe(2);
  });

  it('until_command: its exit code 0 ends the loop like the signal', async () => {
    const check = `${process.execPath} -e "process.exit(Number(require('fs').readFileSync('.agent-count', 'utf8')) >= 2 ? 0 : 1)"`;
    const dir = workspace({ fix: loop(5, `  until_command: ${JSON.stringify(check)}\n`) });
    const r = await runWorkflow(dir, ['fix', '--json']);
    expect(r.code).toBe(0);
    const events = jsonEvents(r.stdout);
    expect(events.filter((e) => e.type === 'iteration_completed').map((e) => e.type === 'iteration_completed' && e.outcome)).toEqual(['success', 'success']);
    expect(events.find((e) => e.type === 'loop_completed')).toMatchObject({ name: 'fix', iterations: 2, max_iterations: 5, until: 'COMPLETE', by: 'until_command' });
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', message: 'Loop complete: fix (2 iterations)' });
  });

  it('substitutes $USER_MESSAGE, $WORKFLOW_ID, $ITERATION, $MAX_ITERATIONS and $PREVIOUS_OUTPUT; leaves unknown names', async () => {
    const dir = workspace(
      { vars: 'name: vars\nloop:\n  until: DONE\n  max_iterations: 3\nprompt: "msg=$USER_MESSAGE id=${WORKFLOW_ID} it=$ITERATION/$MAX_ITERATIONS prev=[$PREVIOUS_OUTPUT] $HOME_DIR"\n' },
      [{ say: '  first answer  \n' }, { say: 'DONE\n' }],
    );
    const r = await runWorkflow(dir, ['vars', 'add a --verbose flag', '--json']);
    expect(r.code).toBe(0);
    const id = jsonEvents(r.stdout)[0]?.run_id;
    expect(promptOf(dir, 1)).toBe(`msg=add a --verbose flag id=${id} it=1/3 prev=[] $HOME_DIR`);
    expect(promptOf(dir, 2)).toBe(`msg=add a --verbose flag id=${id} it=2/3 prev=[first answer] $HOME_DIR`);
  });

  it('--json prints the stored events: workflow, step and loop events around the iterations', async () => {
    const dir = workspace({ fix: loop(3) }, [{ say: 'one\n' }, { say: '<promise>COMPLETE</promise>\n' }]);
    const r = await runWorkflow(dir, ['fix', 'go', '--json']);
    expect(r.code).toBe(0);
    const events = jsonEvents(r.stdout);
    expect(events.map((e) => e.type)).toEqual([
      'run_started',
      'workflow_started',
      'warning',
      'step_started',
      'iteration_started',
      'iteration_completed',
      'iteration_started',
      'completion_signal_detected',
      'iteration_completed',
      'loop_completed',
      'step_completed',
      'completed',
      'run_finished',
    ]);
    expect(events[0]).toMatchObject({ kind: 'workflow', label: 'fix', max_iterations: null, agent: 'command' });
    expect(events[1]).toMatchObject({ name: 'fix', workflow_kind: 'loop', user_message: 'go', steps: [{ name: 'fix', agent: 'command', loop: { until: 'COMPLETE', max_iterations: 3, fresh_context: false } }] });
    expect(events.filter((e) => e.type === 'iteration_started').map((e) => e.type === 'iteration_started' && e.unit)).toEqual([
      { id: 'fix', title: 'fix', iteration: 1, max_iterations: 3 },
      { id: 'fix', title: 'fix', iteration: 2, max_iterations: 3 },
    ]);
    expect(events.find((e) => e.type === 'step_completed')).toMatchObject({ step: 1, steps: 1, name: 'fix', status: 'completed', iterations: 2, message: 'Loop complete: fix (2 iterations)' });
    // The stored events are the same.
    const stored = await runCli(['show', events[0]?.run_id ?? '', '--events', '--json'], { cwd: dir, env: env() });
    expect((JSON.parse(stored.stdout) as { events: Array<{ payload: unknown }> }).events.map((e) => e.payload)).toEqual(events);
  });
});

describe('invalid workflows are refused before anything runs (exit 64, file:line: key: reason)', () => {
  const cases: Array<[string, string, string]> = [
    ['an empty prompt', 'name: w\nloop:\n  until: DONE\n  max_iterations: 2\nprompt: ""\n', '5: prompt: the prompt is empty'],
    [
      'both steps and loop',
      'name: w\nsteps:\n  - prompt: a\nloop:\n  until: DONE\n  max_iterations: 2\nprompt: b\n',
      "4: loop: 'steps' and 'loop' cannot both be set: a workflow either runs its steps once, in order, or loops on one prompt (a step can have its own loop)",
    ],
    ['neither steps nor loop', 'name: w\ndescription: x\n', "1: a workflow needs 'steps' (prompts run once, in order) or a 'loop' with a 'prompt'"],
    ['a loop without a prompt', 'name: w\nloop:\n  until: DONE\n  max_iterations: 2\n', "2: loop: a loop needs a 'prompt' (or 'command': a prompt file in .ringmaster/commands/)"],
    ['an empty until', 'name: w\nloop:\n  until: "  "\n  max_iterations: 2\nprompt: p\n', '3: loop.until: is empty: name the completion signal, e.g. COMPLETE'],
    ['max_iterations 0', 'name: w\nloop:\n  until: DONE\n  max_iterations: 0\nprompt: p\n', '4: loop.max_iterations: must be at least 1, got 0'],
    ['max_iterations not a whole number', 'name: w\nloop:\n  until: DONE\n  max_iterations: 2.5\nprompt: p\n', '4: loop.max_iterations: expected a whole number of at least 1, got 2.5'],
  ];
  it.each(cases)('%s', async (_what, text, problem) => {
    const dir = workspace({ w: text });
    const r = await runWorkflow(dir, ['w']);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`ringmaster workflow: .ringmaster/workflows/w.yaml:${problem}\n`);
    expect(agentRuns(dir)).toBe(0);
    const runs = await runCli(['runs', '--json'], { cwd: dir, env: env() });
    expect(runs.code === 0 ? (JSON.parse(runs.stdout) as unknown[]) : []).toEqual([]);
  });
});
