// A stale .git/index.lock (git killed mid-commit) is cleared only when no git process could own it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { checkpoint, clearStaleIndexLock } from '../../src/git/index.js';

let repo: string;
beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'ringmaster-indexlock-'));
  execFileSync('git', ['init', '-q'], { cwd: repo });
  writeFileSync(join(repo, 'a.txt'), 'a\n');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

it('a checkpoint fails on a left-over index.lock, which is removed only when no git process is alive', async () => {
  const lock = join(repo, '.git', 'index.lock');
  writeFileSync(lock, '');
  await expect(checkpoint(repo, 'run1', 1)).rejects.toThrow(/index\.lock/);
  expect(await clearStaleIndexLock(repo, () => true)).toBeNull();
  expect(existsSync(lock)).toBe(true);
  expect(await clearStaleIndexLock(repo, () => false)).toBe(lock);
  expect(existsSync(lock)).toBe(false);
  const result = await checkpoint(repo, 'run1', 1);
  expect(result.committed).toBe(true);
  expect(await clearStaleIndexLock(repo, () => false)).toBeNull();
});
