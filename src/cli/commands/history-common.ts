// Shared by the history commands (runs, show, logs, stats, rollback): argument parsing, opening the
// workspace's store, finding a run, liveness, and the snake_case JSON shapes they print.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { UsageError } from '../../core/errors.js';
import { NoStoreError, RunNotFoundError } from '../../store/errors.js';
import { configuredDatabaseUrl } from '../../config/database.js';
import { openStore } from '../../store/open-store.js';
import { workspaceKey } from '../../store/paths.js';
import type { RunRow } from '../../store/rows.js';
import type { Store } from '../../store/store.js';
import type { CliIO } from '../command.js';
import { flagProblem } from '../flag-problem.js';

/** Options every history command has. */
export const HISTORY_OPTIONS = {
  cwd: { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

/** Options of the commands that list runs of this workspace by default (`--all`: every workspace). */
export const LISTING_OPTIONS = { ...HISTORY_OPTIONS, all: { type: 'boolean' } } as const satisfies ParseArgsConfig['options'];

/** Parses a history command's arguments strictly; mistakes become a UsageError naming the command. */
export function parseHistoryArgs<O extends NonNullable<ParseArgsConfig['options']>>(command: string, args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${flagProblem(error)} (see 'ringmaster ${command} --help')`);
  }
}

/** The workspace (from --cwd or the current directory, as its real path) and the user's store, which must exist. */
export async function openWorkspaceStore(cwd: string | undefined, io: CliIO): Promise<{ workspace: string; store: Store }> {
  const dir = resolve(io.cwd, cwd ?? '.');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--cwd: not a directory: ${dir}`);
  return { workspace: workspaceKey(dir), store: await openStore({ env: io.env, workspace: dir, create: false, databaseUrl: configuredDatabaseUrl(dir, io.env) }) };
}

/** Like openWorkspaceStore, but no database yet (a fresh install) gives no store instead of an error. */
export async function openWorkspaceStoreIfAny(cwd: string | undefined, io: CliIO): Promise<{ workspace: string; store: Store | null }> {
  try {
    return await openWorkspaceStore(cwd, io);
  } catch (error) {
    if (!(error instanceof NoStoreError)) throw error;
    return { workspace: workspaceKey(resolve(io.cwd, cwd ?? '.')), store: null };
  }
}

/** Exactly one positional run id, or a UsageError. */
export function runIdArgument(command: string, positionals: string[]): string {
  const [id, ...extra] = positionals;
  if (id === undefined) throw new UsageError(`missing run id (see 'ringmaster ${command} --help')`);
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}' (see 'ringmaster ${command} --help')`);
  return id;
}

/** The run with this id (or unique prefix); RunNotFoundError otherwise. */
export async function requireRun(store: Store, id: string, workspace: string): Promise<RunRow> {
  const run = await store.findRun(id);
  if (!run) throw new RunNotFoundError(id, workspace);
  return run;
}

/** Liveness probe of this machine, now. */
export { localProbe } from '../../manager/local-probe.js';

/** The JSON shapes of runs, iterations and checkpoints (shared with the server's API). */
export { iso, runView as runJson, iterationView as iterationJson, checkpointView as checkpointJson, errorView as errorJson } from '../../manager/views.js';
