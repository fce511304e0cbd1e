// Ringmaster's files are its user's only: directories 0700, files 0600. What exists with looser modes is tightened
// (group and others lose their bits) when it is ours; the owner's own bits are never added to, so something made
// read-only on purpose stays read-only.
import { chmodSync, mkdirSync, statSync } from 'node:fs';

/** Takes the group's and others' permissions away from a file or directory we own; errors are ignored. */
export function restrictToOwner(path: string): void {
  try {
    const info = statSync(path);
    if ((info.mode & 0o077) !== 0 && info.uid === process.getuid?.()) chmodSync(path, info.mode & 0o700);
  } catch {
    // Not ours (e.g. a shared parent given as RINGMASTER_HOME), or a read-only file system: leave it alone.
  }
}

/** Creates `dir` (and parents) with mode 0700 if missing, and restricts it to its owner if it is ours. */
export function ensurePrivateDir(dir: string): string {
  // Already there and private (every iteration's log directory after the first): one stat, nothing to do.
  if (isPrivateDir(dir)) return dir;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  restrictToOwner(dir);
  return dir;
}

/** True when `dir` is a directory that group and others have no access to. */
function isPrivateDir(dir: string): boolean {
  try {
    const info = statSync(dir, { throwIfNoEntry: false });
    return info !== undefined && info.isDirectory() && (info.mode & 0o077) === 0;
  } catch {
    return false;
  }
}
