// `ringmaster resume <run>`: continue a paused run where it runs, or a crashed, interrupted, stopped or
// limit-ended run in this process with its totals and limits intact.
import { parseArgs } from 'node:util';
import { EXIT, UsageError, UserError } from '../../core/errors.js';
import { registerBuiltInProgramKinds } from '../../manager/program-kinds.js';
import { programForRun, storedDefinition } from '../../manager/programs.js';
import { metaFromStorage, specFromStorage, type RunSpec } from '../../spec/run-spec.js';
import { parseStoredSpec } from '../../spec/stored-spec.js';
import type { CliIO, Command } from '../command.js';
import type { RunRow, Store } from '../../store/index.js';
import { runInTerminal } from '../run-session.js';
import { isQueued } from '../../store/liveness.js';
import { requeueRun } from '../enqueue.js';
import { awaitControl, findControllableRun, hasLiveOwner, requestControl, requestOfQueued } from './control-common.js';
import { openWorkspaceStore } from './history-common.js';
import { usd } from './history-format.js';
import { flagProblem } from '../flag-problem.js';

const OPTIONS = {
  cwd: { type: 'string' },
  'max-iterations': { type: 'string' },
  unlimited: { type: 'boolean' },
  verbose: { type: 'boolean', short: 'v' },
  json: { type: 'boolean' },
} as const;

async function resume(args: string[], io: CliIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(flagProblem(error));
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError('expected one run id: ringmaster resume <run>');
  const { workspace, store } = await openWorkspaceStore(values.cwd, io);
  let continueHere: { spec: RunSpec; runId: string; worktree: { path: string; branch: string } | null; workspace: string; program: Awaited<ReturnType<typeof programForRun>> };
  try {
    const run = await findControllableRun(store, positionals[0] ?? '', workspace);
    const limit = limitOf(values);
    if (isQueued(run)) {
      if (limit !== undefined) throw new UsageError(`run ${run.id} is queued: its iteration limit can be changed once it runs ('ringmaster resume ${run.id} --max-iterations N' then)`);
      return await requestOfQueued(store, run, 'resume', io);
    }
    if (hasLiveOwner(run)) {
      // Its process is alive: a paused (or pausing) run is resumed where it runs; anything else is busy.
      if (limit !== undefined) await raiseLiveLimit(store, run, limit, io);
      const request = await requestControl(store, run, 'resume');
      const { answer } = await awaitControl(store, request, () => true, 10_000);
      if (answer === 'accepted') {
        io.stdout.write(`resumed run ${run.id}\n`);
        return EXIT.success;
      }
      // Running and not paused: the new limit was what was asked, and it holds.
      if (limit !== undefined) {
        io.stdout.write(`run ${run.id} is running (not paused): it goes on with the new limit\n`);
        return EXIT.success;
      }
      throw new UserError(`run ${run.id} is still running (pid ${run.owner_pid ?? '?'}) and not paused; stop it first with 'ringmaster stop ${run.id}'`, EXIT.locked);
    }
    if (run.stop_reason === 'success_signal') throw new UserError(`run ${run.id} already completed: the agent signalled success`);
    if (typeof limit === 'number') {
      const done = (await store.runTotals(run.id)).iterations;
      if (limit < done) throw new UsageError(`--max-iterations ${limit}: run ${run.id} has done ${done} iteration(s) already; give a limit above that to go on`);
    }
    const withLimits = (spec: RunSpec): RunSpec => {
      if (limit !== undefined) spec.limits.maxIterations = limit;
      return spec;
    };
    // A run for the workers goes back to their queue, its spec as stored (the worker puts the secrets back from its
    // own environment): any of them continues it from its last pushed checkpoint.
    if (run.origin === 'queue') return await requeueRun(io, store, run, withLimits(parseStoredSpec(run.id, run.spec)), workspace);
    const spec = withLimits(specFromStorage(parseStoredSpec(run.id, run.spec), io.env));
    // A worktree run goes on in its worktree and, as when it started, without the workspace lock.
    const worktree = run.worktree !== null ? { path: run.worktree, branch: run.branch ?? '' } : null;
    registerBuiltInProgramKinds();
    continueHere = { spec, runId: run.id, worktree, workspace: run.workspace, program: await programForRun({ ...run, meta: metaFromStorage(run.meta, io.env) }, spec, await storedDefinition(store, run.id, io.env)) };
  } finally {
    await store.close();
  }
  const { exitCode } = await runInTerminal(io, {
    mode: 'claim',
    workspace: continueHere.workspace,
    runId: continueHere.runId,
    spec: continueHere.spec,
    worktree: continueHere.worktree,
    json: values.json,
    verbose: values.verbose,
    ...(continueHere.program ? { program: continueHere.program } : {}),
    onClaim(info) {
      if (values.json) return;
      const interrupted = info.interrupted.length ? `; iteration ${info.interrupted.join(', ')} recorded as interrupted` : '';
      const spent = usd(info.costUsd, info.costUnknown);
      io.stdout.write(`Resuming run ${continueHere.runId} after ${info.iterations} iteration(s), ${spent === '?' ? 'cost unknown' : `${spent} spent`}${interrupted}\n`);
    },
  });
  return exitCode;
}

/** The iteration limit the flags ask for: a number, null for --unlimited, undefined when unchanged. */
function limitOf(values: { 'max-iterations'?: string; unlimited?: boolean }): number | null | undefined {
  // As for `run` (seed 001's precedence): --max-iterations wins over --unlimited.
  if (values['max-iterations'] === undefined) return values.unlimited ? null : undefined;
  const n = Number(values['max-iterations']);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--max-iterations: expected a whole number of at least 1, got "${values['max-iterations']}"`);
  return n;
}

/**
 * A run driven by a live process takes a new limit as an extension (the limit raised while it runs, stored with
 * its spec): raising it is all it can be asked.
 */
async function raiseLiveLimit(store: Store, run: RunRow, limit: number | null, io: CliIO): Promise<void> {
  const current = parseStoredSpec(run.id, run.spec).limits.maxIterations;
  const driver = `run ${run.id} is driven by pid ${run.owner_pid ?? '?'}`;
  if (current === null && limit === null) return;
  if (current === null) throw new UsageError(`--max-iterations ${limit}: ${driver} with no iteration limit, which can only be raised as it runs`);
  if (limit === null) throw new UsageError(`--unlimited: ${driver}, whose limit can only be raised as it runs (--max-iterations N, above ${current})`);
  if (limit <= current) throw new UsageError(`--max-iterations ${limit}: ${driver} with a limit of ${current}, which can only be raised as it runs`);
  const request = await requestControl(store, run, 'extend', { iterations: limit - current });
  const { answer } = await awaitControl(store, request, () => true, 10_000);
  if (answer !== 'accepted') throw new UserError(`run ${run.id} did not take the new limit (${answer ?? 'no answer within 10 s'})`, EXIT.locked);
  io.stdout.write(`run ${run.id}: iteration limit raised to ${limit}\n`);
}

/** The `resume` command. */
export const resumeCommand: Command = {
  name: 'resume',
  usage: `Usage: ringmaster resume <run> [--max-iterations N | --unlimited] [--verbose] [--json]

A paused run is resumed by the process that drives it (a terminal, 'ringmaster serve', a worker). A run whose
process is gone (crashed, interrupted, stopped, or ended by a limit) continues in this process with the next
iteration number: totals (iterations, cost, tokens, runtime used) come from the stored iteration rows and every
limit applies to the whole run. An iteration that was running when the previous process died is recorded as
interrupted; an agent it left behind is killed. --max-iterations / --unlimited change the run's iteration limit
(not below the iterations it has done; a run driven by a live process can only have it raised).
A run for the workers (ringmaster run --repository) is queued again instead: a worker continues it.
`,
  run: resume,
};
