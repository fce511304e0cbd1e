// A worker on PostgreSQL runs a sandboxed repository run (issue 20): the agent writes its clone and nothing else of
// the host, the policy is in the stored spec, and what it wrote reaches the remote on the run's branch.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { newRunId } from '../../src/core/ids.js';
import { recordQueuedRun, resolveRepositoryRun } from '../../src/manager/repository-run.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { RunQueue } from '../../src/worker/queue.js';
import { startWorker } from '../../src/worker/worker.js';
import { gitEnv, tempRepo } from '../git/git-repo.js';
import { cleanEnv } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';
import { NO_BWRAP, SKIP_REASON } from '../helpers/sandbox.js';
import { useScratch } from '../helpers/scratch.js';
import { until } from '../helpers/until.js';

const pgc = usePostgres();
const scratch = useScratch();

it.skipIf(NO_BWRAP)(`a worker on PostgreSQL runs a sandboxed run: the clone is writable, the host is not${SKIP_REASON}`, { timeout: 90_000 }, async () => {
  const url = await pgc.cluster.createDatabase();
  const store = await PostgresStore.open(url);
  const queue = await RunQueue.open(url);
  const repo = join(scratch.temp('rm-remote-'), 'repo.git');
  execFileSync('git', ['clone', '--quiet', '--bare', scratch.adopt(tempRepo({ 'README.md': 'hello\n' })), repo], { env: gitEnv() });
  const outside = `/etc/ringmaster-worker-escape-${process.pid}`;
  const agent = `sh -c "cat >/dev/null; if touch ${outside} 2>/dev/null; then echo escaped > result.txt; else echo held > result.txt; fi; echo '<promise>COMPLETE</promise>'"`;
  const home = scratch.temp('rm-worker-sbx-');
  const workerStore = await PostgresStore.open(url);
  const worker = await startWorker({ url, store: workerStore, env: cleanEnv({ RINGMASTER_HOME: home }), workdir: join(home, 'work'), concurrency: 1, log: () => undefined, owner: { pid: process.pid, host: 'worker-sbx' }, pollMs: 200 });
  try {
    const { spec } = resolveRepositoryRun(cleanEnv({ RINGMASTER_HOME: scratch.temp('rm-server-') }), {
      repository: repo,
      branch: 'main',
      prompt: 'work',
      agent_command: agent,
      max_iterations: 2,
      checkpoint_interval: 1,
      sandbox: { network: 'none' },
    });
    const id = newRunId(Date.now(), Math.random);
    await recordQueuedRun(store, cleanEnv(), { id, spec, repository: repo, branch: 'main', now: Date.now() });
    await queue.enqueue(id);
    const run = await until('the sandboxed run to end', async () => {
      const r = await store.getRun(id);
      return r && ['completed', 'failed', 'stopped'].includes(r.status) ? r : null;
    });
    expect([run.status, run.stop_reason]).toEqual(['completed', 'success_signal']);
    expect((run.spec as { sandbox: unknown }).sandbox).toEqual({ network: 'none', hide: [], allowWrite: [], allowHosts: [], memoryBytes: null, pids: null });
    expect(existsSync(outside)).toBe(false);
    // The last checkpoint's push ends after the run's row does.
    const pushed = await until('the checkpoint pushed to the run branch', () => {
      try {
        return execFileSync('git', ['--git-dir', repo, 'show', `refs/heads/ringmaster/${id}:result.txt`], { encoding: 'utf8', env: gitEnv(), stdio: ['ignore', 'pipe', 'ignore'] });
      } catch {
        return null;
      }
    });
    expect(pushed).toBe('held\n');
  } finally {
    await worker.stop();
    await workerStore.close();
    await queue.close();
    await store.close();
  }
});
