// Which untracked paths `git add --all` leaves out, in process: the .gitignore of each directory from the top of the
// repository down, then $GIT_DIR/info/exclude, then core.excludesFile (by default $XDG_CONFIG_HOME/git/ignore), the
// deepest list with a matching rule deciding, as git does; a directory excluded excludes everything below it (git does
// not even read the .gitignore files under it, whatever they or a lower-precedence list negate). Patterns are matched by the `ignore` package (the .gitignore
// rules as git implements them; docs/changes.md says why). The live tree verifies its first trees against git's.
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Ignore, Options } from 'ignore';

let ignoreFactory: ((options: Options) => Ignore) | null = null;

/**
 * A new matcher of the `ignore` package, loaded on first use: a CommonJS module whose loading cost ~3 ms of every
 * short command that imports the runner (a one-iteration run outside git never matches a pattern).
 */
function newMatcher(): Ignore {
  ignoreFactory ??= createRequire(import.meta.url)('ignore') as (options: Options) => Ignore;
  // Case-sensitive, as git is without core.ignoreCase (the live tree does not open with it).
  return ignoreFactory({ allowRelativePaths: true, ignorecase: false });
}

/** The ignore rules of one repository; paths are relative to its top ('a/b', directories with a trailing '/'). */
export interface IgnoreRules {
  ignored(path: string): boolean;
  /** A .gitignore was read again (it changed): forget what was read from it. */
  forget(dir: string): void;
  /** A rule read uses what the matcher does not implement as git does (a POSIX class such as `[[:upper:]]`). */
  inexact(): boolean;
  /** The global files (info/exclude, excludes file) or the `watched` ones changed since they were read. */
  globalsChanged(): boolean;
}

/** A bracket expression with a POSIX character class (`[[:digit:]]`): git's wildmatch has them, `ignore` does not. */
const POSIX_CLASS = /\[[^\]\n]*\[:[a-z]+:\]/;

/** The rules in `file` (null: none); `onInexact` when one of them would be matched otherwise than by git. */
function readRules(file: string, onInexact: () => void): Ignore | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  if (POSIX_CLASS.test(text)) onInexact();
  return text.trim() === '' ? null : newMatcher().add(text);
}

/** How a file was when read: mtime and size, or 'none'. */
function stamp(file: string): string {
  try {
    const st = statSync(file);
    return `${st.mtimeMs}:${st.size}:${st.ino}`;
  } catch {
    return 'none';
  }
}

/**
 * A file of git's global configuration directory, $XDG_CONFIG_HOME/git (default ~/.config/git): `ignore` is the
 * default core.excludesFile, `attributes` the global attributes file.
 */
export function xdgGitFile(name: 'ignore' | 'attributes'): string {
  const xdg = process.env.XDG_CONFIG_HOME;
  return join(xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.config'), 'git', name);
}

/**
 * The rules of the repository whose worktree top is `top` and git directory `gitDir`; `watched` are more files whose
 * change `globalsChanged` reports (the .gitignore and .gitattributes files above a workspace, which no watch sees).
 */
export function openIgnoreRules(top: string, gitDir: string, excludesFile: string, watched: string[] = []): IgnoreRules {
  const globalFiles = [join(gitDir, 'info', 'exclude'), excludesFile];
  const stamped = [...globalFiles, ...watched];
  const stamps = stamped.map(stamp);
  let inexact = false;
  const read = (file: string): Ignore | null => readRules(file, () => void (inexact = true));
  // Highest precedence first: info/exclude before the excludes file.
  const globals = globalFiles.map(read).filter((r): r is Ignore => r !== null);
  const perDir = new Map<string, Ignore | null>();
  const rulesOf = (dir: string): Ignore | null => {
    let rules = perDir.get(dir);
    if (rules === undefined) {
      rules = read(join(top, dir, '.gitignore'));
      perDir.set(dir, rules);
    }
    return rules;
  };
  const decide = (rules: Ignore, relative: string): boolean | null => {
    const result = rules.test(relative);
    return result.ignored ? true : result.unignored ? false : null;
  };
  /** Whether `path` is excluded by its own name (its `parts`), its directories apart. */
  const matches = (path: string, parts: string[]): boolean => {
    // From the deepest directory's .gitignore up to the top's: the first with a matching rule decides.
    for (let depth = parts.length - 1; depth >= 0; depth--) {
      const dir = parts.slice(0, depth).join('/');
      const rules = rulesOf(dir);
      if (rules === null) continue;
      const decided = decide(rules, path.slice(dir === '' ? 0 : dir.length + 1));
      if (decided !== null) return decided;
    }
    for (const rules of globals) {
      const decided = decide(rules, path);
      if (decided !== null) return decided;
    }
    return false;
  };
  /** Directories found excluded or not (the rules do not change while they are open). */
  const dirs = new Map<string, boolean>();
  const dirExcluded = (parts: string[]): boolean => {
    const dir = `${parts.join('/')}/`;
    let excluded = dirs.get(dir);
    if (excluded === undefined) {
      excluded = (parts.length > 1 && dirExcluded(parts.slice(0, -1))) || matches(dir, parts);
      dirs.set(dir, excluded);
    }
    return excluded;
  };
  return {
    ignored(path) {
      const parts = path.split('/');
      if (parts.at(-1) === '') parts.pop();
      // A directory above excluded: so is everything under it.
      if (parts.length > 1 && dirExcluded(parts.slice(0, -1))) return true;
      return matches(path, parts);
    },
    forget(dir) {
      perDir.delete(dir);
      dirs.clear();
    },
    inexact: () => inexact,
    globalsChanged: () => stamped.some((file, i) => stamp(file) !== stamps[i]),
  };
}
