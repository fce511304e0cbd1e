// `ringmaster note` end to end with the real CLI: a note written from another terminal while iteration 1 runs
// reaches iteration 2's prompt exactly once (never iteration 1's), a withdrawn note reaches none, a note to a
// paused run waits for its next iteration, and the run's output shows both events; a note pending when the run is
// killed (kill -9) reaches the first iteration after `resume`, once.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { removeDir, tempRepo } from '../git/git-repo.js';
import { cleanEnv, normalise, planAgent, runCli, startCli } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) removeDir(dir);
});

const env = (): Record<string, string> => cleanEnv({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
const prompt = (dir: string, n: number): string => readFileSync(join(dir, `.plan-agent-prompt-${n}`), 'utf8');
const occurrences = (text: string, part: string): number => text.split(part).length - 1;

describe('ringmaster note', () => {
  it('delivers a note once to the next iteration that starts, withdraws one, and keeps one sent while paused', async () => {
    const dir = tempRepo({ 'README.md': 'hello\n' });
    dirs.push(dir);
    const cli = (args: string[]) => runCli(args, { cwd: dir, env: env() });
    const live = startCli(['run', '--prompt', 'work', '--agent-command', planAgent('gate,gate,complete'), '--max-iterations', '5', '--checkpoint-interval', '0'], { cwd: dir, env: env() });
    // A failing assertion must not leave the run (and its gated agent) running: SIGTERM ends both.
    onTestFinished(async () => {
      if (live.child.exitCode === null && live.child.signalCode === null) {
        live.child.kill('SIGTERM');
        await live.done;
      }
    });
    const id = await until('the run', async () => {
      const r = await cli(['runs', '--json']);
      return r.code === 0 ? ((JSON.parse(r.stdout) as Array<{ id: string }>)[0]?.id ?? null) : null;
    });
    await until('iteration 1', () => (existsSync(join(dir, '.plan-agent-prompt-1')) ? true : null));

    expect(await cli(['note', id, 'Use tabs, not spaces.'])).toMatchObject({ code: 0, stdout: `note 1 added to run ${id}: it goes into the prompt of the next iteration that starts\n` });
    expect((await cli(['note', id, 'Forget it.'])).code).toBe(0);
    expect(await cli(['note', id, '--cancel', '2'])).toMatchObject({ code: 0, stdout: `note 2 withdrawn from run ${id}\n` });
    expect(await cli(['note', id, '--cancel', '2'])).toMatchObject({ code: 3, stderr: expect.stringContaining('note 2 was already withdrawn') as unknown });
    expect(await cli(['note', id, 'x'.repeat(4097)])).toMatchObject({ code: 64, stderr: expect.stringContaining('the note is 4097 bytes: a note holds at most 4096 bytes (4 KiB)') as unknown });
    const listed = await cli(['note', id, '--list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ {3}1 {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}pending {2}user: Use tabs, not spaces\.\n$/);

    // Paused after iteration 1: a note sent now waits for iteration 2.
    expect((await cli(['pause', id])).code).toBe(0);
    writeFileSync(join(dir, '.gate-1'), '');
    await until('paused', async () => ((JSON.parse((await cli(['runs', '--json'])).stdout) as Array<{ status: string }>)[0]?.status === 'paused' ? true : null));
    expect(await cli(['note', id, 'Also run the linter.'])).toMatchObject({ code: 0, stdout: `note 3 added to run ${id}: the run is paused: the note goes to its next iteration once it is resumed\n` });
    expect(existsSync(join(dir, '.plan-agent-prompt-2'))).toBe(false);
    expect((await cli(['resume', id])).code).toBe(0);

    await until('iteration 2', () => (existsSync(join(dir, '.plan-agent-prompt-2')) ? true : null));
    writeFileSync(join(dir, '.gate-2'), '');
    const ended = await live.done;
    expect(ended.code, ended.stderr).toBe(0);

    expect(prompt(dir, 1)).not.toContain('Notes from the user');
    const second = prompt(dir, 2);
    expect(occurrences(second, '## Notes from the user (sent while the loop was running)')).toBe(1);
    expect(occurrences(second, 'Use tabs, not spaces.')).toBe(1);
    expect(occurrences(second, 'Also run the linter.')).toBe(1);
    expect(second).not.toContain('Forget it.');
    expect(second.indexOf('Use tabs')).toBeLessThan(second.indexOf('Also run the linter.'));
    expect(prompt(dir, 3)).not.toContain('Notes from the user');

    const out = normalise(ended.stdout);
    expect(out).toContain('[T] Note 1 (by user): Use tabs, not spaces.\n');
    expect(out).toContain('[T] Note 3 (by user): Also run the linter.\n');
    expect(out).toContain('[T]   note 1 delivered in the prompt of iteration 2\n[T]   note 3 delivered in the prompt of iteration 2\n');
    const all = JSON.parse((await cli(['note', id, '--list', '--all', '--json'])).stdout) as Array<{ id: number; status: string; delivered_iteration: number | null }>;
    expect(all.map((n) => [n.id, n.status, n.delivered_iteration])).toEqual([[1, 'delivered', 2], [2, 'withdrawn', null], [3, 'delivered', 2]]);
    expect(await cli(['note', id, '--list'])).toMatchObject({ code: 0, stdout: `run ${id} has no pending notes\n` });
  });

  it('delivers a note pending at a kill -9 once, to the first iteration after resume', async () => {
    const dir = tempRepo({ 'README.md': 'hello\n' });
    dirs.push(dir);
    const cli = (args: string[]) => runCli(args, { cwd: dir, env: env() });
    const live = startCli(['run', '--prompt', 'work', '--agent-command', planAgent('gate,complete'), '--max-iterations', '5', '--checkpoint-interval', '0'], { cwd: dir, env: env() });
    try {
      await until('iteration 1', () => (existsSync(join(dir, '.plan-agent-prompt-1')) ? true : null));
      const id = (JSON.parse((await cli(['runs', '--json'])).stdout) as Array<{ id: string }>)[0]?.id ?? '';
      expect((await cli(['note', id, 'Keep it short.'])).code).toBe(0);
      live.child.kill('SIGKILL');
      expect((await live.done).signal).toBe('SIGKILL');
      // The agent of iteration 1 outlived the CLI: resume stops it (or it ended) before iteration 2 starts.
      const resumed = await cli(['resume', id]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(prompt(dir, 1)).not.toContain('Keep it short.');
      expect(occurrences(prompt(dir, 2), 'Keep it short.')).toBe(1);
      const all = JSON.parse((await cli(['note', id, '--list', '--all', '--json'])).stdout) as Array<{ text: string; status: string; delivered_iteration: number | null }>;
      expect(all.map((n) => [n.text, n.status, n.delivered_iteration])).toEqual([['Keep it short.', 'delivered', 2]]);
    } finally {
      writeFileSync(join(dir, '.gate-1'), '');
    }
  });
});
