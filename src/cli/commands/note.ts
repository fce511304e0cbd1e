// `ringmaster note <run> "text"`: a note for the next iteration of a run, wherever it is driven (this terminal's
// store reaches a run in another terminal, a server or a worker); --list shows a run's notes, --cancel withdraws one.
import { EXIT } from '../../core/errors.js';
import { addNote, cancelNote, noteView, type NoteView } from '../../manager/notes.js';
import { ACTIVE_STATUSES } from '../../store/liveness.js';
import type { RunRow } from '../../store/index.js';
import type { CliIO, Command } from '../command.js';
import { UsageError } from '../../core/errors.js';
import { CLI_REQUESTER } from './control-common.js';
import { HISTORY_OPTIONS, openWorkspaceStore, parseHistoryArgs, requireRun } from './history-common.js';

const OPTIONS = { ...HISTORY_OPTIONS, list: { type: 'boolean' }, all: { type: 'boolean' }, cancel: { type: 'string' } } as const;

async function note(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseHistoryArgs('note', args, OPTIONS);
  const [id, ...rest] = positionals;
  if (id === undefined) throw new UsageError("missing run id (see 'ringmaster note --help')");
  const listing = values.list === true;
  const cancel = values.cancel;
  if (listing && cancel !== undefined) throw new UsageError('--list and --cancel cannot be combined');
  if ((listing || cancel !== undefined) && rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}' (see 'ringmaster note --help')`);
  if (!listing && cancel === undefined && rest.length !== 1) {
    throw new UsageError(rest.length === 0 ? "missing the note's text (see 'ringmaster note --help')" : 'the note must be one argument: quote it');
  }
  const noteId = cancel === undefined ? null : Number(cancel);
  if (noteId !== null && (!Number.isInteger(noteId) || noteId < 1)) throw new UsageError(`--cancel: expected a note id (a whole number), got '${cancel}'`);
  const { workspace, store } = await openWorkspaceStore(values.cwd, io);
  try {
    const run = await requireRun(store, id, workspace);
    const print = (view: NoteView, text: string): void => void io.stdout.write(values.json ? `${JSON.stringify(view)}\n` : text);
    if (listing) {
      const notes = (await store.listNotes(run.id)).map(noteView).filter((n) => values.all === true || n.status === 'pending');
      if (values.json) io.stdout.write(`${JSON.stringify(notes)}\n`);
      else io.stdout.write(notes.length === 0 ? `run ${run.id} has no ${values.all ? '' : 'pending '}notes\n` : notes.map(listLine).join(''));
      return EXIT.success;
    }
    if (noteId !== null) {
      const cancelled = await cancelNote(store, run, noteId, Date.now());
      print(noteView(cancelled), `note ${cancelled.id} withdrawn from run ${run.id}\n`);
      return EXIT.success;
    }
    const added = await addNote({ store, env: io.env, now: Date.now(), by: CLI_REQUESTER }, run, rest[0] ?? '');
    print(noteView(added.note), `note ${added.note.id} added to run ${run.id}: ${whenDelivered(run)}\n`);
    return EXIT.success;
  } finally {
    await store.close();
  }
}

/** When the note will reach an agent, as the user reads it. */
function whenDelivered(run: RunRow): string {
  if (run.status === 'paused') return 'the run is paused: the note goes to its next iteration once it is resumed';
  if (run.status === 'pending') return 'the run is queued: the note goes to its first iteration';
  if (ACTIVE_STATUSES.includes(run.status)) return 'it goes into the prompt of the next iteration that starts';
  return `the run has ended (${run.status}): the note waits for 'ringmaster resume ${run.id}'`;
}

/** One note of --list. */
function listLine(n: NoteView): string {
  const where = n.status === 'delivered' ? `delivered to iteration ${n.delivered_iteration ?? '?'}` : n.status;
  const text = n.text.replace(/\s+/g, ' ').trim();
  return `${String(n.id).padStart(4)}  ${n.created_at.slice(0, 19).replace('T', ' ')}  ${where}  ${n.by ?? '-'}: ${text.length > 100 ? `${text.slice(0, 99)}…` : text}\n`;
}

/** The `note` command. */
export const noteCommand: Command = {
  name: 'note',
  usage: `Usage: ringmaster note <run> "text"
       ringmaster note <run> --list [--all]
       ringmaster note <run> --cancel <note id>

Sends a note to a run: it is delivered once, in a marked section of the prompt of the next iteration that starts
(never the one already running; if that iteration is interrupted, the next one gets it). A run driven anywhere (a
terminal, 'ringmaster serve', a worker) gets it through the store; a paused or queued run keeps it for its next
iteration. At most 4 KiB; secrets of the environment are redacted. Events note_added and note_delivered record it.

  --list          the run's pending notes (--all: delivered and withdrawn ones too)
  --cancel <id>   withdraws a pending note
  --json          JSON output
  --cwd <dir>     the workspace whose store to use (default: the current directory)
`,
  run: note,
};
