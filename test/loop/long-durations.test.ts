// Durations past Node's timer limit (2^31-1 ms, ~24.8 days) and pauses against the runtime budget, through the
// CLI: no timer fires early, no wait spins, no pause outlasts --max-runtime.
import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, fakeBin, normalise, planAgent, runCli, startCli, useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('Do the work. When everything is done, print <promise>COMPLETE</promise>.\n');

describe('durations longer than 2^31 ms', () => {
  it.each([['--max-runtime'], ['--iteration-timeout'], ['--idle-timeout']])('%s 600h does not kill the iteration after 0 s', async (flag) => {
    // 'split' writes its signal over ~300 ms: an overflowed timer (fired after 1 ms) killed it before that.
    const r = await runCli(['run', '--agent-command', planAgent('split'), flag, '600h', '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv() });
    expect(normalise(r.stdout)).toContain('[T] Iteration 1/1 completed in Xs (complete)');
    expect(r.stderr).not.toContain('TimeoutOverflowWarning');
    expect(r.code).toBe(0);
  });
});

/** A fake `claude` that answers every call with a usage limit resetting `resetInDays` from now, and counts its calls. */
function limitedClaude(dir: string, resetInDays: number): string {
  const script = `#!/bin/sh
cat >/dev/null
n=$(cat .claude-calls 2>/dev/null || echo 0)
echo $((n + 1)) > .claude-calls
reset=$(( $(date +%s) + ${resetInDays} * 86400 ))
echo '{"type":"system","subtype":"init","session_id":"s1","model":"claude-opus-5-5"}'
echo '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":'"$reset"',"rateLimitType":"seven_day"}}'
echo '{"type":"result","subtype":"success","is_error":true,"session_id":"s1","total_cost_usd":0,"result":"limit reached"}'
exit 1
`;
  return fakeBin(dir, 'claude', script);
}

describe('a usage limit that resets weeks away', () => {
  it('with a runtime budget that ends first: the run ends at once with max_runtime, one agent call', async () => {
    const bin = limitedClaude(ws.dir, 30);
    const env = cleanEnv({ PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` });
    const r = await runCli(['run', '--agent', 'claude', '--max-runtime', '600h', '--max-iterations', '3'], { cwd: ws.dir, env });
    expect(normalise(r.stdout)).toContain('[T] Reached max runtime: 600h (1 iteration completed, total: X)');
    expect(readFileSync(join(ws.dir, '.claude-calls'), 'utf8').trim()).toBe('1');
    expect(r.code).toBe(2);
  });

  it('without a budget: the run waits (no hot loop spawning the agent again and again) until interrupted', async () => {
    const bin = limitedClaude(ws.dir, 30);
    const env = cleanEnv({ PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` });
    const { child, done } = startCli(['run', '--agent', 'claude', '--max-iterations', '3'], { cwd: ws.dir, env });
    let out = '';
    await new Promise<void>((resolve) => {
      child.stdout?.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        if (out.includes('Waiting until')) resolve();
      });
    });
    // An overflowed timer fired after 1 ms: in this second the agent was spawned hundreds of times.
    await new Promise((r) => setTimeout(r, 1000));
    child.kill('SIGINT');
    const r = await done;
    expect(readFileSync(join(ws.dir, '.claude-calls'), 'utf8').trim()).toBe('1');
    expect(r.code).toBe(130);
  });
});

describe('pauses are cut by the runtime budget', () => {
  it('a 10 min cooldown with a 5 s budget ends the run after the first iteration, not 10 minutes later', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('ok'), '--cooldown', '10m', '--max-runtime', '5s', '--max-iterations', '3'], { cwd: ws.dir, env: cleanEnv() });
    expect(normalise(r.stdout)).toContain('[T] Reached max runtime: 5s (1 iteration completed, total: X)');
    expect(r.code).toBe(2);
  }, 30_000);

  it('a 10 min failure backoff with a 5 s budget ends the run after the failure', async () => {
    const r = await runCli(['run', '--agent-command', planAgent('fail'), '--max-runtime', '5s', '--max-iterations', '3'], {
      cwd: ws.dir,
      env: cleanEnv({ RINGMASTER_LOOP_BACKOFF: '10m', RINGMASTER_LOOP_BACKOFF_MAX: '1h' }),
    });
    expect(normalise(r.stdout)).toContain('[T] Reached max runtime: 5s (1 iteration completed, total: X)');
    expect(r.code).toBe(2);
  }, 30_000);
});
