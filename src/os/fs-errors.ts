// What a failed file operation means to a user: the disk is full, the file system is read-only, permission was
// denied... One wording for the lock, the logs and the store, so every "cannot write" says the same thing.

/** Error codes of a file system that is out of space (or of the user's quota). */
const FULL = new Set(['ENOSPC', 'EDQUOT']);

/** The errno code of an error, or null. */
export function errnoCode(error: unknown): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : null;
}

/** True when the error says the disk (or the user's quota) is full. */
export function isDiskFull(error: unknown): boolean {
  return FULL.has(errnoCode(error) ?? '');
}

/** True for the errors of a place Ringmaster cannot write to: full, read-only, not permitted, failing. */
export function isUnwritable(error: unknown): boolean {
  return ['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO'].includes(errnoCode(error) ?? '');
}

/** A few words for a file system error: "the disk is full (ENOSPC)", "read-only file system (EROFS)"... */
export function fsProblem(error: unknown): string {
  const code = errnoCode(error);
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return `the disk is full (${code})`;
    case 'EROFS':
      return 'read-only file system (EROFS)';
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code})`;
    case 'EIO':
      return 'I/O error (EIO)';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
