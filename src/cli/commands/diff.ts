// `ringmaster diff <run> --iteration N`: what one iteration changed, as a git unified diff of the trees change
// tracking stored before and after it (the same text as GET /api/runs/:id/iterations/:n/diff).
import { EXIT, UsageError } from '../../core/errors.js';
import { iterationDiff } from '../../manager/iteration-diff.js';
import type { CliIO, Command } from '../command.js';
import { HISTORY_OPTIONS, openWorkspaceStore, parseHistoryArgs, requireRun, runIdArgument } from './history-common.js';

async function diff(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseHistoryArgs('diff', args, { ...HISTORY_OPTIONS, iteration: { type: 'string' } });
  const id = runIdArgument('diff', positionals);
  const n = Number(values.iteration);
  if (values.iteration === undefined) throw new UsageError("missing --iteration N: which iteration's changes to show (see 'ringmaster diff --help')");
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--iteration: expected an iteration number (1, 2, ...), got '${values.iteration}'`);
  const { workspace, store } = await openWorkspaceStore(values.cwd, io);
  try {
    const run = await requireRun(store, id, workspace);
    io.stdout.write(await iterationDiff(store, run, n));
    return EXIT.success;
  } finally {
    await store.close();
  }
}

/** The `diff` command. */
export const diffCommand: Command = {
  name: 'diff',
  usage: `Usage: ringmaster diff <run> --iteration N [--cwd DIR]

Prints what iteration N changed in the workspace (tracked and untracked files, .gitignore respected) as a git
unified diff of the trees stored before and after it (loop.track_changes, in a git workspace). Exit 1 when the run
has no such iteration or it has no stored trees.

  --iteration N  the iteration
  --cwd DIR      workspace directory (default: the current directory)
`,
  run: diff,
};
