// Change tracking through the CLI: files_changed lists exactly what a scripted agent added, modified and deleted
// (untracked files included, ignored ones not), in `show --json`, the --verbose line and the API;
// loop.discard_failed puts a failed iteration's workspace back byte for byte (the attempt kept under a ref);
// loop.track_changes false records nothing.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, rmSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpoint } from '../../src/git/checkpoint.js';
import { createChangeTracker } from '../../src/runner/change-tracking.js';
import { cleanEnv, normalise, runCli, tempDir } from '../helpers/cli.js';
import { until } from '../helpers/until.js';
import { startTestServer } from '../server/harness.js';
import { sh, tempRepo, useTempRepos } from './git-repo.js';

const dirs = useTempRepos();

/** Every entry under `dir` (.git and .ringmaster skipped): file content, mode, symlink target; directories too. */
function exactTree(dir: string, base = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    if (name === '.git' || name === '.ringmaster') continue;
    const path = join(dir, name);
    const key = relative(base, path);
    const st = lstatSync(path);
    if (st.isSymbolicLink()) out[key] = `link -> ${readlinkSync(path)}`;
    else if (st.isDirectory()) {
      out[`${key}/`] = `dir ${(st.mode & 0o777).toString(8)}`;
      Object.assign(out, exactTree(path, base));
    } else out[key] = `${(st.mode & 0o777).toString(8)} ${readFileSync(path).toString('base64')}`;
  }
  return out;
}

/** An agent that changes the workspace differently in each iteration (its counter lives in `state`). */
function changingAgent(state: string): string {
  const script = join(state, 'agent.sh');
  writeFileSync(
    script,
    `#!/bin/sh
cat > /dev/null
n=$(cat "${state}/n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "${state}/n"
case $n in
1) mkdir -p new/deep; printf 'a\\n' > new/deep/a.txt; printf 'more\\n' >> mod.txt; rm gone.txt
   mkdir -p build; echo log > build/out.log; exit 0 ;;
2) cp -a . "${state}/before"; git status --porcelain > "${state}/status-before"
   printf 'x' > mod.txt; rm new/deep/a.txt; mkdir -p fresh/dir; echo f > fresh/dir/f.txt; chmod +x run.sh
   ln -s mod.txt link; echo changed > notes.txt; git add -A > /dev/null; exit 1 ;;
esac
exit 0
`,
  );
  chmodSync(script, 0o755);
  return script;
}

interface ShownIteration {
  number: number;
  status: string;
  files_changed: Array<{ path: string; change: string }> | null;
  files_changed_total: number | null;
  tree_before: string | null;
  tree_after: string | null;
  discarded_ref: string | null;
}

describe('change tracking of iterations', () => {
  it('records files_changed, shows it everywhere, and discards a failed iteration byte for byte', async () => {
    const repo = tempRepo({ 'PROMPT.md': 'work\n', 'mod.txt': 'one\n', 'gone.txt': 'bye\n', 'run.sh': 'echo hi\n', '.gitignore': 'build/\n' });
    const state = tempDir('rm-changes-state-');
    const home = tempDir('rm-changes-home-');
    dirs.push(repo, state.dir, home.dir);
    writeFileSync(join(repo, 'notes.txt'), 'untracked before the run\n');
    mkdirSync(join(repo, 'build'));
    const env = cleanEnv({ RINGMASTER_HOME: home.dir, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', RINGMASTER_LOOP_DISCARD_FAILED: 'true' });
    const r = await runCli(['run', '--agent-command', changingAgent(state.dir), '--max-iterations', '2', '--checkpoint-interval', '0', '--verbose'], { cwd: repo, env });
    expect(r.stderr).toBe('');
    const lines = normalise(r.stdout).split('\n').filter((l) => l.includes('completed in'));
    const id = /refs\/ringmaster\/discarded\/([0-9a-z]+)\/2/.exec(r.stdout)?.[1] ?? 'none';
    expect(lines).toEqual([
      '[T] Iteration 1/2 completed in Xs (success, 3 files changed)',
      `[T] Iteration 2/2 completed in Xs (failure, consecutive: 1/3, 6 files changed, discarded: kept as refs/ringmaster/discarded/${id}/2)`,
    ]);
    expect(r.code).toBe(2);

    // The workspace is back as it was when iteration 2 started: every byte, mode, link, directory and the index.
    expect(exactTree(repo)).toEqual(exactTree(join(state.dir, 'before')));
    expect(sh(repo, ['status', '--porcelain'])).toBe(readFileSync(join(state.dir, 'status-before'), 'utf8'));
    const ref = `refs/ringmaster/discarded/${id}/2`;
    expect(sh(repo, ['diff', '--name-status', `${ref}^`, ref])).toBe('A\tfresh/dir/f.txt\nA\tlink\nM\tmod.txt\nD\tnew/deep/a.txt\nM\tnotes.txt\nM\trun.sh\n');

    const shown = await runCli(['show', id, '--json'], { cwd: repo, env });
    const iterations = (JSON.parse(shown.stdout) as { iterations: ShownIteration[] }).iterations;
    const first = { files_changed: [{ path: 'gone.txt', change: 'deleted' }, { path: 'mod.txt', change: 'modified' }, { path: 'new/deep/a.txt', change: 'added' }], files_changed_total: 3, discarded_ref: null };
    const second = {
      files_changed: [
        { path: 'fresh/dir/f.txt', change: 'added' },
        { path: 'link', change: 'added' },
        { path: 'mod.txt', change: 'modified' },
        { path: 'new/deep/a.txt', change: 'deleted' },
        { path: 'notes.txt', change: 'modified' },
        { path: 'run.sh', change: 'modified' },
      ],
      files_changed_total: 6,
      discarded_ref: ref,
    };
    expect(iterations.map((i) => ({ files_changed: i.files_changed, files_changed_total: i.files_changed_total, discarded_ref: i.discarded_ref }))).toEqual([first, second]);
    expect(iterations[1]?.tree_before).toBe(iterations[0]?.tree_after);
    expect(sh(repo, ['rev-parse', `${ref}^{tree}`]).trim()).toBe(iterations[1]?.tree_after);

    const server = await startTestServer({ home: home.dir, env });
    try {
      const api = await server.request(`/api/runs/${id}`);
      expect(api.status).toBe(200);
      const apiIterations = (api.body as { iterations: ShownIteration[] }).iterations;
      expect(apiIterations.map((i) => ({ files_changed: i.files_changed, files_changed_total: i.files_changed_total, discarded_ref: i.discarded_ref }))).toEqual([first, second]);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('loop.track_changes false records nothing', async () => {
    const repo = tempRepo({ 'PROMPT.md': 'work\n', 'mod.txt': 'one\n', 'gone.txt': 'bye\n', 'run.sh': 'echo hi\n' });
    const state = tempDir('rm-changes-state-');
    const home = tempDir('rm-changes-home-');
    dirs.push(repo, state.dir, home.dir);
    const env = cleanEnv({ RINGMASTER_HOME: home.dir, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', RINGMASTER_LOOP_TRACK_CHANGES: 'false' });
    const r = await runCli(['run', '--agent-command', changingAgent(state.dir), '--max-iterations', '1', '--checkpoint-interval', '0', '--json'], { cwd: repo, env });
    expect(r.code).toBe(2);
    const done = r.stdout.split('\n').filter((l) => l.includes('"iteration_completed"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(done).toHaveLength(1);
    expect('changes' in (done[0] ?? {})).toBe(false);
    const id = String(done[0]?.run_id);
    const shown = JSON.parse((await runCli(['show', id, '--json'], { cwd: repo, env })).stdout) as { iterations: ShownIteration[] };
    expect(shown.iterations.map((i) => [i.files_changed, i.files_changed_total, i.tree_before, i.tree_after, i.discarded_ref])).toEqual([[null, null, null, null, null]]);
  }, 60_000);
});

describe('snapshots on a temporary index', () => {
  it('see a same-size change made in the same second as a checkpoint wrote the index (racily clean entries)', async () => {
    const repo = tempRepo({ 'PROMPT.md': 'work\n', 'stamp.txt': '0000000000\n' });
    dirs.push(repo);
    const tracker = createChangeTracker({ discardFailed: false });
    for (let i = 1; i <= 5; i++) {
      const before = await tracker.before(repo);
      writeFileSync(join(repo, 'stamp.txt'), `${String(i).padStart(10, '0')}\n`);
      const tracked = await tracker.after(before);
      expect(tracked.files).toEqual([{ path: 'stamp.txt', change: 'modified' }]);
      await tracked.dispose();
      expect((await checkpoint(repo, 'r', i)).committed).toBe(true);
    }
    expect(sh(repo, ['status', '--porcelain'])).toBe('');
    await tracker.close();
  });

  it('a new tracker removes the temporary indexes of a process that is gone (killed with kill -9), not its own', async () => {
    const dead = spawnSync('true').pid;
    const stale = join(tmpdir(), `ringmaster-index-${dead}-test`);
    const own = join(tmpdir(), `ringmaster-index-${process.pid}-test`);
    writeFileSync(stale, 'x');
    writeFileSync(own, 'x');
    try {
      const tracker = createChangeTracker({ discardFailed: false });
      await until('the stale index removed', () => !existsSync(stale));
      expect(existsSync(own)).toBe(true);
      await tracker.close();
    } finally {
      rmSync(stale, { force: true });
      rmSync(own, { force: true });
    }
  });
});
