// `ringmaster rollback` in-process against a real git repository and a seeded store.
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { checkpoint } from '../../src/git/checkpoint.js';
import { ensureExcluded } from '../../src/git/repo.js';
import { acquireLock } from '../../src/runner/lock.js';
import { workspaceKey, workspaceLockPath } from '../../src/store/paths.js';
import { openTestStore, testHome, useFreshHome } from '../helpers/home.js';
import { memoryIO } from '../hook/memory-io.js';
import { sh, snapshot, tempRepo, useTempRepos, writeFiles } from '../git/git-repo.js';

const dirs = useTempRepos();
useFreshHome();

/** A repo with run r1 checkpointed at iterations 5 and 10; returns the files at each. */
async function setup(): Promise<{ dir: string; at5: Record<string, string>; at10: Record<string, string>; sha5: string }> {
  const dir = tempRepo({ 'a.txt': 'a0\n' });
  dirs.push(dir);
  const store = await openTestStore();
  try {
    await ensureExcluded(dir);
    await store.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: dir, owner: { pid: 1, host: hostname() }, now: 1000 });
    writeFiles(dir, { 'a.txt': 'a5\n', 'b.txt': 'b5\n' });
    const c5 = await checkpoint(dir, 'r1', 5);
    await store.recordCheckpoint({ run_id: 'r1', iteration: 5, commit_sha: c5.sha, state: 'committed', created_at: 2000 });
    const at5 = snapshot(dir);
    writeFiles(dir, { 'a.txt': 'a10\n', 'c.txt': 'c10\n' });
    sh(dir, ['rm', '-q', 'b.txt']);
    const c10 = await checkpoint(dir, 'r1', 10);
    await store.recordCheckpoint({ run_id: 'r1', iteration: 10, commit_sha: c10.sha, state: 'committed', created_at: 3000 });
    await store.finishRun('r1', { status: 'stopped', stop_reason: 'max_iterations', now: 4000 });
    return { dir, at5, at10: snapshot(dir), sha5: c5.sha ?? '' };
  } finally {
    await store.close();
  }
}

async function cli(argv: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO(cwd);
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('ringmaster rollback', () => {
  it('restores the exact files of --to N, records the rollback, and can go forward to the latest checkpoint', async () => {
    const { dir, at5, at10, sha5 } = await setup();
    const result = await cli(['rollback', 'r1', '--to', '5'], dir);
    const head = sh(dir, ['rev-parse', 'HEAD']).trim();
    expect(result).toEqual({ code: 0, err: '', out: `rolled back ${dir} to run r1 iteration 5 (${sha5.slice(0, 12)}): new commit ${head.slice(0, 12)}\n` });
    expect(snapshot(dir)).toEqual(at5);
    expect(sh(dir, ['log', '-1', '--format=%s']).trim()).toBe(`[ringmaster] rollback run r1 to iteration 5 (${sha5.slice(0, 12)})`);
    const forward = JSON.parse((await cli(['rollback', 'r1', '--json'], dir)).out) as Record<string, unknown>;
    expect(forward).toMatchObject({ run_id: 'r1', iteration: 10, workspace: dir, discarded: [] });
    expect(snapshot(dir)).toEqual(at10);
    const store = await openTestStore({ create: false });
    try {
      expect((await store.listCheckpoints('r1')).map((c) => [c.iteration, c.state])).toEqual([[5, 'committed'], [10, 'committed'], [5, 'rollback'], [10, 'rollback']]);
      expect((await store.listEvents('r1')).map((e) => e.type)).toEqual(['rollback', 'rollback']);
    } finally {
      await store.close();
    }
  });

  it('refuses on a dirty tree without --force, and discards with it', async () => {
    const { dir, at5 } = await setup();
    writeFileSync(join(dir, 'a.txt'), 'precious user work\n');
    const before = snapshot(dir);
    expect(await cli(['rollback', 'r1', '--to', '5'], dir)).toEqual({
      code: 1,
      out: '',
      err: `ringmaster rollback: ${dir} has uncommitted changes that a rollback would destroy: a.txt. Commit or stash them, or pass --force to discard them\n`,
    });
    expect(snapshot(dir)).toEqual(before);
    const forced = await cli(['rollback', 'r1', '--to', '5', '--force'], dir);
    expect(forced.code).toBe(0);
    expect(forced.out.split('\n')[0]).toBe('discarded uncommitted changes: a.txt');
    expect(snapshot(dir)).toEqual(at5);
  });

  it('names missing checkpoints and refuses while a live run holds the workspace', async () => {
    const { dir } = await setup();
    expect(await cli(['rollback', 'r1', '--to', '7'], dir)).toEqual({
      code: 64, out: '', err: 'ringmaster rollback: run r1 has no checkpoint at iteration 7; its checkpoints are at iterations 5, 10\n',
    });
    const lock = await acquireLock(workspaceLockPath(testHome(), workspaceKey(dir)), 'r2');
    try {
      const held = await cli(['rollback', 'r1'], dir);
      expect(held.code).toBe(3);
      expect(held.err).toBe(
        `ringmaster rollback: the workspace is locked by run r2 (pid ${process.pid}, since ${lock.info.since}); stop it ('ringmaster stop r2') before rolling back. Lock file: ${lock.path}\n`,
      );
    } finally {
      await lock.release();
    }
  });
});
