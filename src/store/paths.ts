// Where Ringmaster keeps its state: one data directory per user, outside every workspace, so nothing an agent
// does in its workspace (`git clean -fdx`, `rm -rf .ringmaster`) can lose history or a lock.
//   $RINGMASTER_HOME (default $XDG_DATA_HOME/ringmaster, i.e. ~/.local/share/ringmaster), mode 0700:
//     ringmaster.db                     the SQLite store of every workspace
//     runs/<run-id>/iteration-<n>.log   iteration logs
//     runs/<run-id>/agent.pid           the running agent's process group
//     locks/<hash>.lock                 workspace locks, keyed by the workspace's real path
//     disk-reserve                      1 MiB given back when the disk fills up during a run (reserve.ts)
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/** Environment variables that choose the data directory. */
export type PathEnv = Readonly<Record<string, string | undefined>>;

/** The data directory: $RINGMASTER_HOME, else $XDG_DATA_HOME/ringmaster, else ~/.local/share/ringmaster. */
export function dataDir(env: PathEnv): string {
  const home = env.RINGMASTER_HOME;
  if (home !== undefined && home !== '') return resolve(home);
  const xdg = env.XDG_DATA_HOME;
  const base = xdg !== undefined && xdg !== '' && isAbsolute(xdg) ? xdg : join(env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir(), '.local', 'share');
  return join(base, 'ringmaster');
}

/** Creates a directory of Ringmaster's, private to its owner (see os/private-files.ts). */
export { ensurePrivateDir } from '../os/private-files.js';

/** The SQLite database of a data directory. */
export function databasePath(dir: string): string {
  return join(dir, 'ringmaster.db');
}

/** The files SQLite locks for the database at `path` (the database, its WAL and shared-memory index). */
export function sqliteLockFiles(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`];
}

/** The directory of one run's files (logs, agent pid). */
export function runDir(dir: string, runId: string): string {
  return join(dir, 'runs', runId);
}

/** Log file of one iteration. */
export function iterationLogPath(dir: string, runId: string, iteration: number): string {
  return join(runDir(dir, runId), `iteration-${iteration}.log`);
}

/** The file holding the process group id of a run's running agent. */
export function agentPidPath(dir: string, runId: string): string {
  return join(runDir(dir, runId), 'agent.pid');
}

/** The lock file of a workspace (by the hash of its real path). */
export function workspaceLockPath(dir: string, workspaceKey: string): string {
  // node:crypto is taken when needed: importing it costs tens of ms of start-up that `hook stop` does not need.
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256').update(workspaceKey).digest('hex').slice(0, 24);
  return join(dir, 'locks', `${hash}.lock`);
}

/** How runs name a workspace: its real path (symlinks resolved), or the absolute path if it does not exist. */
export function workspaceKey(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Name of Ringmaster's directory inside a workspace: committed project definitions (workflows), not state. */
export const RINGMASTER_DIR = '.ringmaster';

/** Where Ringmaster kept a workspace's database before the data directory (imported on first use). */
export function legacyDatabasePath(workspace: string): string {
  return join(workspace, RINGMASTER_DIR, 'ringmaster.db');
}
