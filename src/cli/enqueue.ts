// `ringmaster run --repository URL --branch B`: records a pending run in the shared database and queues it
// for the workers, which clone the repository and work on branch ringmaster/<run-id>.
import { hostname } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { EXIT, UsageError } from '../core/errors.js';
import { configuredDatabaseUrl } from '../config/database.js';
import type { RunSpec } from '../runner/spec.js';
import { openStore } from '../store/index.js';
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
    await store.createRun({
      id: request.runId,
      agent: request.spec.agent.name,
      spec: { ...request.spec, repository: { url: repository, branch: request.branch } },
      workspace: repository,
      branch: `ringmaster/${request.runId}`,
      status: 'pending',
      origin: 'queue',
      owner: { pid: process.pid, host: hostname() },
      now: Date.now(),
    });
    const { openQueue, enqueueRun } = await import('../worker/queue.js');
    const boss = await openQueue(url, { max: 2 });
    try {
      await enqueueRun(boss, request.runId);
    } finally {
      await boss.stop({ graceful: false, timeout: 5000 });
    }
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
