// One run job on a worker: checks that nobody else drives the run (the owner record is the fence), prepares
// its workspace, drives it with an ordinary RunController, renews its lease every couple of seconds and stops
// the agent as soon as the lease cannot be confirmed, and pushes each checkpoint of a repository run.
import { relative } from 'node:path';
import type { ControlPoller } from '../manager/control-poller.js';
import { programForRun } from '../manager/programs.js';
import { RunController } from '../manager/run-controller.js';
import type { RunEvent } from '../runner/events.js';
import type { RunSpec } from '../runner/spec.js';
import type { Owner, RunRow, Store } from '../store/index.js';
import { prepareRepoWorkspace, pushCheckpoint } from './git-workspace.js';

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
  /** A run whose owner has not renewed for this long may be taken over (and its owner stops itself at half). */
  leaseMs: number;
  /** How often the owner renews its lease. */
  renewMs: number;
  now: () => number;
  log: (line: string) => void;
  /** Delivers pause / resume / stop requested from any machine to the runs of this worker. */
  controls: ControlPoller;
}

/** How a job ended: the run finished (or was never ours to run), it was taken over, or it was interrupted here. */
export type JobOutcome = 'finished' | 'lost' | 'interrupted';

const ACTIVE = new Set(['pending', 'running', 'waiting', 'paused']);

/** A run a worker continues: active, or stopped because its process was interrupted (never a user's stop). */
function continuable(run: RunRow | null): run is RunRow {
  return run !== null && (ACTIVE.has(run.status) || (run.status === 'stopped' && run.stop_reason === 'interrupted'));
}

/** The repository of a run, if it is a repository run. */
export function repositoryOf(run: RunRow): RepositorySource | null {
  const source = (run.spec as { repository?: RepositorySource } | null)?.repository;
  return source && typeof source.url === 'string' && typeof source.branch === 'string' ? source : null;
}

/** Drives run `runId` until it ends, is lost to another owner, or `signal` aborts (shutdown, job cancelled). */
export async function runJob(ctx: JobContext, runId: string, signal: AbortSignal): Promise<JobOutcome> {
  const { store } = ctx;
  let run = await store.getRun(runId);
  if (!continuable(run)) return 'finished';
  // The fence: a run with a live owner is not taken before its lease has run out (a pending run has none).
  while (run.status !== 'pending' && run.owner_pid !== null && run.heartbeat_at !== null && ctx.now() - run.heartbeat_at < ctx.leaseMs) {
    if (signal.aborted) return 'interrupted';
    await sleep(Math.min(1000, ctx.leaseMs - (ctx.now() - run.heartbeat_at) + 50));
    run = await store.getRun(runId);
    if (!continuable(run)) return 'finished';
  }
  const spec = structuredClone(run.spec) as RunSpec & { repository?: RepositorySource };
  const repository = repositoryOf(run);
  let push: ((sha: string | null) => void) | null = null;
  let outcome: JobOutcome = 'finished';
  let lastRenewed = ctx.now();
  let pushes = Promise.resolve();
  if (repository) {
    const ws = await prepareRepoWorkspace(ctx.workdir, repository.url, repository.branch, runId);
    rerootPrompt(spec, ws.dir);
    let expected = ws.remoteSha;
    push = () => {
      // Decided when the checkpoint is made, by the lease: while it is ours (never refused, renewed within half
      // of it), nobody else may have claimed the run. The push itself runs after, in order, off the loop's path;
      // --force-with-lease refuses it if the branch moved anyway.
      if (outcome !== 'finished' || ctx.now() - lastRenewed > ctx.leaseMs / 2) return;
      pushes = pushes.then(async () => {
        try {
          expected = await pushCheckpoint(ws.dir, ws.branch, expected);
        } catch (error) {
          ctx.log(`run ${runId}: push of the checkpoint failed: ${(error as Error).message}`);
        }
      });
    };
  }
  const program = await programForRun(run, spec);
  const controller = new RunController({
    store,
    env: ctx.env,
    runId,
    spec,
    workspace: spec.workspace,
    mode: 'claim',
    owner: ctx.owner,
    now: ctx.now,
    ...(program ? { program } : {}),
    onEvent: (event: RunEvent) => {
      if (event.type === 'checkpoint_created' && event.state === 'committed') push?.(event.commit_sha);
    },
    onStoreError: (message) => ctx.log(`run ${runId}: ${message}`),
    onClaim: (info) => {
      const interrupted = info.interrupted.length ? `, iteration ${info.interrupted.join(', ')} recorded as interrupted` : '';
      ctx.log(`run ${runId}: driving it from iteration ${info.iterations + 1}${interrupted}`);
      startRenewing();
    },
  });
  let ended = false;
  const stop = (why: JobOutcome): void => {
    if (ended) return;
    if (outcome === 'finished') outcome = why;
    controller.interrupt();
  };
  const onAbort = (): void => stop('interrupted');
  const unregister = ctx.controls.register(controller);
  signal.addEventListener('abort', onAbort, { once: true });
  let renew: NodeJS.Timeout | null = null;
  // The lease, renewed from the claim on: a `false` means another worker owns the run now; an unreachable
  // database stops the agent before anyone may take the run over (at the full lease).
  function startRenewing(): void {
    lastRenewed = ctx.now();
    renew = setInterval(() => {
      // Checked on every tick, not only when a renewal fails: the store may keep retrying while the database is down.
      if (ctx.now() - lastRenewed > ctx.leaseMs / 2) {
        stop('interrupted');
        return;
      }
      store.heartbeat(runId, ctx.owner, ctx.now()).then(
        (stillOurs) => {
          if (stillOurs) lastRenewed = ctx.now();
          else stop('lost');
        },
        () => undefined,
      );
    }, ctx.renewMs);
  }
  try {
    const summary = await controller.run();
    ended = true;
    ctx.log(`run ${runId}: ${summary.status} (${summary.stopReason}) after ${summary.state.iteration} iteration(s)`);
  } finally {
    unregister();
    if (renew) clearInterval(renew);
    signal.removeEventListener('abort', onAbort);
    await pushes;
  }
  return outcome;
}

/** A prompt file inside the enqueuing workspace is read from the same place in the run's clone. */
function rerootPrompt(spec: RunSpec, dir: string): void {
  const from = spec.workspace;
  if (spec.prompt.kind === 'file') {
    const rel = relative(from, spec.prompt.path);
    if (!rel.startsWith('..')) spec.prompt = { kind: 'file', path: `${dir}/${rel}` };
  }
  spec.workspace = dir;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
