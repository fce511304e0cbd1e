// The shipped `ralph` workflow on the demo workspace with the built-in scripted agent: one prd.json story per
// iteration (file written, story marked passing, progress.txt, a commit), then the completion promise; and
// `ringmaster demo --workflow`, which does exactly that in a fresh workspace.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createDemoWorkspace } from '../../src/cli/commands/demo.js';
import { removeDir } from '../git/git-repo.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { env, jsonEvents, lastRun, lines } from './run-harness.js';

const FAST = { RINGMASTER_SCRIPTED_DELAY_MS: '0' };

it('workflow run ralph --agent scripted works through prd.json on the demo workspace', async () => {
  const parent = tempDir();
  const dir = createDemoWorkspace(parent.dir);
  try {
    const r = await runCli(['workflow', 'run', 'ralph', 'Build the greeting feature', '--agent', 'scripted'], { cwd: dir, env: env(FAST) });
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)).toEqual([
      '[T] Starting workflow: ralph (loop until "COMPLETE", max 20 iterations)',
      '[T] Iteration 1/20',
      '[T] Iteration 1/20 completed in Xs (success)',
      '[T] Iteration 2/20',
      '[T] Iteration 2/20 completed in Xs (success)',
      '[T] Iteration 3/20',
      '[T] Iteration 3/20 completed in Xs (complete)',
      '[T] Loop complete: ralph (3 iterations), total: X',
    ]);
    expect(r.stderr).toBe("WARNING: agent 'scripted' cannot resume sessions: each iteration will be a new session\n");
    const prd = JSON.parse(readFileSync(join(dir, 'prd.json'), 'utf8')) as { userStories: Array<{ id: string; passes: boolean }> };
    expect(prd.userStories.map((s) => [s.id, s.passes])).toEqual([
      ['US-001', true],
      ['US-002', true],
      ['US-003', true],
    ]);
    expect(readFileSync(join(dir, 'progress.txt'), 'utf8')).toBe('US-001: Greet the user by name (passes)\nUS-002: Say goodbye on exit (passes)\nUS-003: Greet in French with --lang fr (passes)\n');
    const log = execFileSync('git', ['log', '--format=%s'], { cwd: dir, encoding: 'utf8' }).trim().split('\n');
    expect(log.slice(0, 3)).toEqual(['feat: [US-003] - Greet in French with --lang fr', 'feat: [US-002] - Say goodbye on exit', 'feat: [US-001] - Greet the user by name']);
    const { run } = await lastRun(dir);
    expect(run).toMatchObject({ kind: 'workflow', status: 'completed', meta: { workflow: 'ralph', workflow_kind: 'loop', iteration_count: 3, max_iterations: 20, user_message: 'Build the greeting feature' } });
  } finally {
    parent.cleanup();
  }
});

it('ringmaster demo --workflow runs ralph in a fresh demo workspace', async () => {
  const parent = tempDir();
  try {
    const r = await runCli(['demo', '--workflow', '--json', '--dir', parent.dir], { cwd: parent.dir, env: env(FAST) });
    expect(r.code, r.stderr).toBe(0);
    const events = jsonEvents(r.stdout);
    expect(events[0]).toMatchObject({ type: 'run_started', kind: 'workflow', label: 'ralph', agent: 'scripted' });
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', iterations: 3, message: 'Loop complete: ralph (3 iterations)' });
    const workspace = (events[0] as { workspace: string }).workspace;
    expect(readFileSync(join(workspace, 'progress.txt'), 'utf8').split('\n')).toHaveLength(4);
    removeDir(workspace);
  } finally {
    parent.cleanup();
  }
});
