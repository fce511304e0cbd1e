// `ringmaster demo --tasks`: three tasks end to end with the built-in scripted agent in a fresh git
// repository: one commit per task, the verify gate turning down DEMO-3's draft, the tracker all done.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { events, iterations, ofType } from '../tasks/task-run-harness.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

it('demo --tasks runs three tasks to completion, one commit each, the verify gate at work', { timeout: 60_000 }, async () => {
  const parent = tempDir('ringmaster-demo-test-');
  try {
    const r = await runCli(['demo', '--tasks', '--json', '--dir', parent.dir], { cwd: parent.dir, env: cleanEnv({ RINGMASTER_SCRIPTED_DELAY_MS: '0', RINGMASTER_LOOP_BACKOFF: '0s' }) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const all = events(r.stdout);
    expect(iterations(all)).toEqual([
      [1, 'DEMO-1', 1, 'complete', 'none'],
      [2, 'DEMO-2', 1, 'complete', 'none'],
      [3, 'DEMO-3', 1, 'failure', 'verify_failed'],
      [4, 'DEMO-3', 2, 'complete', 'none'],
    ]);
    expect(ofType(all, 'warning')).toEqual([]);
    expect(all.at(-1)).toMatchObject({ type: 'run_finished', stop_reason: 'success_signal', message: 'every task is done (3 done and 0 blocked by this run)' });
    const workspace = (all[0] as { workspace: string }).workspace;
    const log = execFileSync('git', ['log', '--format=%s'], { cwd: workspace, encoding: 'utf8' }).trim().split('\n');
    expect(log.slice(0, 3)).toEqual(['[ringmaster] DEMO-3: Add tests for the greeting', '[ringmaster] DEMO-2: Add a greeting module', '[ringmaster] DEMO-1: Write the project README']);
    expect(readFileSync(join(workspace, 'tasks.jsonl'), 'utf8').match(/"status":"done"/g)).toHaveLength(3);
    expect(readFileSync(join(workspace, 'work', 'DEMO-3.md'), 'utf8')).toBe('# Add tests for the greeting\n\nDone by the scripted demo agent.\n');
  } finally {
    parent.cleanup();
  }
});
