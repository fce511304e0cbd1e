// Stop on no progress (`run --no-progress-after N`) through the CLI in a git workspace: iterations that only print
// text count, one that writes a file resets the count, and N in a row end the run `no_progress` with exit 2; the
// flag is refused (exit 64) when change tracking is off. The pure counter: a usage-limit wait is not an iteration.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countProgress, noProgress } from '../../src/core/no-progress.js';
import { cleanEnv, normalise, runCli } from '../helpers/cli.js';
import { tempRepo, useTempRepos } from '../git/git-repo.js';

useTempRepos();
const counters = mkdtempSync(join(tmpdir(), 'rm-no-progress-'));
afterAll(() => rmSync(counters, { recursive: true, force: true }));
const env = (): Record<string, string> => cleanEnv({ RINGMASTER_LOOP_BACKOFF: '0s' });

/** An agent that only prints, except at iteration 2 where it writes a file; its counter lives outside the workspace. */
function agent(dir: string): string {
  const script = join(counters, `agent-${Date.now()}.sh`);
  const counter = join(counters, `n-${Date.now()}`);
  writeFileSync(script, `#!/bin/sh\nn=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}\ncat > /dev/null\nif [ $n -eq 2 ]; then echo work > ${join(dir, 'work.txt')}; fi\necho "iteration $n: looked around"\n`, { mode: 0o755 });
  return script;
}

describe('run --no-progress-after', () => {
  it('ends the run no_progress (exit 2) after N iterations in a row that changed no file; a written file resets the count', async () => {
    const dir = tempRepo({ 'PROMPT.md': 'Improve the code.\n' });
    const r = await runCli(['run', '--agent-command', agent(dir), '--no-progress-after', '3', '--max-iterations', '10'], { cwd: dir, env: env() });
    expect(r.stderr).toBe('');
    expect(normalise(r.stdout)).toBe(
      [
        '[T] Starting procedure: PROMPT.md (max 10 iterations)',
        ...[1, 2, 3, 4, 5].flatMap((n) => [`[T] Iteration ${n}/10 starting...`, `[T] Iteration ${n}/10 completed in Xs (success)`]),
        '[T] No progress: the last iterations changed no file (5 iterations completed, total: X)',
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(2);
    const runs = JSON.parse((await runCli(['runs', '--json'], { cwd: dir, env: env() })).stdout) as Array<{ id: string }>;
    const shown = JSON.parse((await runCli(['show', runs[0]?.id ?? '', '--json'], { cwd: dir, env: env() })).stdout) as {
      run: { status: string; stop_reason: string; spec: { noProgressAfter: number } };
      iterations: Array<{ files_changed_total: number | null }>;
    };
    expect(shown.run).toMatchObject({ status: 'completed', stop_reason: 'no_progress', spec: { noProgressAfter: 3 } });
    expect(shown.iterations.map((i) => i.files_changed_total)).toEqual([0, 1, 0, 0, 0]);
  });

  it('is refused with exit 64 when change tracking is off', async () => {
    const dir = tempRepo({ 'PROMPT.md': 'Improve the code.\n' });
    const r = await runCli(['run', '--agent-command', agent(dir), '--no-progress-after', '3'], { cwd: dir, env: cleanEnv({ RINGMASTER_LOOP_TRACK_CHANGES: 'false' }) });
    expect(r.stderr).toBe('ringmaster run: loop.no_progress_after (flag --no-progress-after) counts the files each iteration changed: it needs loop.track_changes, which is off\n');
    expect(r.code).toBe(64);
  });

  it('counts only iterations that ran: a wait or an interruption keeps the count, unknown changes too', () => {
    let c = { idle: 0 };
    c = countProgress(c, 'success', 0);
    c = countProgress(c, 'failure', 0);
    c = countProgress(c, 'waiting', null);
    c = countProgress(c, 'interrupted', 0);
    c = countProgress(c, 'success', null);
    expect([c, noProgress(c, 3), noProgress(c, 2), noProgress(c, 0)]).toEqual([{ idle: 2 }, false, true, false]);
    expect(countProgress(c, 'success', 4)).toEqual({ idle: 0 });
  });
});
