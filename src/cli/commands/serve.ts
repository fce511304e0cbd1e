// `ringmaster serve`: the loop manager behind a REST API, a WebSocket and the dashboard. Binds 127.0.0.1 unless
// told otherwise; every bind asks a credential (a browser's one-time sign-in link, or the token). SIGINT/SIGTERM interrupt every run (resumable) and exit.
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig, type FlagSetting } from '../../config/load.js';
import { EXIT, UsageError } from '../../core/errors.js';
import { redactor } from '../../core/redact.js';
import { isLoopbackHost } from '../../server/auth.js';
import { prepareDemo } from '../../manager/demo.js';
import { startServer, type RunningServer, type ServerOptions } from '../../server/server.js';
import { Credentials } from '../../server/credentials.js';
import { removeServerInfo, signInLink, signInLinkFor, writeServerInfo } from '../../server/sign-in-link.js';
import { resolveServerToken, tokenFilePath, type ServerToken } from '../../server/token.js';
import { redactUrl } from '../../core/url.js';
import { busyLine, dataDir, openStore, type BusyNotice, type Store } from '../../store/index.js';
import type { RunQueue } from '../../worker/queue.js';
import { VERSION } from '../../version.js';
import type { CliIO, Command } from '../command.js';
import { flagProblem } from '../flag-problem.js';

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'max-concurrent': { type: 'string' },
  'no-resume': { type: 'boolean' },
  'new-token': { type: 'boolean' },
  'no-auth': { type: 'boolean' },
  'sign-in-link': { type: 'boolean' },
  workers: { type: 'string' },
  demo: { type: 'boolean' },
} as const;

type ServeFlags = ReturnType<typeof parseServeFlags>;

async function serveCommand(args: string[], io: CliIO): Promise<number> {
  const values = parseServeFlags(args);
  if (values['sign-in-link'] === true) {
    // Beside a running server: a fresh one-time link, printed here only.
    io.stdout.write(`${signInLink(dataDir(io.env))}\n`);
    return EXIT.success;
  }
  // The demo runs over its own temporary data directory and workspaces, removed when the server stops.
  const demo = values.demo === true ? prepareDemo(io.env) : null;
  try {
    return await serveWith(values, io, demo);
  } catch (error) {
    // Refused before it served (a bad flag, a short token, a port in use): the demo's directory goes now.
    demo?.remove();
    throw error;
  }
}

/** `serve` once its flags are read, over the demo's data directory with --demo. */
async function serveWith(values: ServeFlags, io: CliIO, demo: ReturnType<typeof prepareDemo> | null): Promise<number> {
  const given = demo?.env ?? io.env;
  const { manager, host, port, databaseUrl } = serveSettings(values, given, io.cwd, demo !== null);
  // The runs it creates link to this server (server.public_url's default) at the address it listens on, --host
  // and --port included: the port is set again once it listens (0 is any free one).
  const env: Record<string, string | undefined> = { ...given, RINGMASTER_SERVER_HOST: host, RINGMASTER_SERVER_PORT: String(port) };
  const loopback = isLoopbackHost(host);
  const home = dataDir(env);
  const { token, credentials } = serverCredentials(env, home, host, values['no-auth'] === true, values['new-token'] === true);
  if (values.workers === 'external' && databaseUrl === null) {
    demo?.remove();
    throw new UsageError(
      demo ? '--demo runs its loops in this process: it cannot be combined with --workers external' : '--workers external: workers take runs from the shared database: set database.url or RINGMASTER_DATABASE_URL',
    );
  }
  // The server's log quotes errors of runs: the environment's secrets never appear in it.
  const redact = redactor(env);
  const log = (message: string): void => void io.stderr.write(`[${new Date().toISOString()}] ${redact(message)}\n`);
  const backend = await openBackend(env, databaseUrl, values.workers === 'external', manager.max_concurrent, log);
  const release = async (): Promise<void> => {
    await backend.queue?.close();
    await backend.store.close();
    demo?.remove();
  };
  const server = await startOrExplain(
    {
      store: backend.store,
      env,
      host,
      port,
      access: { credentials, loopback },
      maxConcurrent: manager.max_concurrent,
      iterationThreads: manager.iteration_threads,
      resumeOnStart: values['no-resume'] === true ? false : manager.resume_on_start,
      storeKind: databaseUrl === null ? 'sqlite' : 'postgresql',
      // Servers sharing one database each resume only the runs they created.
      ...(databaseUrl !== null ? { origin: `server@${hostname()}` } : {}),
      ...(backend.dispatch ? { dispatch: backend.dispatch } : {}),
      version: VERSION,
      log,
    },
    release,
  );
  env.RINGMASTER_SERVER_PORT = String(server.port);
  backend.warnRunsWith((message) => server.manager.warnAll(message));
  io.stdout.write(`Ringmaster ${VERSION} serving on ${server.url}  (dashboard /, API /api, WebSocket /api/ws)\n`);
  io.stdout.write(
    backend.queue
      ? `  runs are driven by external workers ('ringmaster worker'), up to ${manager.max_concurrent} at once across them; database ${redactUrl(databaseUrl ?? '')}\n`
      : `  up to ${server.manager.maxConcurrent} runs at once; data directory ${home}\n`,
  );
  // A link must name a host the browser can reach: not the unspecified address a server may bind.
  const linkUrl = server.url.replace(/^http:\/\/(0\.0\.0\.0|\[::\])/, `http://${hostname()}`);
  writeServerInfo(home, { url: linkUrl, pid: process.pid, auth: credentials.required });
  announceAccess(io, linkUrl, home, token, dataDir(io.env));
  if (demo !== null) await startDemo(demo, server, backend.store, io, release);
  const signal = await nextSignal(io);
  io.stdout.write(demo === null ? `Received ${signal}: interrupting the runs (each can be resumed) and stopping...\n` : `Received ${signal}: stopping the demo (its runs and data directory are removed)...\n`);
  await server.close();
  removeServerInfo(home, process.pid);
  await release();
  io.stdout.write('Stopped.\n');
  return EXIT.success;
}

function parseServeFlags(args: string[]) {
  let values;
  try {
    ({ values } = parseArgs({ args, options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (error) {
    throw new UsageError(`${flagProblem(error)} (see 'ringmaster serve --help')`);
  }
  if (values.workers !== undefined && values.workers !== 'local' && values.workers !== 'external') {
    throw new UsageError(`--workers: expected 'local' or 'external', got '${values.workers}'`);
  }
  return values;
}

/** The manager's settings, the address to bind and the database (none for the demo: its loops run here, on SQLite). */
function serveSettings(values: ServeFlags, env: CliIO['env'], cwd: string, demo: boolean) {
  const flags: FlagSetting[] = [];
  if (values.host !== undefined) flags.push({ key: 'server.host', flag: '--host', raw: values.host });
  if (values.port !== undefined) flags.push({ key: 'server.port', flag: '--port', raw: values.port });
  if (values['max-concurrent'] !== undefined) flags.push({ key: 'manager.max_concurrent', flag: '--max-concurrent', raw: values['max-concurrent'] });
  const { manager, server, database } = loadConfig(cwd, env, flags).settings;
  if (server.port > 65535) throw new UsageError(`--port: expected a port number up to 65535, got ${server.port}`);
  return { manager, host: server.host, port: server.port, databaseUrl: demo ? null : database.url };
}

/** The store, and with external workers the queue runs are handed to. */
interface Backend {
  store: Store;
  queue: RunQueue | null;
  dispatch: ((runId: string) => Promise<void>) | undefined;
  /** Sets where a store that was busy and is back is told to the runs (once the server runs). */
  warnRunsWith(warn: (message: string) => void): void;
}

async function openBackend(env: CliIO['env'], databaseUrl: string | null, external: boolean, maxConcurrent: number, log: (message: string) => void): Promise<Backend> {
  let warnRuns: ((message: string) => void) | null = null;
  const onBusy = (notice: BusyNotice): void => {
    log(busyLine(notice));
    if (notice.state === 'resumed') warnRuns?.(busyLine(notice));
  };
  // SQLite in a worker thread: the API, the WebSocket and every run go on while the database is slow or locked.
  const store = await openStore({ env, databaseUrl, backgroundCheckpoints: true, inWorker: true, onBusy });
  const warnRunsWith = (warn: (message: string) => void): void => void (warnRuns = warn);
  if (!external || databaseUrl === null) return { store, queue: null, dispatch: undefined, warnRunsWith };
  // With external workers, runs are queued as jobs (pg-boss) that `ringmaster worker` processes take, at most
  // max_concurrent at once across all of them (the limit is stored in the database for every worker).
  let queue: RunQueue;
  try {
    queue = await (await import('../../worker/queue.js')).RunQueue.open(databaseUrl, { onError: (e) => log(`queue: ${e.message}`) });
    await queue.setMaxConcurrent(maxConcurrent);
  } catch (error) {
    await store.close();
    throw error;
  }
  return { store, queue, dispatch: async (runId) => void (await queue.enqueue(runId)), warnRunsWith };
}

/** Starts the demo's loops; when they cannot start, stops the server and releases everything. */
async function startDemo(demo: NonNullable<ReturnType<typeof prepareDemo>>, server: RunningServer, store: Store, io: CliIO, release: () => Promise<void>): Promise<void> {
  let ids: string[];
  try {
    ids = await demo.start(server.manager, store);
  } catch (error) {
    await server.close();
    await release();
    throw error;
  }
  io.stdout.write(`  demo: ${ids.length} scripted loops in temporary workspaces under ${demo.dir} (removed when the server stops)\n`);
  io.stdout.write(`  open ${server.url}/ in a browser\n`);
}

/** The first SIGINT or SIGTERM. */
function nextSignal(io: CliIO): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const remove = io.onSignal((signal) => {
      remove();
      resolve(signal);
    });
  });
}

/** The token and the sessions; `--no-auth` only on loopback. */
function serverCredentials(env: CliIO['env'], home: string, host: string, noAuth: boolean, renew: boolean): { token: ServerToken; credentials: Credentials } {
  if (noAuth && !isLoopbackHost(host)) throw new UsageError(`--no-auth: only a loopback address may be served without a credential (not ${host})`);
  if (noAuth && renew) throw new UsageError('--no-auth and --new-token: choose one');
  const token = resolveServerToken(env, home, !noAuth, renew);
  return { token, credentials: new Credentials(home, token.hash, { endSessions: renew }) };
}

/** Starts the server; when it cannot (its port in use: startServer says why), releases what was opened for it. */
async function startOrExplain(options: ServerOptions, release: () => Promise<void>): Promise<RunningServer> {
  try {
    return await startServer(options);
  } catch (error) {
    await release();
    throw error;
  }
}

/** Says how to sign in (a one-time link, the token) or, with --no-auth, that nothing is asked. */
function announceAccess(io: CliIO, url: string, home: string, token: ServerToken, defaultHome: string): void {
  if (token.hash === null) {
    io.stdout.write(`  WARNING: --no-auth: no credential is asked; every account on this machine can drive this server\n`);
    return;
  }
  io.stdout.write(`  sign in: ${signInLinkFor(home, url)}\n`);
  const again = home === defaultHome ? 'ringmaster serve --sign-in-link' : `RINGMASTER_HOME=${home} ringmaster serve --sign-in-link`;
  io.stdout.write(`    (used once, valid 5 minutes; '${again}' prints a new one)\n`);
  if (token.generated !== null) {
    io.stdout.write(`  token (shown once, stored hashed in ${tokenFilePath(home)}): ${token.generated}\n`);
    io.stdout.write(`    scripts send 'Authorization: Bearer <token>'; a browser can open ${url}/?token=<token>\n`);
  } else {
    io.stdout.write(`  scripts send 'Authorization: Bearer <token>' (${token.source === 'env' ? 'RINGMASTER_TOKEN' : `hash in ${tokenFilePath(home)}; --new-token makes a new one`})\n`);
  }
}

/** The `serve` command. */
export const serveCliCommand: Command = {
  name: 'serve',
  usage: `Usage: ringmaster serve [--host ADDR] [--port N] [--max-concurrent N] [--no-resume] [--new-token] [--no-auth] [--demo] [--workers local|external]
       ringmaster serve --sign-in-link

Runs the loop manager: many runs in this process (at most --max-concurrent at once, the rest pending, first in
first out), a REST API under /api, a WebSocket at /api/ws and the dashboard at /. It also shows and controls the
runs that 'ringmaster run' drives in terminals (same store). After a restart it resumes the runs it was driving.

  --host ADDR          address to bind (server.host; default 127.0.0.1). Every bind asks a credential: a
                       browser signs in with the one-time link printed at start, scripts send the token
                       (RINGMASTER_TOKEN, or one generated on first start: shown once, stored hashed)
  --port N             port (server.port; default 7420; 0 picks a free one)
  --max-concurrent N   runs driven at once (manager.max_concurrent; default 5)
  --no-resume          after a restart, mark the runs this server was driving stopped (interrupted) instead of
                       resuming them (manager.resume_on_start: false)
  --new-token          generate a new token (the old one stops working) and end every browser session
  --no-auth            ask no credential (loopback binds only; announced on every start)
  --sign-in-link       print a new one-time sign-in link to the server running over this data directory
  --demo               start a few scripted loops (no agent CLI or API key needed) in temporary workspaces,
                       with a temporary data directory; all of it is removed when the server stops
  --workers external   with a shared database (database.url): runs are queued for 'ringmaster worker' processes
                       instead of driven here; POST /api/runs also takes repository + branch instead of workspace

SIGINT/SIGTERM stop accepting work, interrupt every run (resumable) and exit within a few seconds.
`,
  run: serveCommand,
};
