// The verify gate of a plain run (`run --verify`), through the CLI with a scripted agent: a claim whose check fails
// is turned down (verify_failed) and the next prompt holds the check's output, a later claim whose check passes
// completes the run; a check that hangs is killed at its timeout with its process group; the evidence of every check
// is in `show --json` (the environment's secrets redacted); --verify-each checks every iteration.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, normalise, runCli, useWorkspace } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

const ws = useWorkspace('Make the check pass.\n');
const env = (): Record<string, string> => cleanEnv({ RINGMASTER_LOOP_BACKOFF: '0s' });

/** An agent that claims completion every iteration and, from iteration `fixesAt` on, creates `fixed` first. */
function claimingAgent(fixesAt: number): string {
  const script = join(ws.dir, 'agent.sh');
  writeFileSync(
    script,
    `#!/bin/sh\nn=$(cat .n 2>/dev/null || echo 0); n=$((n+1)); echo $n > .n\ncat > .prompt-$n\nif [ $n -ge ${fixesAt} ]; then touch fixed; fi\necho 'done <promise>COMPLETE</promise>'\n`,
    { mode: 0o755 },
  );
  return script;
}

interface Shown {
  run: { status: string; stop_reason: string | null };
  iterations: Array<{ number: number; status: string; error_kind: string | null; verify: null | { command: string; passed: boolean; exit_code: number | null; summary: string; output_tail: string; duration_ms: number } }>;
}

async function shown(): Promise<Shown> {
  const runs = JSON.parse((await runCli(['runs', '--json'], { cwd: ws.dir, env: env() })).stdout) as Array<{ id: string }>;
  const r = await runCli(['show', runs[0]?.id ?? '', '--json'], { cwd: ws.dir, env: env() });
  return JSON.parse(r.stdout) as Shown;
}

describe('run --verify', () => {
  it('turns down a claim whose check fails, feeds its output to the next prompt, and completes on a passing check', async () => {
    writeFileSync(join(ws.dir, 'check.sh'), 'if [ -e fixed ]; then echo all 3 tests pass; exit 0; fi\necho "test_add FAILED: expected 2, got 1"\nexit 1\n');
    const r = await runCli(['run', '--agent-command', claimingAgent(2), '--verify', 'sh check.sh', '--max-iterations', '5'], { cwd: ws.dir, env: env() });
    expect(normalise(r.stdout)).toBe(
      [
        '[T] Starting procedure: PROMPT.md (max 5 iterations)',
        '[T] Iteration 1/5 starting...',
        '[T] Iteration 1/5 completed in Xs (failure, consecutive: 1/3)',
        '  verify failed: sh check.sh exited 1',
        "  reason: claimed complete, but the verify command 'sh check.sh' exited 1",
        '[T] Iteration 2/5 starting...',
        '[T] Iteration 2/5 completed in Xs (complete)',
        '  verify passed: sh check.sh exited 0',
        '[T] Success signal received: job complete after 2 iterations (total: X)',
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(0);
    // The second prompt carries the command and the end of its output; the first had nothing to carry.
    expect(readFileSync(join(ws.dir, '.prompt-1'), 'utf8')).toBe('Make the check pass.\n');
    expect(readFileSync(join(ws.dir, '.prompt-2'), 'utf8')).toBe(
      'Make the check pass.\n\n## The verify command\n\nYou signalled completion, but the verify command `sh check.sh` exited 1: the work is not done yet. Fix what it reports before you signal completion again.\nThe end of its output:\n```\ntest_add FAILED: expected 2, got 1\n```\n',
    );
    const s = await shown();
    expect(s.run).toMatchObject({ status: 'completed', stop_reason: 'success_signal' });
    expect(s.iterations.map((i) => [i.status, i.error_kind, i.verify && { ...i.verify, duration_ms: 0 }])).toEqual([
      ['failure', 'verify_failed', { command: 'sh check.sh', passed: false, exit_code: 1, duration_ms: 0, summary: 'exited 1', output_tail: 'test_add FAILED: expected 2, got 1\n' }],
      ['complete', 'none', { command: 'sh check.sh', passed: true, exit_code: 0, duration_ms: 0, summary: 'exited 0', output_tail: 'all 3 tests pass\n' }],
    ]);
  });

  it('kills a check that hangs at verify_timeout, with what it started, and counts the claim as a failure', async () => {
    // The check starts a grandchild that would outlive it, then hangs.
    writeFileSync(join(ws.dir, 'hang.sh'), 'sh -c \'echo $$ > grandchild.pid; exec sleep 300\' &\necho checking\nexec sleep 300\n');
    const r = await runCli(['run', '--agent-command', claimingAgent(99), '--verify', 'sh hang.sh', '--verify-timeout', '1s', '--failure-threshold', '1'], { cwd: ws.dir, env: env() });
    expect(r.stdout).toContain("  reason: claimed complete, but the verify command 'sh hang.sh' timed out after 1s (killed)\n");
    expect(r.code).toBe(1);
    const s = await shown();
    expect(s.run).toMatchObject({ status: 'failed', stop_reason: 'failure_threshold' });
    expect(s.iterations).toHaveLength(1);
    expect(s.iterations[0]).toMatchObject({ status: 'failure', error_kind: 'verify_failed', verify: { command: 'sh hang.sh', passed: false, exit_code: null, summary: 'timed out after 1s (killed)', output_tail: 'checking\n' } });
    const pid = Number(readFileSync(join(ws.dir, 'grandchild.pid'), 'utf8'));
    await until("the check's grandchild is gone", () => !alive(pid));
  });

  it('--verify-each records a check after every iteration; a failing check without a claim is no failure', async () => {
    const script = join(ws.dir, 'agent.sh');
    writeFileSync(script, '#!/bin/sh\ncat >/dev/null\nn=$(cat .n 2>/dev/null || echo 0); n=$((n+1)); echo $n > .n\necho working $n\n', { mode: 0o755 });
    writeFileSync(join(ws.dir, 'check.sh'), 'n=$(cat .n); echo "iteration $n key $DEPLOY_TOKEN"; [ "$n" -ge 2 ]\n');
    const r = await runCli(['run', '--agent-command', script, '--verify', 'sh check.sh', '--verify-each', '--max-iterations', '3'], { cwd: ws.dir, env: { ...env(), DEPLOY_TOKEN: 'tok-9f8e7d6c5b4a' } });
    expect(r.code).toBe(2);
    const s = await shown();
    expect(s.run).toMatchObject({ status: 'completed', stop_reason: 'max_iterations' });
    expect(s.iterations.map((i) => [i.status, i.error_kind, i.verify?.passed, i.verify?.output_tail])).toEqual([
      // The environment's secrets never reach the store (nor the next prompt).
      ['success', 'none', false, 'iteration 1 key [REDACTED:DEPLOY_TOKEN]\n'],
      ['success', 'none', true, 'iteration 2 key [REDACTED:DEPLOY_TOKEN]\n'],
      ['success', 'none', true, 'iteration 3 key [REDACTED:DEPLOY_TOKEN]\n'],
    ]);
    expect(existsSync(join(ws.dir, 'fixed'))).toBe(false);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
