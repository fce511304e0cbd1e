// `ringmaster logs <run>`: the agent output of a run's iterations, optionally followed as it grows.
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXIT, UsageError } from '../../core/errors.js';
import { ACTIVE_STATUSES, isOrphaned } from '../../store/liveness.js';
import type { IterationRow } from '../../store/rows.js';
import type { Store } from '../../store/store.js';
import type { CliIO, Command } from '../command.js';
import { HISTORY_OPTIONS, localProbe, openWorkspaceStore, parseHistoryArgs, requireRun, runIdArgument } from './history-common.js';

/** How often --follow looks for new output. */
const FOLLOW_POLL_MS = 200;
const ACTIVE = new Set<string>(ACTIVE_STATUSES);

/** Reading state of one iteration's log file. */
interface Cursor {
  offset: number;
  decoder: StringDecoder;
  /** JSON mode: the text after the last newline, not printed yet. */
  partial: string;
  headerShown: boolean;
}

async function logs(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseHistoryArgs('logs', args, { ...HISTORY_OPTIONS, iteration: { type: 'string' }, follow: { type: 'boolean', short: 'f' } });
  const id = runIdArgument('logs', positionals);
  let only: number | null = null;
  if (values.iteration !== undefined) {
    only = Number(values.iteration);
    if (!Number.isInteger(only) || only < 1) throw new UsageError(`--iteration: expected an iteration number (1, 2, ...), got '${values.iteration}'`);
  }
  const { workspace, store } = await openWorkspaceStore(values.cwd, io);
  let stopped = false;
  const removeSignal = io.onSignal(() => {
    stopped = true;
  });
  try {
    const run = await requireRun(store, id, workspace);
    const json = values.json === true;
    const cursors = new Map<number, Cursor>();
    const pick = (rows: IterationRow[]) => (only === null ? rows : rows.filter((r) => r.number === only));
    const first = pick(await store.listIterations(run.id));
    if (only !== null && first.length === 0 && !values.follow) throw new UsageError(`run ${run.id} has no iteration ${only}`);
    for (;;) {
      // Decide before reading: once the run is seen ended, one last read gets everything it wrote.
      const more = values.follow === true && !stopped && (await stillWriting(store, run.id, only));
      for (const row of pick(await store.listIterations(run.id))) await drain(row, cursors, io, { json, headers: only === null });
      if (!more) break;
      await sleep(FOLLOW_POLL_MS);
    }
    for (const [number, cursor] of cursors) flushPartial(number, cursor, io, json);
    return EXIT.success;
  } finally {
    removeSignal();
    await store.close();
  }
}

/** Whether more output may come: the run is active with a live owner (and the iteration still runs). */
async function stillWriting(store: Store, runId: string, only: number | null): Promise<boolean> {
  const run = await store.getRun(runId);
  if (!run || !ACTIVE.has(run.status) || isOrphaned(run, localProbe())) return false;
  if (only === null) return true;
  const row = await store.getIteration(runId, only);
  return row === null || row.status === 'running';
}

/** Prints what was appended to an iteration's log since the last call. */
async function drain(row: IterationRow, cursors: Map<number, Cursor>, io: CliIO, mode: { json: boolean; headers: boolean }): Promise<void> {
  let cursor = cursors.get(row.number);
  if (!cursor) {
    cursor = { offset: 0, decoder: new StringDecoder('utf8'), partial: '', headerShown: false };
    cursors.set(row.number, cursor);
  }
  if (mode.headers && !mode.json && !cursor.headerShown) {
    io.stdout.write(`==> iteration ${row.number} (${row.status}) <==\n`);
    cursor.headerShown = true;
  }
  if (row.log_path === null) return;
  let handle;
  try {
    handle = await open(row.log_path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    const buffer = Buffer.alloc(64 * 1024);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, cursor.offset);
      if (bytesRead === 0) break;
      cursor.offset += bytesRead;
      const text = cursor.decoder.write(buffer.subarray(0, bytesRead));
      if (!mode.json) {
        io.stdout.write(text);
        continue;
      }
      const lines = (cursor.partial + text).split('\n');
      cursor.partial = lines.pop() ?? '';
      for (const line of lines) io.stdout.write(`${JSON.stringify({ iteration: row.number, line })}\n`);
    }
  } finally {
    await handle.close();
  }
}

function flushPartial(number: number, cursor: Cursor, io: CliIO, json: boolean): void {
  const rest = cursor.partial + cursor.decoder.end();
  if (rest === '') return;
  io.stdout.write(json ? `${JSON.stringify({ iteration: number, line: rest })}\n` : rest);
}

/** The `logs` command. */
export const logsCommand: Command = {
  name: 'logs',
  usage: `Usage: ringmaster logs <run> [--iteration N] [--follow] [--cwd DIR] [--json]

Prints the agent output of every iteration, each after a '==> iteration N (status) <==' header,
or only iteration N's output with --iteration.

  --iteration N  only this iteration (no header)
  -f, --follow   keep printing new output until the run (or iteration N) ends or Ctrl-C
  --cwd DIR      workspace directory (default: the current directory)
  --json         one JSON object per output line: {"iteration": N, "line": "..."}
`,
  run: logs,
};
