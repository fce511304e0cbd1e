// Usage and cost of an iteration are recorded even when it failed: in the events and in the store.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { cleanEnv, runCli, useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('work\n');
beforeEach(() => {
  // A fake `claude` whose turn fails after spending tokens: an error result with a cost, exit 1.
  mkdirSync(join(ws.dir, 'bin'));
  const fake = join(ws.dir, 'bin', 'claude');
  writeFileSync(
    fake,
    [
      '#!/bin/sh',
      'cat >/dev/null',
      `echo '{"type":"system","subtype":"init","session_id":"s-1","model":"claude-sonnet-5"}'`,
      `echo '{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-5","content":[{"type":"text","text":"working on it"}],"usage":{"input_tokens":1,"output_tokens":1}},"session_id":"s-1"}'`,
      `echo '{"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"s-1","total_cost_usd":0.0425,"usage":{"input_tokens":1500,"output_tokens":200,"cache_creation_input_tokens":10,"cache_read_input_tokens":20},"result":"tool crashed"}'`,
      'exit 1',
      '',
    ].join('\n'),
  );
  chmodSync(fake, 0o755);
});

it('a failed iteration keeps its tokens and cost', async () => {
  const env = cleanEnv({ PATH: `${join(ws.dir, 'bin')}:${process.env.PATH ?? ''}` });
  const r = await runCli(['run', '--agent', 'claude', '--max-iterations', '1', '--failure-threshold', '1', '--json'], { cwd: ws.dir, env });
  expect(r.code).toBe(1);
  const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(events.find((e) => e.type === 'iteration_completed')).toMatchObject({
    outcome: 'failure',
    exit_code: 1,
    tokens_in: 1500,
    tokens_out: 200,
    cache_write: 10,
    cache_read: 20,
    cost_usd: 0.0425,
    session_id: 's-1',
  });
  const show = await runCli(['show', String(events.at(-1)?.run_id), '--json'], { cwd: ws.dir, env });
  const shown = JSON.parse(show.stdout) as { run: Record<string, unknown>; iterations: Array<Record<string, unknown>> };
  expect(shown.iterations).toHaveLength(1);
  expect(shown.iterations[0]).toMatchObject({ number: 1, status: 'failure', exit_code: 1, tokens_in: 1500, tokens_out: 200, cost_usd: 0.0425 });
  expect(shown.run).toMatchObject({ status: 'failed', stop_reason: 'failure_threshold', cost_usd: 0.0425 });
});
