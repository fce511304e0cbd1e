// `ringmaster serve`: the loop manager behind a REST API, a WebSocket and the dashboard. Binds 127.0.0.1 unless
// told otherwise; any other address needs a token. SIGINT/SIGTERM interrupt every run (resumable) and exit.
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig, type FlagSetting } from '../../config/load.js';
import { EXIT, UsageError } from '../../core/errors.js';
import { redactor } from '../../core/redact.js';
import { isLoopbackHost } from '../../server/auth.js';
import { prepareDemo } from '../../manager/demo.js';
import { startServer } from '../../server/server.js';
import { resolveServerToken, tokenFilePath } from '../../server/token.js';
import { redactUrl } from '../../core/url.js';
import { busyLine, dataDir, openStore, type BusyNotice } from '../../store/index.js';
import { VERSION } from '../../version.js';
import type { CliIO, Command } from '../command.js';
import { flagProblem } from '../flag-problem.js';

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'max-concurrent': { type: 'string' },
  'no-resume': { type: 'boolean' },
  'new-token': { type: 'boolean' },
  workers: { type: 'string' },
  demo: { type: 'boolean' },
} as const;

async function serveCommand(args: string[], io: CliIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (error) {
    throw new UsageError(`${flagProblem(error)} (see 'ringmaster serve --help')`);
  }
  if (values.workers !== undefined && values.workers !== 'local' && values.workers !== 'external') {
    throw new UsageError(`--workers: expected 'local' or 'external', got '${values.workers}'`);
  }
  // The demo runs over its own temporary data directory and workspaces, removed when the server stops.
  const demo = values.demo === true ? prepareDemo(io.env) : null;
  const env = demo?.env ?? io.env;
  const flags: FlagSetting[] = [];
  if (values.host !== undefined) flags.push({ key: 'server.host', flag: '--host', raw: values.host });
  if (values.port !== undefined) flags.push({ key: 'server.port', flag: '--port', raw: values.port });
  if (values['max-concurrent'] !== undefined) flags.push({ key: 'manager.max_concurrent', flag: '--max-concurrent', raw: values['max-concurrent'] });
  const { manager, server: listen, database } = loadConfig(io.cwd, env, flags).settings;
  const { host, port } = listen;
  if (port > 65535) throw new UsageError(`--port: expected a port number up to 65535, got ${port}`);
  const loopback = isLoopbackHost(host);
  const home = dataDir(env);
  const token = resolveServerToken(env, home, !loopback, values['new-token'] === true);
  // The demo's loops run here, on a SQLite store in its own data directory.
  const databaseUrl = demo ? null : database.url;
  if (values.workers === 'external' && databaseUrl === null) {
    demo?.remove();
    throw new UsageError(
      demo ? '--demo runs its loops in this process: it cannot be combined with --workers external' : '--workers external: workers take runs from the shared database: set database.url or RINGMASTER_DATABASE_URL',
    );
  }
  // The server's log quotes errors of runs: the environment's secrets never appear in it.
  const redact = redactor(env);
  const log = (message: string): void => void io.stderr.write(`[${new Date().toISOString()}] ${redact(message)}\n`);
  // SQLite in a worker thread: the API, the WebSocket and every run go on while the database is slow or locked.
  let warnRuns: ((message: string) => void) | null = null;
  const onBusy = (notice: BusyNotice): void => {
    log(busyLine(notice));
    if (notice.state === 'resumed') warnRuns?.(busyLine(notice));
  };
  const store = await openStore({ env, databaseUrl, backgroundCheckpoints: true, inWorker: true, onBusy });
  // With external workers, runs are queued as jobs (pg-boss) that `ringmaster worker` processes take, at most
  // max_concurrent at once across all of them (the limit is stored in the database for every worker).
  const queue = values.workers === 'external' && databaseUrl !== null ? await (await import('../../worker/queue.js')).RunQueue.open(databaseUrl, { onError: (e) => log(`queue: ${e.message}`) }) : null;
  await queue?.setMaxConcurrent(manager.max_concurrent);
  const dispatch = queue ? async (runId: string): Promise<void> => void (await queue.enqueue(runId)) : undefined;
  let server;
  try {
    server = await startServer({
      store,
      env,
      host,
      port,
      access: { tokenHash: token.hash, loopback },
      maxConcurrent: manager.max_concurrent,
      iterationThreads: manager.iteration_threads,
      resumeOnStart: values['no-resume'] === true ? false : manager.resume_on_start,
      storeKind: databaseUrl === null ? 'sqlite' : 'postgresql',
      // Servers sharing one database each resume only the runs they created.
      ...(databaseUrl !== null ? { origin: `server@${hostname()}` } : {}),
      ...(dispatch ? { dispatch } : {}),
      version: VERSION,
      log,
    });
  } catch (error) {
    await queue?.close();
    await store.close();
    demo?.remove();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${port} on ${host} is in use (another 'ringmaster serve'?); choose one with --port`);
    if (code === 'EADDRNOTAVAIL') throw new UsageError(`cannot bind ${host}: no such address on this machine`);
    throw error;
  }
  const running = server;
  warnRuns = (message) => running.manager.warnAll(message);
  io.stdout.write(`Ringmaster ${VERSION} serving on ${server.url}  (dashboard /, API /api, WebSocket /api/ws)\n`);
  io.stdout.write(
    queue
      ? `  runs are driven by external workers ('ringmaster worker'), up to ${manager.max_concurrent} at once across them; database ${redactUrl(databaseUrl ?? '')}\n`
      : `  up to ${server.manager.maxConcurrent} runs at once; data directory ${home}\n`,
  );
  if (token.generated !== null) {
    io.stdout.write(`  token (shown once, stored hashed in ${tokenFilePath(home)}): ${token.generated}\n`);
    io.stdout.write(`  open ${server.url}/?token=<token> in a browser, or send 'Authorization: Bearer <token>'\n`);
  } else if (token.hash !== null) {
    io.stdout.write(`  requests need the token (${token.source === 'env' ? 'RINGMASTER_TOKEN' : `hash in ${tokenFilePath(home)}; --new-token makes a new one`})\n`);
  }
  if (demo !== null) {
    let ids: string[];
    try {
      ids = await demo.start(server.manager, store);
    } catch (error) {
      await server.close();
      await store.close();
      demo.remove();
      throw error;
    }
    io.stdout.write(`  demo: ${ids.length} scripted loops in temporary workspaces under ${demo.dir} (removed when the server stops)\n`);
    io.stdout.write(`  open ${server.url}/ in a browser\n`);
  }
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    const remove = io.onSignal((signal) => {
      remove();
      resolve(signal);
    });
  });
  const signal = await stopped;
  io.stdout.write(`Received ${signal}: interrupting the runs (each can be resumed) and stopping...\n`);
  await server.close();
  await queue?.close();
  await store.close();
  demo?.remove();
  io.stdout.write('Stopped.\n');
  return EXIT.success;
}

/** The `serve` command. */
export const serveCliCommand: Command = {
  name: 'serve',
  usage: `Usage: ringmaster serve [--host ADDR] [--port N] [--max-concurrent N] [--no-resume] [--new-token] [--demo] [--workers local|external]

Runs the loop manager: many runs in this process (at most --max-concurrent at once, the rest pending, first in
first out), a REST API under /api, a WebSocket at /api/ws and the dashboard at /. It also shows and controls the
runs that 'ringmaster run' drives in terminals (same store). After a restart it resumes the runs it was driving.

  --host ADDR          address to bind (server.host; default 127.0.0.1). Anything but loopback needs a token:
                       RINGMASTER_TOKEN, or one generated on first start (shown once, stored hashed)
  --port N             port (server.port; default 7420; 0 picks a free one)
  --max-concurrent N   runs driven at once (manager.max_concurrent; default 5)
  --no-resume          after a restart, mark the runs this server was driving stopped (interrupted) instead of
                       resuming them (manager.resume_on_start: false)
  --new-token          generate a new token (the old one stops working)
  --demo               start a few scripted loops (no agent CLI or API key needed) in temporary workspaces,
                       with a temporary data directory; all of it is removed when the server stops
  --workers external   with a shared database (database.url): runs are queued for 'ringmaster worker' processes
                       instead of driven here; POST /api/runs also takes repository + branch instead of workspace

SIGINT/SIGTERM stop accepting work, interrupt every run (resumable) and exit within a few seconds.
`,
  run: serveCommand,
};
