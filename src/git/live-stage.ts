// Staging a directory into a run's private index: by the live tree (live-tree.ts, no git process) where it can follow
// the workspace, by `git add --all` everywhere else. The live tree's first trees are checked against git's (the tree
// it read from git's index, then the first one it built from file events): a difference and git stages for the rest
// of the run. Not on platforms other than Linux (inotify's guarantees are what it relies on), not in repositories
// with attributes (filters, line endings), a nested repository, core.fileMode/symlinks/ignoreCase off, SHA-256.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileEventsWork } from './dir-watch.js';
import { git } from './git-exec.js';
import { configBool, type GitConfig } from './git-config.js';
import { openIgnoreRules, xdgGitFile, type IgnoreRules } from './ignore-rules.js';
import { openLiveTree, type LiveTree } from './live-tree.js';
import { splitOwn, type StagedDiff } from './tree-diff.js';
import type { FileChange } from './changes.js';

/** How a directory's private index gets staged. */
export interface Stager {
  /** The live tree stages (no git process); false: git does. */
  readonly live: boolean;
  stage(): Promise<void>;
  writeTree(): Promise<string>;
  /** What changed under the directory between the last two trees the live tree wrote; null: not known here. */
  diff(before: string, after: string): StagedDiff | null;
  /** An index file's content for what the live tree staged (a checkpoint installs it); null: the index file holds it. */
  indexData(): Buffer | null;
  /** The index file was replaced (seeded again from the real one): the live tree opens again at the next stage. */
  reset(): void;
  close(): void;
}

/** Where a directory's private index lives. */
export interface StagePlace {
  dir: string;
  /** The private index file. */
  work: string;
  objects: string;
  /** The directory's path in the repository ('' or ending in '/'). */
  prefix: string;
  /** The top of the worktree, and the repository's info directory (absolute). */
  top: string;
  info: string;
  /** Reads the repository's configuration afresh (the work index keeps the last one read for its checkpoints). */
  readConfig(): Promise<GitConfig>;
}

/** More live trees opened again than this in one run (changed .gitignore files, replaced directories): git stages. */
const MAX_REOPENS = 20;

/** The git configuration under which the live tree stages exactly as git does; null when it cannot. */
async function liveRules(place: StagePlace): Promise<{ gitDir: string; excludesFile: string; above: string[] } | null> {
  const config = await place.readConfig();
  const is = (key: string, value: boolean): boolean => configBool(config, key) === value;
  if (is('core.autocrlf', true) || config.get('core.autocrlf')?.toLowerCase() === 'input') return null;
  if (is('core.filemode', false) || is('core.symlinks', false) || is('core.ignorecase', true) || is('core.precomposeunicode', true)) return null;
  if (is('core.splitindex', true) || is('core.sparsecheckout', true) || config.has('core.sharedrepository')) return null;
  if (String(config.get('extensions.objectformat') ?? 'sha1').toLowerCase() !== 'sha1' || config.has('core.attributesfile')) return null;
  // A relative path is relative to the top of the worktree (git works from there once it has found it).
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(place.top, p));
  if (existsSync(join(place.info, 'attributes')) || existsSync(xdgGitFile('attributes'))) return null;
  // The .gitignore and .gitattributes of the directories above a workspace below the top: no watch sees them change.
  const above = aboveFiles(place.top, place.prefix);
  if (above.some((file) => file.endsWith('.gitattributes') && existsSync(file))) return null;
  const configured = config.get('core.excludesfile');
  if (configured === null) return null;
  const excludesFile = configured === undefined ? xdgGitFile('ignore') : configured.startsWith('~/') ? join(homedir(), configured.slice(2)) : abs(configured);
  return { gitDir: resolve(place.info, '..'), excludesFile, above };
}

/** The .gitignore and .gitattributes files of the directories from the top down to the workspace's parent. */
function aboveFiles(top: string, prefix: string): string[] {
  const parts = prefix.split('/').filter((p) => p !== '');
  const files: string[] = [];
  for (let depth = 0; depth < parts.length; depth++) {
    const at = join(top, ...parts.slice(0, depth));
    files.push(join(at, '.gitignore'), join(at, '.gitattributes'));
  }
  return files;
}

/** Changes from the top of the repository as parseNameStatus gives them: under the directory, .ringmaster/ apart. */
function relativeDiff(changes: FileChange[], prefix: string): StagedDiff {
  return splitOwn(changes.filter((c) => c.path.startsWith(prefix)).map((c) => ({ ...c, path: c.path.slice(prefix.length) })));
}

async function gitAdd(dir: string, indexFile: string): Promise<void> {
  await git(dir, ['-c', 'core.untrackedCache=true', 'add', '--all', '--', '.'], { env: { GIT_INDEX_FILE: indexFile } });
}

async function gitWriteTree(dir: string, indexFile: string): Promise<string> {
  return (await git(dir, ['write-tree'], { env: { GIT_INDEX_FILE: indexFile } })).stdout.trim();
}

/** git's staging as the live tree runs it while it opens: whether it ran, and how it failed. */
function recordedStage(byGit: () => Promise<void>): { stage: () => Promise<void>; ran: boolean; failed: { error: unknown } | null } {
  const record = {
    ran: false,
    failed: null as { error: unknown } | null,
    stage: async (): Promise<void> => {
      record.ran = true;
      await byGit().catch((error: unknown) => {
        record.failed = { error };
        throw error;
      });
    },
  };
  return record;
}

/** The stager of one directory's private index. */
export function createStager(place: StagePlace): Stager {
  const { dir, work } = place;
  const byGit = (): Promise<void> => gitAdd(dir, work);
  const gitTree = (): Promise<string> => gitWriteTree(dir, work);
  let live: LiveTree | null = null;
  let off = process.platform !== 'linux' || process.env.RINGMASTER_LIVE_TREE === '0';
  let opened = 0;
  /** The next writeTree compares the live tree's root with git's. */
  let verify = false;
  let eventsVerified = false;
  let ignoreRules: IgnoreRules | null = null;
  const drop = (): void => void (live?.close(), (live = null));
  const open = async (): Promise<void> => {
    // Read again at every opening: an attributes file above the workspace may have appeared since the last one.
    const rules = await liveRules(place);
    if (rules === null || ++opened > MAX_REOPENS) {
      off = true;
      return byGit();
    }
    const staging = recordedStage(byGit);
    const ignore = openIgnoreRules(place.top, rules.gitDir, rules.excludesFile, rules.above);
    ignoreRules = ignore;
    live = await openLiveTree({ dir, prefix: place.prefix, objects: place.objects, rules: ignore }, work, staging.stage).catch(() => null);
    // git's own staging failed (a name it refuses, a file it cannot read): the snapshot fails as it would by git.
    if (staging.failed !== null) throw staging.failed.error;
    if (live === null) off = true;
    else verify = true;
    if (!staging.ran) await byGit();
  };
  return {
    get live() {
      return live !== null;
    },
    async stage() {
      if (live !== null) {
        const refreshed = await live.refresh();
        // Rules it cannot match as git does (read as they came into use): git stages for the rest of the run.
        if (!refreshed && (ignoreRules?.inexact() ?? false)) off = true;
        if (refreshed) {
          // The first tree built from file events is checked against git staging the same directory.
          if (!eventsVerified) {
            await byGit();
            verify = true;
            eventsVerified = true;
          }
          return;
        }
        drop();
      }
      if (!fileEventsWork()) off = true;
      if (off) return byGit();
      await open();
    },
    async writeTree() {
      if (live === null) return gitTree();
      const tree = live.writeTree();
      if (!verify) return tree;
      verify = false;
      const expected = await gitTree();
      if (expected !== tree) {
        drop();
        off = true;
      }
      return expected;
    },
    diff(before, after) {
      const changes = live?.diff(before, after) ?? null;
      return changes === null ? null : relativeDiff(changes, place.prefix);
    },
    indexData: () => live?.indexData() ?? null,
    reset: drop,
    close: drop,
  };
}
