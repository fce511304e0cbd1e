// The library entry as users import it (`import { runLoop } from 'ringmaster'`, resolved through package.json
// "exports"), running a real loop without the CLI, store or lock, exactly like the README's example.
import { expect, it } from 'vitest';
import { planAgent, useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('work\n');

it("import { runLoop, resolveRun } from 'ringmaster' runs a loop and reports its events", async () => {
  const { runLoop, resolveRun, abortableSleep } = await import('ringmaster');
  const { spec } = resolveRun(ws.dir, {}, {
    prompt: 'Fix the tests. Print <promise>COMPLETE</promise> when green.',
    maxIterations: '4',
    settings: [{ key: 'agent.command', flag: '--agent-command', raw: planAgent('ok,complete') }],
  });
  const types: string[] = [];
  const summary = await runLoop(spec, {
    now: Date.now,
    newRunId: () => 'lib-run',
    sleep: abortableSleep,
    env: process.env,
    onEvent: (event) => types.push(event.type),
    signal: new AbortController().signal,
    streamOutput: false,
  });
  expect(summary).toMatchObject({ runId: 'lib-run', status: 'completed', stopReason: 'success_signal' });
  expect(summary.state.iteration).toBe(2);
  expect(types).toEqual(['run_started', 'iteration_started', 'iteration_completed', 'iteration_started', 'iteration_completed', 'run_finished']);
});
