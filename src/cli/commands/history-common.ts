// Shared by the history commands (runs, show, logs, stats, rollback): argument parsing, opening the
// workspace's store, finding a run, liveness, and the snake_case JSON shapes they print.
import { existsSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { UsageError } from '../../core/errors.js';
import { isProcessAlive } from '../../runner/lock.js';
import { RunNotFoundError } from '../../store/errors.js';
import type { DisplayStatus, LivenessProbe } from '../../store/liveness.js';
import { openStore } from '../../store/open-store.js';
import { workspaceKey } from '../../store/paths.js';
import type { CheckpointRow, IterationRow, RunRow, RunTotals } from '../../store/rows.js';
import type { Store } from '../../store/store.js';
import type { CliIO } from '../command.js';

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
    throw new UsageError(`${(error as Error).message.replace(/\. To specify a positional argument.*$/, '')} (see 'ringmaster ${command} --help')`);
  }
}

/** The workspace (from --cwd or the current directory, as its real path) and the user's store, which must exist. */
export async function openWorkspaceStore(cwd: string | undefined, io: CliIO): Promise<{ workspace: string; store: Store }> {
  const dir = resolve(io.cwd, cwd ?? '.');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--cwd: not a directory: ${dir}`);
  return { workspace: workspaceKey(dir), store: await openStore({ env: io.env, workspace: dir, create: false }) };
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
export function localProbe(): LivenessProbe {
  return { host: hostname(), now: Date.now(), isAlive: isProcessAlive };
}

/** An epoch-ms time as ISO 8601, null stays null. */
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** The JSON object of a run (runs --json items, show --json `run`). */
export function runJson(run: RunRow, totals: RunTotals, status: DisplayStatus) {
  return {
    id: run.id,
    status,
    stored_status: run.status,
    stop_reason: run.stop_reason,
    agent: run.agent,
    kind: run.kind,
    meta: run.meta,
    iterations: totals.iterations,
    cost_usd: totals.cost_usd,
    cost_unknown: totals.cost_unknown,
    tokens_in: totals.tokens_in,
    tokens_out: totals.tokens_out,
    cache_read: totals.cache_read,
    cache_write: totals.cache_write,
    runtime_ms: totals.runtime_ms,
    workspace: run.workspace,
    worktree: run.worktree,
    branch: run.branch,
    created_at: iso(run.created_at),
    updated_at: iso(run.updated_at),
    ended_at: iso(run.ended_at),
    owner_pid: run.owner_pid,
    owner_host: run.owner_host,
    heartbeat_at: iso(run.heartbeat_at),
  };
}

/** The JSON object of an iteration (show --json `iterations` items). */
export function iterationJson(row: IterationRow) {
  return {
    number: row.number,
    status: row.status,
    exit_code: row.exit_code,
    exit_signal: row.exit_signal,
    duration_ms: row.duration_ms,
    tokens_in: row.tokens_in,
    tokens_out: row.tokens_out,
    cache_read: row.cache_read,
    cache_write: row.cache_write,
    cost_usd: row.cost_usd,
    completion_signal_found: row.completion_signal_found,
    failure_signal_found: row.failure_signal_found,
    error_kind: row.error_kind,
    error_message: row.error_message,
    session_id: row.session_id,
    model: row.model,
    agent: row.agent,
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    log_path: row.log_path,
    unit_id: row.unit_id,
  };
}

/** The JSON object of a checkpoint. */
export function checkpointJson(row: CheckpointRow) {
  return { iteration: row.iteration, commit_sha: row.commit_sha, state: row.state, message: row.message, snapshot: row.snapshot, created_at: iso(row.created_at) };
}
