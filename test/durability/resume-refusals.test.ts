// `resume` refuses what it must not continue: a run that already succeeded, an unknown run id.
import { expect, it } from 'vitest';
import { cleanEnv, planAgent, runCli, useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('work\n');

it('a run that signalled success is not resumed; an unknown id is a clear error', async () => {
  const run = await runCli(['run', '--agent-command', planAgent('complete'), '--json'], { cwd: ws.dir, env: cleanEnv() });
  expect(run.code).toBe(0);
  const finished = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as { run_id: string };
  const again = await runCli(['resume', finished.run_id], { cwd: ws.dir, env: cleanEnv() });
  expect(again.stderr).toBe(`ringmaster resume: run ${finished.run_id} already completed: the agent signalled success\n`);
  expect(again.code).toBe(64);
  const unknown = await runCli(['resume', 'zzzz'], { cwd: ws.dir, env: cleanEnv() });
  expect(unknown.stderr).toBe(`ringmaster resume: no run 'zzzz' (see 'ringmaster runs --all')\n`);
  expect(unknown.code).toBe(64);
});

it('a run stopped by its iteration limit can be resumed with a higher limit, continuing its numbering', async () => {
  const first = await runCli(['run', '--agent-command', planAgent('ok,ok,complete'), '--max-iterations', '2', '--json'], { cwd: ws.dir, env: cleanEnv() });
  expect(first.code).toBe(2);
  const { run_id: id } = JSON.parse(first.stdout.trim().split('\n').at(-1) ?? '{}') as { run_id: string };
  expect(await runCli(['resume', id, '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv() })).toMatchObject({
    code: 64,
    stdout: '',
    stderr: `ringmaster resume: --max-iterations 1: run ${id} has done 2 iteration(s) already; give a limit above that to go on\n`,
  });
  const resumed = await runCli(['resume', id, '--max-iterations', '5', '--json'], { cwd: ws.dir, env: cleanEnv() });
  expect(resumed.code).toBe(0);
  const events = resumed.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(events.filter((e) => e.type === 'iteration_completed').map((e) => [e.iteration, e.outcome])).toEqual([[3, 'complete']]);
  expect(events.at(-1)).toMatchObject({ type: 'run_finished', run_id: id, stop_reason: 'success_signal', iterations: 3 });
  const show = await runCli(['show', id, '--json'], { cwd: ws.dir, env: cleanEnv() });
  const shown = JSON.parse(show.stdout) as { iterations: Array<{ number: number; status: string }> };
  expect(shown.iterations.map((i) => [i.number, i.status])).toEqual([[1, 'success'], [2, 'success'], [3, 'complete']]);
});

it('show --events lists the run events in order', async () => {
  const r = await runCli(['run', '--agent-command', planAgent('ok,complete'), '--json'], { cwd: ws.dir, env: cleanEnv() });
  expect(r.code).toBe(0);
  const { run_id: id } = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as { run_id: string };
  const show = await runCli(['show', id, '--events', '--json'], { cwd: ws.dir, env: cleanEnv() });
  const shown = JSON.parse(show.stdout) as { events: Array<{ seq: number; type: string; iteration: number | null }> };
  expect(shown.events.map((e) => [e.seq, e.type, e.iteration])).toEqual([
    [1, 'run_started', null],
    [2, 'warning', null],
    [3, 'iteration_started', 1],
    [4, 'iteration_completed', 1],
    [5, 'iteration_started', 2],
    [6, 'completion_signal_detected', 2],
    [7, 'iteration_completed', 2],
    [8, 'completed', null],
    [9, 'run_finished', null],
  ]);
  const human = await runCli(['show', id, '--events'], { cwd: ws.dir, env: cleanEnv() });
  expect(human.stdout).toMatch(/\n {4}9 {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}run_finished {2}status=completed stop_reason=success_signal iterations=2 /);
});
