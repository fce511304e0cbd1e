// Usage figures an agent reports that are fractional, negative, huge or non-finite: the iteration row is still
// completed (never left "interrupted"), with normalised figures, and what was odd is reported as a warning.
import { delimiter } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, fakeBin, runCli, useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('Work. When done, print <promise>COMPLETE</promise>.\n');

/** A fake `claude` whose final result line carries `usage` and `cost` as raw JSON text. */
function fakeClaude(dir: string, usage: string, cost: string): string {
  return fakeBin(
    dir,
    'claude',
    `#!/bin/sh
cat >/dev/null
echo '{"type":"system","subtype":"init","session_id":"s1","model":"claude-opus-5-5"}'
echo '{"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"done <promise>COMPLETE</promise>"}]},"session_id":"s1"}'
echo '{"type":"result","subtype":"success","is_error":false,"session_id":"s1","total_cost_usd":${cost},"usage":${usage},"result":"done"}'
`,
  );
}

interface Row {
  status: string;
  tokens_in: number | null;
  tokens_out: number | null;
  cache_read: number | null;
  cache_write: number | null;
  cost_usd: number | null;
}

async function run(usage: string, cost: string): Promise<{ code: number | null; stderr: string; row: Row | undefined; runCost: number; costUnknown: boolean }> {
  const bin = fakeClaude(ws.dir, usage, cost);
  const env = cleanEnv({ PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` });
  const r = await runCli(['run', '--agent', 'claude', '--max-iterations', '1', '--max-cost', '5'], { cwd: ws.dir, env });
  const runs = JSON.parse((await runCli(['runs', '--json'], { cwd: ws.dir, env })).stdout) as Array<{ id: string }>;
  const show = JSON.parse((await runCli(['show', runs[0]?.id ?? '', '--json'], { cwd: ws.dir, env })).stdout) as {
    run: { cost_usd: number; cost_unknown: boolean };
    iterations: Row[];
  };
  return { code: r.code, stderr: r.stderr, row: show.iterations[0], runCost: show.run.cost_usd, costUnknown: show.run.cost_unknown };
}

describe('odd usage figures never lose the iteration row', () => {
  it('fractional, negative, huge and infinite token counts are normalised and reported; the cost is kept', async () => {
    const r = await run('{"input_tokens":1500.6,"output_tokens":-3,"cache_read_input_tokens":1e30,"cache_creation_input_tokens":1e999}', '0.25');
    expect(r.code).toBe(0);
    expect(r.row).toMatchObject({ status: 'complete', tokens_in: 1501, tokens_out: 0, cache_read: 0, cache_write: 0, cost_usd: 0.25 });
    expect(r.runCost).toBe(0.25);
    expect(r.stderr).toContain('WARNING: iteration 1: claude reported input tokens 1500.6 is not a whole number: recorded as 1501\n');
    expect(r.stderr).toContain('WARNING: iteration 1: claude reported output tokens -3 is negative: recorded as 0\n');
    expect(r.stderr).toContain('WARNING: iteration 1: claude reported cache read tokens 1e+30 is not a plausible count: recorded as 0\n');
    expect(r.stderr).toContain('WARNING: iteration 1: claude reported cache write tokens Infinity is not a plausible count: recorded as 0\n');
  });

  it('an infinite cost is replaced by the price of the tokens (known model), and reported', async () => {
    const r = await run('{"input_tokens":1000000,"output_tokens":0}', '1e999');
    expect(r.code).toBe(0);
    // claude-opus-5-5: $4 per million input tokens.
    expect(r.row).toMatchObject({ status: 'complete', tokens_in: 1_000_000, cost_usd: 4 });
    expect(r.stderr).toContain('WARNING: iteration 1: claude reported cost Infinity USD is not a plausible cost: recorded as unknown\n');
  });

  it('a negative cost with no usage is unknown, never 0, and the row is complete', async () => {
    const r = await run('null', '-2.5');
    expect(r.code).toBe(0);
    expect(r.row).toMatchObject({ status: 'complete', cost_usd: null });
    expect(r.costUnknown).toBe(true);
    expect(r.stderr).toContain('WARNING: iteration 1: claude reported cost -2.5 USD is negative: recorded as unknown\n');
  });
});
