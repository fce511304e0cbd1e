// `ringmaster worker`: drives runs queued in the shared database (ringmaster run --repository ...), on any
// machine that can reach the database, until SIGINT/SIGTERM.
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, UsageError } from '../../core/errors.js';
import { loadConfig, type FlagSetting } from '../../config/load.js';
import { redactUrl } from '../../core/url.js';
import { dataDir, openStore } from '../../store/index.js';
import type { CliIO, Command } from '../command.js';
import { flagProblem } from '../flag-problem.js';

const OPTIONS = {
  concurrency: { type: 'string' },
  workdir: { type: 'string' },
} as const;

async function worker(args: string[], io: CliIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (error) {
    throw new UsageError(`${flagProblem(error)} (see 'ringmaster worker --help')`);
  }
  const flags: FlagSetting[] = [];
  if (values.concurrency !== undefined) flags.push({ key: 'worker.concurrency', flag: '--concurrency', raw: values.concurrency });
  if (values.workdir !== undefined) flags.push({ key: 'worker.workdir', flag: '--workdir', raw: values.workdir });
  const settings = loadConfig(io.cwd, io.env, flags).settings;
  const url = settings.database.url;
  if (url === null) throw new UsageError('a worker takes runs from the shared database: set database.url or RINGMASTER_DATABASE_URL');
  const { concurrency } = settings.worker;
  const workdir = resolve(io.cwd, settings.worker.workdir ?? join(dataDir(io.env), 'worker'));
  mkdirSync(workdir, { recursive: true });
  const store = await openStore({ env: io.env, databaseUrl: url });
  const { startWorker } = await import('../../worker/worker.js');
  const log = (line: string): void => void io.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
  const running = await startWorker({ url, store, env: io.env, workdir, concurrency, log });
  log(`worker pid ${process.pid} on ${hostname()}: ${concurrency} run(s) at once, workdir ${workdir}, database ${redactUrl(url)}`);
  await new Promise<void>((resolveSignal) => {
    const remove = io.onSignal((signal) => {
      log(`${signal}: interrupting the runs and giving their jobs back...`);
      remove();
      resolveSignal();
    });
  });
  await running.stop();
  await store.close();
  log('worker stopped');
  return EXIT.success;
}

/** The `worker` command. */
export const workerCommand: Command = {
  name: 'worker',
  usage: `Usage: ringmaster worker [--concurrency N] [--workdir DIR]

Takes runs queued in the shared PostgreSQL database (database.url or RINGMASTER_DATABASE_URL) by
'ringmaster run --repository URL --branch B' and drives each as an ordinary run: same runner, limits,
checkpoints and events. A repository run is cloned into DIR (a cache per repository, one clone per run),
works on branch ringmaster/<run-id> and pushes every checkpoint there. If a worker dies, another one takes
its runs over within seconds from their last pushed checkpoint. pause / resume / stop work from any machine.

  --concurrency N   runs at once (worker.concurrency, default 1)
  --workdir DIR     clones and caches (worker.workdir, default: <data directory>/worker)

SIGINT/SIGTERM: the runs are interrupted and their jobs given back to the queue for another worker.
`,
  run: worker,
};
