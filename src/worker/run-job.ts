// One run job on a worker: claims the run once nobody else drives it (the owner record is the fence, its lease
// judged by the database's clock), prepares its workspace, drives it with an ordinary RunController, renews its
// lease every couple of seconds and stops the agent as soon as the lease cannot be confirmed, pushes each
// checkpoint of a repository run, and hands the run over to a new job before the queue's job cap.
import { join, relative } from 'node:path';
import { timerAfter } from '../os/timers.js';
import type { ControlPoller } from '../manager/control-poller.js';
import { closeOrphanedRun } from '../manager/orphans.js';
import { programForRun, storedDefinition } from '../manager/programs.js';
import { ClaimInterruptedError, RunController } from '../manager/run-controller.js';
import type { RunEvent } from '../runner/events.js';
import { metaFromStorage, specFromStorage, type RunSpec } from '../spec/run-spec.js';
import { parseStoredSpec } from '../spec/stored-spec.js';
import { resumable, RunEndedError } from '../store/index.js';
import type { Owner, RunRow, Store } from '../store/index.js';
import { prepareRepoWorkspace, pushCheckpoint, type RepoWorkspace } from './git-workspace.js';

/** A repository run's source, stored in its spec. */
export interface RepositorySource {
  url: string;
  branch: string;
}

/** What a job needs from its worker. */
export interface JobContext {
  store: Store;
  env: Readonly<Record<string, string | undefined>>;
  workdir: string;
  owner: Owner;
  /** A run whose owner has not renewed for this long (database clock) may be taken over; its owner stops itself at half. */
  leaseMs: number;
  /** How often the owner renews its lease. */
  renewMs: number;
  /** After this long in one job (this worker's clock), the run is handed to a new job at an iteration boundary. */
  handOverAfterMs: number;
  now: () => number;
  log: (line: string) => void;
  /** Delivers pause / resume / stop requested from any machine to the runs of this worker. */
  controls: ControlPoller;
}

/**
 * How a job ended: the run finished (or was never ours to run); it was interrupted here (shutdown, lost database,
 * taken over: the job is given back for a retry, a no-op if its attempt has lapsed); or it was handed over to a
 * continuation job.
 */
export type JobOutcome = 'finished' | 'interrupted' | 'handed_over';

/** The repository of a run, if it is a repository run. */
export function repositoryOf(run: RunRow): RepositorySource | null {
  const source = (run.spec as { repository?: RepositorySource } | null)?.repository;
  return source && typeof source.url === 'string' && typeof source.branch === 'string' ? source : null;
}


/** What the parts of one job share while it runs. */
interface JobState {
  outcome: JobOutcome;
  /** performance.now() of the last lease renewal confirmed. */
  lastRenewed: number;
  /** Set once the run ended: a stop then comes too late to count. */
  ended: boolean;
  /** Set once the clone is prepared (a repository run). */
  pusher: CheckpointPusher | null;
}

/** Drives run `runId` until it ends, is lost to another owner, is handed over, or `signal` aborts (shutdown, job lost). */
export async function runJob(ctx: JobContext, runId: string, signal: AbortSignal): Promise<JobOutcome> {
  const run = await ctx.store.getRun(runId);
  // A run that can go on (a paused one too: it was handed over paused, and stays paused here).
  if (run === null || !resumable(run)) return 'finished';
  const state: JobState = { outcome: 'finished', lastRenewed: performance.now(), ended: false, pusher: null };
  const controller = jobController(ctx, run, state);
  // A paused run taken over stays paused.
  if (run.status === 'paused') controller.control({ kind: 'pause', by: 'takeover' });
  const unguard = guardJob(ctx, controller, signal, state);
  try {
    const summary = await controller.run();
    state.ended = true;
    if (summary.handedOver) {
      ctx.log(`run ${runId}: handed over to a new job after ${summary.state.iteration} iteration(s)`);
      return 'handed_over';
    }
    ctx.log(`run ${runId}: ${summary.status} (${summary.stopReason}) after ${summary.state.iteration} iteration(s)`);
    // Taken over by another process (the controller stopped itself): the run goes on elsewhere.
    if (summary.status === 'stopped' && summary.stopReason === 'interrupted') state.outcome = 'interrupted';
  } catch (error) {
    state.ended = true;
    return await notDriven(ctx, runId, error);
  } finally {
    unguard();
    await state.pusher?.done();
  }
  return state.outcome;
}

/** The controller that claims and drives the job's run, its workspace prepared after the claim. */
function jobController(ctx: JobContext, run: RunRow, state: JobState): RunController {
  const runId = run.id;
  const spec: RunSpec & { repository?: RepositorySource } = parseStoredSpec(run.id, run.spec);
  const repository = repositoryOf(run);
  const startedAt = performance.now();
  const leaseOurs = (): boolean => state.outcome === 'finished' && performance.now() - state.lastRenewed <= ctx.leaseMs / 2;
  const original = spec.workspace;
  if (repository) spec.workspace = join(ctx.workdir, 'runs', runId);
  const controller: RunController = new RunController({
    store: ctx.store,
    env: ctx.env,
    runId,
    spec,
    workspace: spec.workspace,
    mode: 'claim',
    // Taken over only once its owner's lease has run out (database clock), and never if it ended meanwhile.
    // A run handed over paused or waiting keeps that status (no `running` in between).
    claim: { ifIdleMs: ctx.leaseMs, onlyIfResumable: true, ...(run.status === 'paused' || run.status === 'waiting' ? { status: run.status } : {}) },
    heartbeatMs: ctx.renewMs,
    onRenewed: (sentAt) => (state.lastRenewed = Math.max(state.lastRenewed, sentAt)),
    owner: ctx.owner,
    now: ctx.now,
    // After the claim: the clone starts from what the previous owner pushed, and nobody pushes after us; the
    // program (a task list, a workflow) is made from the prepared workspace.
    prepare: async () => {
      // Stored without the secrets of the machine that queued it: they come back from this worker's environment
      // (a UserError naming what is missing ends the run failed, as any run that cannot start).
      Object.assign(spec, specFromStorage(spec, ctx.env));
      if (repository) {
        const ws = await prepareRepoWorkspace(ctx.workdir, repository.url, repository.branch, runId);
        rerootPrompt(spec, original, ws.dir);
        state.pusher = checkpointPusher(ws, leaseOurs, (message) => ctx.log(`run ${runId}: ${message}`));
      }
      return programForRun({ ...run, meta: metaFromStorage(run.meta, ctx.env) }, spec, await storedDefinition(ctx.store, runId, ctx.env));
    },
    onEvent: (event: RunEvent) => {
      if (event.type === 'checkpoint_created' && event.state === 'committed') state.pusher?.push();
      if (event.type === 'iteration_completed' && performance.now() - startedAt > ctx.handOverAfterMs) controller.control({ kind: 'hand_over' });
    },
    onStoreError: (message) => ctx.log(`run ${runId}: ${message}`),
    onClaim: (info) => {
      state.lastRenewed = performance.now();
      const interrupted = info.interrupted.length ? `, iteration ${info.interrupted.join(', ')} recorded as interrupted` : '';
      ctx.log(`run ${runId}: driving it from iteration ${info.iterations + 1}${interrupted}`);
    },
  });
  return controller;
}

/**
 * Stops the run when `signal` aborts or the lease is in doubt, hands it over before the job's cap, and delivers
 * control requests from any machine to it; returns the function that undoes all of it.
 */
function guardJob(ctx: JobContext, controller: RunController, signal: AbortSignal, state: JobState): () => void {
  const stop = (): void => {
    if (state.ended) return;
    state.outcome = 'interrupted';
    controller.control({ kind: 'interrupt' });
  };
  const onAbort = (): void => stop();
  const unregister = ctx.controls.register(controller);
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  // Self-fencing: a worker that could not renew for half the lease (a partition, the database down) stops its
  // agent before anyone may take the run over (at the full lease, by the database's clock).
  const fence = setInterval(() => {
    if (performance.now() - state.lastRenewed > ctx.leaseMs / 2) stop();
  }, Math.min(1000, ctx.renewMs));
  // Before the job's cap: a run that is running hands over after its next iteration (onEvent); one that is paused
  // or waiting for a usage limit then, at once (it would otherwise sit in this job until the job expires).
  const cap = timerAfter(ctx.handOverAfterMs, () => {
    if (controller.paused || controller.waitingUntil !== null) controller.control({ kind: 'hand_over' });
  });
  return () => {
    clearInterval(fence);
    cap.cancel();
    unregister();
    signal.removeEventListener('abort', onAbort);
  };
}

/** How a job ends whose run was not driven: not claimed, ended meanwhile, or unable to start (it ends failed, with why). */
async function notDriven(ctx: JobContext, runId: string, error: unknown): Promise<JobOutcome> {
  if (error instanceof ClaimInterruptedError) return 'interrupted';
  if (error instanceof RunEndedError) return 'finished';
  // It could not start (a bad repository, a workspace that cannot be prepared): the run ends failed, with why.
  const message = (error as Error).message;
  ctx.log(`run ${runId}: could not start: ${message}`);
  const now = await ctx.store.getRun(runId);
  if (now && resumable(now) && (now.owner_pid === null || (now.owner_pid === ctx.owner.pid && now.owner_host === ctx.owner.host))) {
    await closeOrphanedRun(ctx.store, ctx.env, now, ctx.owner, ctx.now(), 'fatal_error', undefined, message);
  }
  return 'finished';
}

/** Pushes the checkpoints of a repository run, in order, off the loop's path. */
interface CheckpointPusher {
  push(): void;
  /** Resolves when every push asked for so far has been tried. */
  done(): Promise<void>;
}

function checkpointPusher(ws: RepoWorkspace, leaseOurs: () => boolean, log: (message: string) => void): CheckpointPusher {
  let expected = ws.remoteSha;
  let pushes = Promise.resolve();
  return {
    push() {
      // Decided when the checkpoint is made, by the lease: while it is ours (never refused, renewed within half of
      // it), nobody else may have claimed the run. --force-with-lease refuses the push if the branch moved anyway.
      if (!leaseOurs()) return;
      pushes = pushes.then(async () => {
        try {
          expected = await pushCheckpoint(ws.dir, ws.branch, expected);
        } catch (error) {
          log(`push of the checkpoint failed: ${(error as Error).message}`);
        }
      });
    },
    done: () => pushes,
  };
}

/** A prompt file inside the enqueuing workspace is read from the same place in the run's clone. */
function rerootPrompt(spec: RunSpec, from: string, dir: string): void {
  if (spec.prompt.kind === 'file') {
    const rel = relative(from, spec.prompt.path);
    if (!rel.startsWith('..')) spec.prompt = { kind: 'file', path: `${dir}/${rel}` };
  }
  spec.workspace = dir;
}
