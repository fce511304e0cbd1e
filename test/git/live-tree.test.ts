// The live tree against git itself: after every random batch of changes to a real repository (files written, removed,
// renamed, made executable, symlinks, new and removed directories, ignored and tracked-but-ignored paths, a workspace
// below the top of the repository), the tree it stages in memory is the tree `git add --all` + `git write-tree` give
// on a copy of the same index, and the index it writes is one git reads as the worktree's (nothing left to stage).
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWorkIndex, type WorkIndex } from '../../src/git/work-index.js';
import { gitEnv, gitStagedTree, sh, tempRepo, useTempRepos } from './git-repo.js';

// No global or system git config; the dirs removed after each test, after what the hook below disposes (hooks after a
// test run in reverse order).
const dirs = useTempRepos();
const indexes: WorkIndex[] = [];
afterEach(async () => {
  for (const index of indexes.splice(0)) await index.dispose();
});

/** A deterministic pseudo-random source (the same batches on every run). */
function random(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
}

/** Every path under `dir` (files and directories), .git left out. */
function walk(dir: string, base = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, base))) {
    if (name === '.git') continue;
    const rel = base === '' ? name : `${base}/${name}`;
    out.push(rel);
    if (statSync(join(dir, rel), { throwIfNoEntry: false })?.isDirectory() === true && !existsSync(join(dir, rel, '.git'))) out.push(...walk(dir, rel));
  }
  return out;
}

/** One random change in the workspace. */
function change(dir: string, next: () => number, step: number): void {
  const pick = <T,>(list: T[]): T | undefined => list[Math.floor(next() * list.length)];
  const paths = walk(dir);
  const some = pick(paths);
  const fresh = `${pick(['src', 'src/deep', 'lib', 'node_modules/pkg', 'dist', 'new', '']) ?? ''}/${pick(['a.ts', 'b.log', 'keep.log', 'c d.txt', 'ü.md']) ?? 'x'}`.replace(/^\//, '');
  const ops: (() => void)[] = [
    () => {
      mkdirSync(dirname(join(dir, fresh)), { recursive: true });
      writeFileSync(join(dir, fresh), `step ${step}\n`);
    },
    () => some !== undefined && statSync(join(dir, some)).isFile() && writeFileSync(join(dir, some), `changed ${step}\n`),
    () => some !== undefined && rmSync(join(dir, some), { recursive: true, force: true }),
    () => some !== undefined && statSync(join(dir, some)).isFile() && chmodSync(join(dir, some), step % 2 === 0 ? 0o755 : 0o644),
    () => some !== undefined && !existsSync(join(dir, `${some}.moved`)) && renameSync(join(dir, some), join(dir, `${some}.moved`)),
    () => !existsSync(join(dir, `link${step % 3}`)) && symlinkSync(`target-${step}`, join(dir, `link${step % 3}`)),
    () => mkdirSync(join(dir, `made${step}`, 'inner'), { recursive: true }),
    () => {
      mkdirSync(join(dir, 'dist'), { recursive: true });
      writeFileSync(join(dir, 'dist', 'tracked.js'), `dist ${step}\n`);
    },
  ];
  try {
    pick(ops)?.();
  } catch {
    // A path another change of the batch removed: nothing happens, as with an agent.
  }
}

async function follow(workspace: string, seed: number, batches: number): Promise<void> {
  const index = await openWorkIndex(workspace);
  indexes.push(index);
  const next = random(seed);
  for (let batch = 0; batch < batches; batch++) {
    await index.stage();
    const tree = await index.writeTree();
    expect(tree, `batch ${batch}`).toBe(gitStagedTree(workspace, index.work));
    expect(index.live, `batch ${batch}: the live tree stages`).toBe(true);
    for (let i = 0; i < 1 + Math.floor(next() * 4); i++) change(workspace, next, batch * 10 + i);
  }
  // The index it writes is the worktree's as git sees it: nothing to stage, nothing untracked.
  await index.stage();
  const last = await index.writeTree();
  const data = index.indexData();
  if (data !== null) writeFileSync(index.work, data);
  const env = { ...gitEnv(), GIT_INDEX_FILE: index.work };
  expect(execFileSync('git', ['write-tree'], { cwd: workspace, env, encoding: 'utf8' }).trim()).toBe(last);
  expect(execFileSync('git', ['diff', '--name-only', '--', '.'], { cwd: workspace, env, encoding: 'utf8' })).toBe('');
  expect(execFileSync('git', ['ls-files', '--others', '--exclude-standard', '--', '.'], { cwd: workspace, env, encoding: 'utf8' })).toBe('');
}

function repo(): string {
  const dir = tempRepo({
    '.gitignore': 'node_modules/\n*.log\n!keep.log\ndist/\n',
    'src/a.ts': 'a\n',
    'src/deep/b.ts': 'b\n',
    'lib/c.ts': 'c\n',
    'sub/ws/x.ts': 'x\n',
    'sub/ws/.gitignore': 'local-*\n',
  });
  dirs.push(dir);
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'dist', 'tracked.js'), 'tracked though ignored\n');
  sh(dir, ['add', '-f', 'dist/tracked.js']);
  sh(dir, ['commit', '-q', '-m', 'dist']);
  return dir;
}

describe('live tree', () => {
  it('stages exactly what git stages, batch after batch, at the top of the repository', async () => {
    const dir = repo();
    for (const seed of [1, 7, 42]) await follow(dir, seed, 25);
  });

  it('stages exactly what git stages in a workspace below the top (its own .gitignore too)', async () => {
    const dir = repo();
    await follow(join(dir, 'sub', 'ws'), 3, 25);
  });

  it('lets git stage when the watch may have lost events (more than the queue holds), then follows again', async () => {
    const dir = repo();
    const index = await openWorkIndex(dir);
    indexes.push(index);
    for (let i = 0; i < 4; i++) {
      await index.stage();
      await index.writeTree();
    }
    expect(index.live).toBe(true);
    // Two files touched in turn (inotify merges only an event identical to the last one queued) while the event loop
    // is busy: more events than the queue holds, so the last ones (the new file's among them) are dropped.
    const limit = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
    for (let i = 0; i < limit + 100; i++) utimesSync(join(dir, 'src', i % 2 === 0 ? 'a.ts' : 'deep/b.ts'), i, i);
    writeFileSync(join(dir, 'src', 'a.ts'), 'changed\n');
    writeFileSync(join(dir, 'lib', 'new.ts'), 'new\n');
    await index.stage();
    expect(await index.writeTree()).toBe(gitStagedTree(dir, index.work));
    expect(index.live).toBe(true);
  });

  it('leaves staging to git where attributes or a nested repository could make it differ', async () => {
    const attributes = repo();
    writeFileSync(join(attributes, '.gitattributes'), '*.ts text eol=crlf\n');
    const nested = repo();
    sh(join(nested, 'lib'), ['init', '-q']);
    const crlf = repo();
    sh(crlf, ['config', 'core.autocrlf', 'true']);
    for (const dir of [attributes, nested, crlf]) {
      const index = await openWorkIndex(dir);
      indexes.push(index);
      for (let i = 0; i < 4; i++) {
        await index.stage();
        expect(await index.writeTree()).toBe(gitStagedTree(dir, index.work));
      }
      expect(index.live).toBe(false);
    }
  });
});
