// Where ringmaster keeps its files inside a workspace: .ringmaster/{ringmaster.db,lock,logs/}.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Name of ringmaster's directory inside a workspace. */
export const RINGMASTER_DIR = '.ringmaster';

/** Absolute path of `<workspace>/.ringmaster`. */
export function ringmasterDir(workspace: string): string {
  return join(workspace, RINGMASTER_DIR);
}

/** Absolute path of the workspace's database. */
export function databasePath(workspace: string): string {
  return join(workspace, RINGMASTER_DIR, 'ringmaster.db');
}

/** Directory of a run's iteration logs: `.ringmaster/logs/<run-id>/`. */
export function runLogDir(workspace: string, runId: string): string {
  return join(workspace, RINGMASTER_DIR, 'logs', runId);
}

/** Log file of one iteration: `.ringmaster/logs/<run-id>/iteration-<n>.log`. */
export function iterationLogPath(workspace: string, runId: string, iteration: number): string {
  return join(runLogDir(workspace, runId), `iteration-${iteration}.log`);
}

/**
 * Creates `<workspace>/.ringmaster/` with a `.gitignore` of `*`, so git never sees ringmaster's files
 * even where .git/info/exclude does not apply; the user's own .gitignore is never touched.
 */
export function ensureRingmasterDir(workspace: string): string {
  const dir = ringmasterDir(workspace);
  mkdirSync(dir, { recursive: true });
  const ignore = join(dir, '.gitignore');
  if (!existsSync(ignore)) writeFileSync(ignore, '# written by ringmaster: keep its database, locks and logs out of git\n*\n');
  return dir;
}
