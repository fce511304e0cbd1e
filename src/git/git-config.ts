// The git configuration of a directory as git itself reads it (`git config -z --list`: every file and include,
// GIT_CONFIG_* and the `-c` settings Ringmaster's gits run with), in one git process, and git's reading of a boolean.
import { git } from './git-exec.js';

/** Values by key, section and name lower-cased as git prints them (the last one set wins); null: a key without `=`. */
export type GitConfig = ReadonlyMap<string, string | null>;

/** Reads the configuration git applies in `dir`. */
export async function readGitConfig(dir: string): Promise<GitConfig> {
  const out = await git(dir, ['config', '-z', '--list'], { okExitCodes: [1] });
  const values = new Map<string, string | null>();
  for (const item of out.stdout.split('\0')) {
    if (item === '') continue;
    const newline = item.indexOf('\n');
    values.set((newline < 0 ? item : item.slice(0, newline)).toLowerCase(), newline < 0 ? null : item.slice(newline + 1));
  }
  return values;
}

/** The words git reads as true, and as false (compared lower-cased). */
export const TRUE_WORDS: ReadonlySet<string> = new Set(['true', 'yes', 'on', '1']);
export const FALSE_WORDS: ReadonlySet<string> = new Set(['false', 'no', 'off', '0', '']);

/** A boolean setting as git reads it (a key without a value is true); undefined when unset or not one of git's words. */
export function configBool(config: GitConfig, key: string): boolean | undefined {
  const value = config.get(key);
  if (value === undefined) return undefined;
  if (value === null) return true;
  const word = value.toLowerCase();
  return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : undefined;
}
