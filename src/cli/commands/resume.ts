// `ringmaster resume <run>`: continue a crashed, interrupted or stopped run with its totals and limits.
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { EXIT, UsageError, UserError } from '../../core/errors.js';
import { HOOK_AGENT } from '../../core/types.js';
import { killLeftoverAgent } from '../../runner/leftover.js';
import { isProcessAlive } from '../../runner/lock.js';
import { stateFromRows } from '../../runner/resume-state.js';
import { specFromStorage, type RunSpec } from '../../runner/spec.js';
import { openStore } from '../../store/index.js';
import type { CliIO, Command } from '../command.js';
import { driveRun } from '../drive.js';
import { workspaceFrom } from './run.js';

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
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError('expected one run id: ringmaster resume <run>');
  const workspace = workspaceFrom(values, io);
  const probe = openStore(workspace, { create: false });
  let spec: RunSpec;
  let worktree: { path: string; branch: string } | null = null;
  let runId: string;
  try {
    const run = await probe.findRun(positionals[0] ?? '');
    if (!run) throw new UserError(`no run '${positionals[0]}' in ${workspace} (see 'ringmaster runs')`);
    if (run.agent === HOOK_AGENT) {
      throw new UserError(`run ${run.id} is a Stop-hook loop inside a Claude Code session: use 'ringmaster loop status' / 'ringmaster loop cancel'`);
    }
    runId = run.id;
    const active = run.status === 'running' || run.status === 'waiting' || run.status === 'pending';
    if (active && run.owner_pid !== null && run.owner_host === hostname() && run.owner_pid !== process.pid && isProcessAlive(run.owner_pid)) {
      throw new UserError(`run ${run.id} is still running (pid ${run.owner_pid}); stop it first with 'ringmaster stop ${run.id}'`, EXIT.locked);
    }
    if (run.stop_reason === 'success_signal') {
      throw new UserError(`run ${run.id} already completed: the agent signalled success`);
    }
    spec = specFromStorage(run.spec as RunSpec, io.env);
    // A worktree run goes on in its worktree and, as when it started, without the workspace lock.
    if (run.worktree !== null) worktree = { path: run.worktree, branch: run.branch ?? '' };
  } finally {
    await probe.close();
  }
  if (values['max-iterations'] !== undefined) {
    const n = Number(values['max-iterations']);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--max-iterations: expected a whole number of at least 1, got "${values['max-iterations']}"`);
    spec.limits.maxIterations = n;
  }
  if (values.unlimited) spec.limits.maxIterations = null;
  killLeftoverAgent(workspace, runId);
  return driveRun(io, {
    worktree,
    workspace,
    runId,
    spec,
    json: values.json,
    verbose: values.verbose,
    async register(store) {
      const claim = await store.claimRun(runId, { pid: process.pid, host: hostname() }, Date.now());
      const rows = await store.listIterations(runId);
      const { state, lastSessionId } = stateFromRows(rows, Date.now());
      if (!values.json) {
        const interrupted = claim.interrupted.length ? `; iteration ${claim.interrupted.join(', ')} recorded as interrupted` : '';
        io.stdout.write(`Resuming run ${runId} after ${state.iteration} iteration(s), $${state.totalCostUsd.toFixed(4)} spent${interrupted}\n`);
      }
      return { runId, state, lastSessionId };
    },
  });
}

/** The `resume` command. */
export const resumeCommand: Command = {
  name: 'resume',
  usage: `Usage: ringmaster resume <run> [--max-iterations N | --unlimited] [--verbose] [--json] [--cwd DIR]

Continues the run with the next iteration number. Totals (iterations, cost, tokens, runtime used) come from the
stored iteration rows and every limit applies to the whole run. An iteration that was running when the previous
process died is recorded as interrupted; an agent it left behind is killed. --max-iterations / --unlimited
change the run's iteration limit.
`,
  run: resume,
};
