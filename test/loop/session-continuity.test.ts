// fresh_context: false resumes the previous iteration's session, and a resumed session's cumulative
// cost is turned back into the cost of each iteration (Claude's total includes the earlier runs).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('keep going\n');

const fakeClaudeEnv = () => cleanEnv({ PATH: `${join(ROOT, 'test', 'fixtures', 'bin-claude-session')}:${process.env.PATH ?? ''}` });

function completed(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => e.type === 'iteration_completed');
}

it('fresh_context: false resumes the last session and records per-iteration cost, not the session total', async () => {
  writeFileSync(join(ws.dir, 'ringmaster.yml'), 'loop:\n  fresh_context: false\n');
  const r = await runCli(['run', '--agent', 'claude', '--max-iterations', '3', '--json'], { cwd: ws.dir, env: fakeClaudeEnv() });
  expect(r.code).toBe(2);
  const argv = readFileSync(join(ws.dir, '.fake-claude-argv'), 'utf8').trim().split('\n');
  expect(argv[0]).not.toContain('--resume');
  expect(argv[1]).toContain('--resume sess-1');
  expect(argv[2]).toContain('--resume sess-1');
  const its = completed(r.stdout);
  expect(its.map((e) => e.session_id)).toEqual(['sess-1', 'sess-1', 'sess-1']);
  expect(its.map((e) => e.cost_usd)).toEqual([0.01, 0.01, 0.01]);
  expect(JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}')).toMatchObject({ cost_usd: 0.03, tokens_in: 300, tokens_out: 30 });
});

it('by default every iteration starts a fresh session', async () => {
  const r = await runCli(['run', '--agent', 'claude', '--max-iterations', '2', '--json'], { cwd: ws.dir, env: fakeClaudeEnv() });
  expect(r.code).toBe(2);
  const argv = readFileSync(join(ws.dir, '.fake-claude-argv'), 'utf8').trim().split('\n');
  expect(argv.every((a) => !a.includes('--resume'))).toBe(true);
  expect(completed(r.stdout).map((e) => e.session_id)).toEqual(['sess-1', 'sess-2']);
});
