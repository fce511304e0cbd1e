// An agent that keeps answering "API Error: 500" is retried loop.overload_retries times in a row, then the
// iteration fails as any other; the reason is the agent's own error text (not the raw JSON it came in), and the
// error records keep the agent's last output lines and the retry count (show --json). Through the built CLI,
// with a fake `claude` that prints Claude Code's stream-json.
import { delimiter } from 'node:path';
import { expect, it } from 'vitest';
import { cleanEnv, fakeBin, normalise, runCli, useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('Work. When done, print <promise>COMPLETE</promise>.\n');

const API_ERROR = 'API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}';

it('an overloaded agent is retried overload_retries times, then the iteration fails with its own words', async () => {
  const result = JSON.stringify({ type: 'result', subtype: 'success', is_error: true, session_id: 's1', total_cost_usd: 0, result: API_ERROR });
  const bin = fakeBin(ws.dir, 'claude', `#!/bin/sh\ncat >/dev/null\necho 'retrying the request'\necho '${result}'\nexit 1\n`);
  const env = cleanEnv({ PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`, RINGMASTER_LOOP_OVERLOAD_RETRIES: '1', RINGMASTER_LOOP_BACKOFF: '0s' });
  const r = await runCli(['run', '--agent', 'claude', '--max-iterations', '3', '--failure-threshold', '1', '--cooldown', '0s'], { cwd: ws.dir, env });
  const lines = normalise(r.stdout).split('\n');
  const reason = 'API Error: 500 Internal server error';
  expect(lines.slice(1, 4)).toEqual(['[T] Iteration 1/3 starting...', '[T] Iteration 1/3 completed in Xs (overloaded; not counted: the limit is now 4)', `  reason: ${reason}`]);
  expect(lines.slice(5)).toEqual([
    '[T] Iteration 2/4 starting...',
    '[T] Iteration 2/4 completed in Xs (failure, consecutive: 1/1)',
    `  reason: ${reason} (still failing after 1 retries: loop.overload_retries)`,
    '[T] ERROR: Aborting after 1 failed iteration (2 iterations completed, total: X)',
    '',
  ]);
  expect(r.code).toBe(1);

  const runs = JSON.parse((await runCli(['runs', '--json'], { cwd: ws.dir, env })).stdout) as Array<{ id: string }>;
  const show = JSON.parse((await runCli(['show', runs[0]?.id ?? '', '--json'], { cwd: ws.dir, env })).stdout) as {
    iterations: Array<{ number: number; status: string }>;
    errors: Array<{ iteration: number; kind: string; message: string; context: Record<string, unknown> }>;
  };
  expect(show.iterations.map((i) => [i.number, i.status])).toEqual([[1, 'waiting'], [2, 'failure']]);
  expect(show.errors.map((e) => [e.iteration, e.kind, e.message, e.context.retry_count, e.context.last_output])).toEqual([
    [1, 'overloaded', reason, 0, ['retrying the request', reason]],
    [2, 'agent_error', `${reason} (still failing after 1 retries: loop.overload_retries)`, 1, ['retrying the request', reason]],
  ]);
});
