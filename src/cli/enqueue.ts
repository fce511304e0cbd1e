// `ringmaster run --repository URL --branch B`: records a pending run in the shared database and queues it
// for the workers, which clone the repository and work on branch ringmaster/<run-id>.
import { isAbsolute, resolve } from 'node:path';
import { EXIT, UsageError } from '../core/errors.js';
import { configuredDatabaseUrl } from '../config/database.js';
import type { RunSpec } from '../spec/run-spec.js';
import { recordQueuedRun } from '../manager/repository-run.js';
import { ACTIVE_STATUSES, openStore } from '../store/index.js';
import type { RunRow, Store } from '../store/index.js';
import type { RunQueue } from '../worker/queue.js';
import type { CliIO } from './command.js';

/** What to queue. */
export interface EnqueueRequest {
  workspace: string;
  runId: string;
  spec: RunSpec;
  repository: string;
  branch: string;
  json: boolean;
}

/** A repository given as a path is made absolute (a worker on this machine clones it); URLs stay as given. */
export function repositoryLocation(cwd: string, repository: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(repository) || /^[^/]+@[^:]+:/.test(repository) || isAbsolute(repository) ? repository : resolve(cwd, repository);
}

/** Creates the pending run and its job; prints its id. */
export async function enqueueRepositoryRun(io: CliIO, request: EnqueueRequest): Promise<number> {
  const url = configuredDatabaseUrl(request.workspace, io.env);
  if (url === null) throw new UsageError('--repository queues the run for workers, which needs the shared database: set database.url or RINGMASTER_DATABASE_URL');
  const store = await openStore({ env: io.env, databaseUrl: url });
  try {
    const repository = repositoryLocation(request.workspace, request.repository);
    await recordQueuedRun(store, io.env, { id: request.runId, spec: request.spec, repository, branch: request.branch, now: Date.now() });
    await withQueue(url, (queue) => queue.enqueue(request.runId));
    io.stdout.write(
      request.json
        ? `${JSON.stringify({ id: request.runId, status: 'pending', repository, branch: request.branch })}\n`
        : `queued run ${request.runId} (${repository}, branch ${request.branch}): a worker works on branch ringmaster/${request.runId}\n`,
    );
    return EXIT.success;
  } finally {
    await store.close();
  }
}

/** Opens the run queue (pg-boss is loaded only here), runs `fn` and closes it. */
export async function withQueue<T>(url: string, fn: (queue: RunQueue) => Promise<T>): Promise<T> {
  const { RunQueue } = await import('../worker/queue.js');
  const queue = await RunQueue.open(url, { max: 2 });
  try {
    return await fn(queue);
  } finally {
    await queue.close();
  }
}

/** Queues a worker run that nobody drives again (ringmaster resume): pending, its spec as given, a new job. */
export async function requeueRun(io: CliIO, store: Store, run: RunRow, spec: RunSpec, cwd: string): Promise<number> {
  const url = configuredDatabaseUrl(cwd, io.env);
  if (url === null) throw new UsageError(`run ${run.id} is driven by workers: resuming it needs the shared database (database.url or RINGMASTER_DATABASE_URL)`);
  const now = Date.now();
  await store.updateRunSpec(run.id, spec, now);
  // A run that ended is queued again; an orphaned one keeps its status and is claimed once its owner's lease is over.
  if (!ACTIVE_STATUSES.includes(run.status)) await store.updateRunStatus(run.id, 'pending', now);
  await withQueue(url, (queue) => queue.enqueue(run.id));
  io.stdout.write(`queued run ${run.id} again: a worker continues it from its last pushed checkpoint\n`);
  return EXIT.success;
}
