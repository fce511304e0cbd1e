// Git for task loops in real repositories: a commit per task, rollback of a blocked task with its attempt
// kept on ringmaster/failed/<id>, per-iteration snapshots, and per-task worktrees merged back in order.
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { restoreWorkingState, snapshotWorkingState } from '../../src/git/snapshot.js';
import { abandonTask, beginTask, branchSafe, commitMerged, commitTask, createTaskWorktree, mergeTaskBranch, removeTaskWorktree, taskCommitMessage } from '../../src/tasks/task-git.js';
import { sh, snapshot, tempRepo, useTempRepos, writeFiles } from '../git/git-repo.js';

const dirs = useTempRepos();

function repo(files: Record<string, string> = { 'README.md': 'hello\n' }): string {
  const dir = realpathSync(tempRepo(files));
  dirs.push(dir, `${dir}.ringmaster-worktrees`);
  return dir;
}

const subjects = (dir: string, ref = 'HEAD'): string[] => sh(dir, ['log', '--format=%s', ref]).trim().split('\n');

describe('commit per task', () => {
  it('one commit per task with the id in the message; leftovers are saved before the task starts', async () => {
    const dir = repo();
    writeFiles(dir, { 'user.txt': 'uncommitted work\n' });
    const task = { id: 'RALPH-001', title: 'Write  the\nschema' };
    const base = await beginTask(dir, task);
    expect(base).toBe(sh(dir, ['rev-parse', 'HEAD']).trim());
    writeFiles(dir, { 'schema.md': '# schema\n' });
    const commit = await commitTask(dir, task);
    expect(commit.committed).toBe(true);
    expect(subjects(dir)).toEqual(['[ringmaster] RALPH-001: Write the schema', '[ringmaster] RALPH-001: changes made before the task started', 'initial']);
    expect(sh(dir, ['show', '--name-only', '--format=', 'HEAD']).trim()).toBe('schema.md');
    expect(await beginTask(dir, { id: 'RALPH-002', title: 'next' })).toBe(commit.sha);
    expect(subjects(dir)).toHaveLength(3);
    expect(taskCommitMessage({ id: 'X-1', title: 't' }, 'failed attempt: y')).toBe('[ringmaster] X-1: t (failed attempt: y)');
  });
});

describe('abandonTask', () => {
  it('rolls back to the commit before the task; the attempt stays on ringmaster/failed/<id>', async () => {
    const dir = repo({ 'README.md': 'hello\n', 'src/a.ts': 'a\n' });
    const task = { id: 'RALPH-002', title: 'Parse' };
    const base = await beginTask(dir, task);
    const before = snapshot(dir);
    // The attempt: a commit of the agent's own, then uncommitted and untracked changes.
    writeFiles(dir, { 'src/a.ts': 'broken\n' });
    sh(dir, ['commit', '-qam', 'agent commit']);
    writeFiles(dir, { 'src/b.ts': 'half\n', 'README.md': 'edited\n' });
    const result = await abandonTask(dir, task, base!, 'max_iterations: 10 iterations used (limit 10)');
    expect(result.branch).toBe('ringmaster/failed/RALPH-002');
    expect(snapshot(dir)).toEqual(before);
    expect(sh(dir, ['rev-parse', 'HEAD']).trim()).toBe(base);
    expect(sh(dir, ['status', '--porcelain']).trim()).toBe('');
    expect(subjects(dir, 'ringmaster/failed/RALPH-002').slice(0, 2)).toEqual(['[ringmaster] RALPH-002: Parse (failed attempt: max_iterations: 10 iterations used (limit 10))', 'agent commit']);
    expect(sh(dir, ['show', 'ringmaster/failed/RALPH-002:src/b.ts'])).toBe('half\n');

    // A second failure of the same task keeps the first attempt too.
    writeFiles(dir, { 'src/c.ts': 'again\n' });
    const again = await abandonTask(dir, task, base!, 'max_cost');
    expect(again.branch).toBe('ringmaster/failed/RALPH-002-2');
    expect(sh(dir, ['rev-parse', 'ringmaster/failed/RALPH-002']).trim()).toBe(result.attempt);
    // An attempt that changed nothing needs no branch.
    expect(await abandonTask(dir, task, base!, 'nothing')).toEqual({ branch: null, attempt: null });
  });

  it('task ids become valid branch names', () => {
    expect(branchSafe('RALPH-001')).toBe('RALPH-001');
    expect(branchSafe('fix: the  login..page ~1')).toBe('fix-the-login.page-1');
    expect(branchSafe('a.lock')).toBe('a-lock');
    expect(branchSafe('...')).toBe('task');
  });
});

describe('working-state snapshots (discarding a failed iteration)', () => {
  it('restores files, untracked files and the index; HEAD stays', async () => {
    const dir = repo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    writeFiles(dir, { 'a.txt': 'work in progress\n', 'new.txt': 'untracked\n' });
    sh(dir, ['add', 'a.txt']);
    const head = sh(dir, ['rev-parse', 'HEAD']).trim();
    const before = snapshot(dir);
    const status = sh(dir, ['status', '--porcelain']);
    const snap = await snapshotWorkingState(dir);
    expect(sh(dir, ['status', '--porcelain'])).toBe(status);
    writeFiles(dir, { 'a.txt': 'failed iteration\n', 'junk.txt': 'junk\n' });
    sh(dir, ['rm', '-q', 'b.txt']);
    sh(dir, ['add', 'junk.txt']);
    await restoreWorkingState(dir, snap);
    expect(snapshot(dir)).toEqual(before);
    expect(sh(dir, ['status', '--porcelain'])).toBe(status);
    expect(sh(dir, ['rev-parse', 'HEAD']).trim()).toBe(head);
  });
});

describe('worktree per task, merged back in order', () => {
  it('independent tasks merge as one commit each; a conflicting one is refused with its paths and its branch kept', async () => {
    const dir = repo({ 'shared.txt': 'line 1\nline 2\n', 'README.md': 'hello\n' });
    const [a, b, c] = [{ id: 'T-1', title: 'one' }, { id: 'T-2', title: 'two' }, { id: 'T-3', title: 'three' }];
    const wa = await createTaskWorktree(dir, 'run1', a);
    const wb = await createTaskWorktree(dir, 'run1', b);
    const wc = await createTaskWorktree(dir, 'run1', c);
    expect([wa.branch, wa.taskId, wa.path]).toEqual(['ringmaster/run1-T-1', 'T-1', `${dir}.ringmaster-worktrees/run1-T-1`]);
    writeFiles(wa.workdir, { 'a.txt': 'from T-1\n', 'shared.txt': 'line 1 by T-1\nline 2\n' });
    writeFiles(wb.workdir, { 'b.txt': 'from T-2\n' });
    writeFiles(wc.workdir, { 'shared.txt': 'line 1 by T-3\nline 2\n' });
    for (const [wt, task] of [[wa, a], [wb, b], [wc, c]] as const) expect((await commitTask(wt.workdir, task)).committed).toBe(true);

    // In order: T-1, then T-2, then T-3 (which conflicts with T-1 on shared.txt).
    const first = await mergeTaskBranch(dir, wa.branch);
    expect(first.merged).toBe(true);
    writeFiles(dir, { 'tasks.jsonl': '{"id":"T-1","title":"one","status":"done"}\n' });
    await commitMerged(dir, taskCommitMessage(a));
    expect((await mergeTaskBranch(dir, wb.branch)).merged).toBe(true);
    await commitMerged(dir, taskCommitMessage(b));
    const before = snapshot(dir);
    const head = sh(dir, ['rev-parse', 'HEAD']).trim();
    expect(await mergeTaskBranch(dir, wc.branch)).toEqual({ merged: false, conflicts: ['shared.txt'] });
    expect(snapshot(dir)).toEqual(before);
    expect(sh(dir, ['rev-parse', 'HEAD']).trim()).toBe(head);
    expect(sh(dir, ['status', '--porcelain']).trim()).toBe('');

    expect(subjects(dir)).toEqual(['[ringmaster] T-2: two', '[ringmaster] T-1: one', 'initial']);
    expect(sh(dir, ['show', '--name-only', '--format=', 'HEAD~1']).trim().split('\n').sort()).toEqual(['a.txt', 'shared.txt', 'tasks.jsonl']);
    expect(snapshot(dir)).toMatchObject({ 'a.txt': 'from T-1\n', 'b.txt': 'from T-2\n', 'shared.txt': 'line 1 by T-1\nline 2\n' });
    for (const wt of [wa, wb, wc]) await removeTaskWorktree(dir, wt);
    expect(existsSync(join(`${dir}.ringmaster-worktrees`, 'run1-T-3'))).toBe(false);
    expect(sh(dir, ['branch', '--list', 'ringmaster/run1-T-3']).trim()).toBe('ringmaster/run1-T-3');
  });
});
