// The agent deletes or empties the prompt file during a run (or it becomes a directory): the next iteration has
// no prompt. The run ends failed (fatal_error) with the reason, recorded as such, its lock released: never an
// orphan, never a stack trace. Through the CLI, and for `resume` of such a run.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, normalise, runCli, useWorkspace } from '../helpers/cli.js';
import { testHome } from '../helpers/home.js';

const ws = useWorkspace('Do the work.\n');

/** An agent that, in its first iteration, does `action` to PROMPT.md and says it worked (no signal). */
function agentThat(action: string): string {
  const script = join(ws.dir, 'agent.sh');
  writeFileSync(script, `#!/bin/sh\ncat >/dev/null\nif [ ! -e did ]; then touch did; ${action}; fi\necho worked\n`, { mode: 0o755 });
  return script;
}

async function onlyRun(): Promise<{ id: string; status: string; stop_reason: string | null; iterations: number }> {
  const runs = JSON.parse((await runCli(['runs', '--json'], { cwd: ws.dir, env: cleanEnv() })).stdout) as Array<{ id: string; status: string; stop_reason: string | null; iterations: number }>;
  expect(runs).toHaveLength(1);
  return runs[0] ?? { id: '', status: '', stop_reason: null, iterations: 0 };
}

describe('the prompt file gone mid-run', () => {
  it.each([
    ['deleted', 'rm PROMPT.md', (dir: string) => `prompt file not found: ${join(dir, 'PROMPT.md')}`],
    ['emptied', ': > PROMPT.md', (dir: string) => `prompt file is empty: ${join(dir, 'PROMPT.md')}`],
    ['replaced by a directory', 'rm PROMPT.md; mkdir PROMPT.md', (dir: string) => `cannot read prompt file ${join(dir, 'PROMPT.md')}: EISDIR: illegal operation on a directory, read`],
  ])('%s: the run ends failed with the reason after the iteration that did it, exit 1', async (_name, action, reason) => {
    const r = await runCli(['run', '--agent-command', agentThat(action), '--max-iterations', '5', '--cooldown', '0s'], { cwd: ws.dir, env: cleanEnv() });
    expect(normalise(r.stdout)).toBe(
      [
        '[T] Starting procedure: PROMPT.md (max 5 iterations)',
        '[T] Iteration 1/5 starting...',
        '[T] Iteration 1/5 completed in Xs (success)',
        `[T] ERROR: ${reason(ws.dir)} (1 iteration completed, total: X)`,
        '',
      ].join('\n'),
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(1);
    expect(await onlyRun()).toMatchObject({ status: 'failed', stop_reason: 'fatal_error', iterations: 1 });
    expect(readdirSync(join(testHome(), 'locks')).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('resume of such a run says what is missing, and goes on once the prompt is back', async () => {
    await runCli(['run', '--agent-command', agentThat('rm PROMPT.md'), '--max-iterations', '3', '--cooldown', '0s'], { cwd: ws.dir, env: cleanEnv() });
    const { id } = await onlyRun();
    const again = await runCli(['resume', id], { cwd: ws.dir, env: cleanEnv() });
    expect(normalise(again.stdout)).toContain(`[T] ERROR: prompt file not found: ${join(ws.dir, 'PROMPT.md')} (1 iteration completed, total: X)`);
    expect(again.code).toBe(1);
    expect(await onlyRun()).toMatchObject({ status: 'failed', stop_reason: 'fatal_error', iterations: 1 });
    writeFileSync(join(ws.dir, 'PROMPT.md'), 'Do the work.\n');
    const back = await runCli(['resume', id], { cwd: ws.dir, env: cleanEnv() });
    expect(back.stdout).toContain('Reached max iterations: 3');
    expect(back.code).toBe(2);
    expect(await onlyRun()).toMatchObject({ status: 'completed', stop_reason: 'max_iterations', iterations: 3 });
  });
});
