// A checkpoint's commit object built in process, byte for byte what `git commit-tree <tree> -p <parent> -m <message>`
// writes: the identities resolved as git resolves them (GIT_AUTHOR_* / GIT_COMMITTER_* in the env, else
// author.* / committer.*, else user.* in the configuration; the dates from GIT_*_DATE, else now in the local time
// zone). Whatever git would change, reject or resolve elsewhere (a name with "crud" at its ends or a delimiter in it,
// an identity from the passwd file or $EMAIL, a date in another format, text that is not plain UTF-8, a commit
// encoding other than UTF-8, SHA-256) answers null: git writes that commit.
import type { GitConfig } from './git-config.js';
import { writeLooseObject } from './loose-object.js';

/** One identity line's value: `Name <email> <seconds> <+hhmm>`. */
export type Signature = string;

/** Who a commit is by, as git would write it (the committer also signs the reflog lines). */
export interface CommitIdentity {
  author: Signature;
  committer: Signature;
}

const IDENTITY_KEYS = ['user.name', 'user.email', 'author.name', 'author.email', 'committer.name', 'committer.email'];
/** Bytes git strips from both ends of a name or an email (ident.c's crud()). */
const CRUD = new Set([...',:;<>"\\\'']);
const crud = (c: string): boolean => c <= ' ' || CRUD.has(c);

/** True when git would write `text` into a commit unchanged: well-formed UTF-8, no noncharacter, nothing lost in decoding. */
export function plainText(text: string): boolean {
  if (!text.isWellFormed() || text.includes('\0') || text.includes('\uFFFD')) return false;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    // git's UTF-8 check rewrites noncharacters (U+xxFFFE, U+xxFFFF, U+FDD0..U+FDEF) as if they were Latin-1.
    if ((code & 0xfffe) === 0xfffe || (code >= 0xfdd0 && code <= 0xfdef)) return false;
  }
  return true;
}

/** A name or email git keeps as it is: not empty, no crud at either end, no delimiter inside. */
function plainIdent(value: string | undefined): value is string {
  if (value === undefined || value === '' || crud(value[0] ?? '') || crud(value.at(-1) ?? '')) return false;
  return !/[\n<>]/.test(value) && plainText(value);
}

/** git's `<seconds> <+hhmm>` for a moment in the local time zone (as git's datestamp()). */
export function localDate(now: Date): string {
  const offset = -now.getTimezoneOffset();
  const abs = Math.abs(offset);
  const zone = `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  return `${Math.floor(now.getTime() / 1000)} ${zone}`;
}

/** A GIT_*_DATE value git copies as it is (`@<seconds> <+hhmm>`), unset or empty: now; anything else null. */
function dateOf(value: string | undefined, now: Date): string | null {
  if (value === undefined || value === '') return localDate(now);
  const match = /^@(0|[1-9][0-9]{0,15}) ([+-][0-9]{2}[0-5][0-9])$/.exec(value);
  return match === null ? null : `${match[1]} ${match[2]}`;
}

/** One side's signature as git resolves it; null when git would resolve it otherwise than from env and config. */
function signature(env: Readonly<Record<string, string | undefined>>, config: GitConfig, who: 'author' | 'committer', now: Date): Signature | null {
  const upper = who.toUpperCase();
  const set = (key: string): string | undefined => config.get(key) || undefined;
  const name = env[`GIT_${upper}_NAME`] ?? set(`${who}.name`) ?? config.get('user.name') ?? undefined;
  const email = env[`GIT_${upper}_EMAIL`] ?? set(`${who}.email`) ?? config.get('user.email') ?? undefined;
  const date = dateOf(env[`GIT_${upper}_DATE`], now);
  if (!plainIdent(name) || !plainIdent(email) || date === null) return null;
  return `${name} <${email}> ${date}`;
}

/**
 * The author and committer of a commit made now with `env` (the process's env with the identity Ringmaster gives git)
 * under `config`; null when git may write them otherwise.
 */
export function commitIdentity(env: Readonly<Record<string, string | undefined>>, config: GitConfig, now: Date): CommitIdentity | null {
  // A key without a value is an error to git.
  if (IDENTITY_KEYS.some((key) => config.get(key) === null)) return null;
  const author = signature(env, config, 'author', now);
  const committer = signature(env, config, 'committer', now);
  return author === null || committer === null ? null : { author, committer };
}

/** True when the repository's commits are SHA-1 objects in UTF-8 (the only ones written here). */
export function commitsInProcess(config: GitConfig): boolean {
  const encoding = config.get('i18n.commitencoding');
  if (encoding !== undefined && !/^utf-?8$/i.test(encoding ?? '')) return false;
  return [...config.keys()].every((key) => !key.startsWith('extensions.') || knownExtension(key, config.get(key)));
}

/** Extensions under which objects and refs are what this code writes; any other one: git does it. */
function knownExtension(key: string, value: string | null | undefined): boolean {
  if (key === 'extensions.worktreeconfig') return true;
  if (key === 'extensions.objectformat') return value?.toLowerCase() === 'sha1';
  if (key === 'extensions.refstorage') return value?.toLowerCase() === 'files';
  return false;
}

/** The commit object's content `commit-tree -m` writes: headers, a blank line, the message ending with a newline. */
export function commitContent(tree: string, parent: string, identity: CommitIdentity, message: string): Buffer {
  const body = message === '' || message.endsWith('\n') ? message : `${message}\n`;
  return Buffer.from(`tree ${tree}\nparent ${parent}\nauthor ${identity.author}\ncommitter ${identity.committer}\n\n${body}`);
}

/** Writes the commit as a loose object under `objects` and returns its id (hex). */
export function writeCommit(objects: string, tree: string, parent: string, identity: CommitIdentity, message: string): string {
  return writeLooseObject(objects, 'commit', commitContent(tree, parent, identity, message)).toString('hex');
}
