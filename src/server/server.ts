// `ringmaster serve` as a library: the loop manager behind the REST API, the WebSocket at /api/ws and the
// dashboard at /, on one HTTP server bound to 127.0.0.1 unless told otherwise.
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, type Http2Bindings, type HttpBindings, type ServerType } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { compress } from 'hono/compress';
import { secureHeaders } from 'hono/secure-headers';
import { Hono, type Context } from 'hono';
import { WebSocketServer } from 'ws';
import { EXIT, UserError } from '../core/errors.js';
import { LoopManager } from '../manager/manager.js';
import { localProbe } from '../manager/local-probe.js';
import type { Store } from '../store/index.js';
import { createApi } from './app.js';
import type { AccessPolicy } from './auth.js';
import { mountSignIn } from './sign-in.js';
import { upgradeRefusal, upgradeSession } from './upgrade.js';
import { watchStore } from './store-watcher.js';
import { createServerMetrics } from './metrics.js';
import { timedStore } from './timed-store.js';
import { EventHub } from './ws-hub.js';

/** How to start a server. */
export interface ServerOptions {
  store: Store;
  env: Readonly<Record<string, string | undefined>>;
  host: string;
  port: number;
  access: AccessPolicy;
  maxConcurrent: number;
  resumeOnStart: boolean;
  /** Helper processes that run the agents (default 2; 0: the main thread). */
  iterationThreads?: number;
  version: string;
  storeKind?: string;
  /** Directory of the built dashboard (default: dist/web next to this module); null serves none. */
  dashboardDir?: string | null;
  log?: (message: string) => void;
  /** WebSocket clients with more than this many bytes unsent are disconnected (default 1 MiB). */
  maxBufferedBytes?: number;
  /** External workers drive the runs: a run ready to start is queued with this instead (serve --workers external). */
  dispatch?: (runId: string) => Promise<void>;
  /** The origin of the runs this server creates and resumes after a restart (default `server`). */
  origin?: string;
}

/** A running server. */
export interface RunningServer {
  url: string;
  port: number;
  manager: LoopManager;
  hub: EventHub;
  /** Stops accepting work, interrupts the runs (resumable), closes clients and the port. */
  close(): Promise<void>;
}

/** Where the normal build puts the dashboard: dist/web. */
export function defaultDashboardDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'web');
}

/** Starts the manager, recovers its runs, and listens. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const log = options.log ?? (() => undefined);
  const startedAt = Date.now();
  const metrics = createServerMetrics();
  // Every write of this server's runs is timed for /metrics (ringmaster_store_write_seconds).
  const store = timedStore(options.store, metrics.observeStoreWrite);
  const { manager, hub: eventHub } = managerWithHub(options, store, log);
  const watcher = await watchStore({ store, isLocal: (id) => manager.owns(id), publish: (e) => eventHub.publish(e), onError: (e) => log(`watching the store: ${e.message}`) });

  const api = createApi({
    manager,
    store,
    access: options.access,
    version: options.version,
    startedAt,
    storeKind: options.storeKind ?? 'sqlite',
    probe: () => localProbe(),
    now: Date.now,
    env: options.env,
    publish: (event) => eventHub.publish(event),
    metrics: () => metrics.scrape({ store, webSocketClients: () => eventHub.size }),
  });
  const app = new Hono();
  // Every answer says: not to be framed by another page (clickjacking of the controls), no type sniffing, no
  // referrer. Plain HTTP on loopback: no HSTS.
  app.use('*', secureHeaders({ strictTransportSecurity: false, xFrameOptions: 'DENY', contentSecurityPolicy: { frameAncestors: ["'none'"] } }));
  app.route('/', api);
  // Unknown API paths are API errors, never the dashboard's page.
  app.all('/api/*', (c) => c.json({ error: { code: 'not_found', message: `no route ${c.req.method} ${new URL(c.req.url).pathname}` } }, 404));
  mountSignIn(app, options.access);
  mountDashboard(app, options.dashboardDir === undefined ? defaultDashboardDir() : options.dashboardDir);

  let server: ServerType;
  try {
    server = await listen(app, options.host, options.port, log);
  } catch (error) {
    await watcher.stop();
    await manager.shutdown();
    eventHub.close();
    throw error;
  }
  const wss = acceptWebSockets(server, options.access, eventHub, log);
  // A session ends by sign-out (at once) or by age (looked at every minute): its WebSockets go with it.
  options.access.credentials.onSessionEnded(() => eventHub.recheck());
  const sessionSweep = setInterval(() => eventHub.recheck(), SESSION_SWEEP_MS);
  sessionSweep.unref();
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(sessionSweep);
      await watcher.stop();
      await manager.shutdown();
      eventHub.close();
      wss.close();
      if ('closeAllConnections' in server) server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    })();
    return closing;
  };
  try {
    const recovery = await manager.recover();
    if (recovery.resumed.length > 0) log(`resuming ${recovery.resumed.length} run(s) after the restart: ${recovery.resumed.join(', ')}`);
    if (recovery.marked.length > 0) log(`${recovery.marked.length} run(s) marked stopped (interrupted): resume them with 'ringmaster resume' (${recovery.marked.join(', ')})`);
  } catch (error) {
    await close();
    throw error;
  }
  return { url: `http://${shownHost}:${address.port}`, port: address.port, manager, hub: eventHub, close };
}

/** How often the WebSockets of expired sessions are let go. */
const SESSION_SWEEP_MS = 60_000;

/** Why a server cannot listen, in a user's words, by error code. */
const LISTEN_PROBLEMS: Readonly<Record<string, string>> = {
  EADDRINUSE: "the port is in use (another 'ringmaster serve'?): choose another with --port, or 0 for any free one",
  EACCES: 'permission denied: ports below 1024 need privileges; choose another with --port',
  EADDRNOTAVAIL: 'no network interface of this machine has that address: check --host',
  ENOTFOUND: 'no such host name: check --host',
  EAI_AGAIN: 'the host name could not be resolved now: check --host',
};

/** Listens on host:port; a failure to listen is a UserError (exit 64) saying why, never an unhandled 'error'. */
function listen(app: Hono, host: string, port: number, log: (message: string) => void): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    // Only a path is a request target here: an absolute-form one (`GET http://other.example/api/...`, a proxy's
    // form) gets a bare 400 like any other target that is not a path.
    const fetch = (request: Request, env: HttpBindings | Http2Bindings): Response | Promise<Response> =>
      (env.incoming.url ?? '').startsWith('/') ? app.fetch(request, env) : new Response(null, { status: 400 });
    const s = serve({ fetch, hostname: host, port }, () => {
      s.off('error', refused);
      // Once listening, an error of the listening socket is logged: it never takes the server down.
      s.on('error', (error: Error) => log(`server socket: ${error.message}`));
      resolve(s);
    });
    const refused = (error: NodeJS.ErrnoException): void => {
      const why = LISTEN_PROBLEMS[error.code ?? ''] ?? error.message;
      reject(new UserError(`cannot listen on ${host}:${port}: ${why} (${error.code ?? 'error'})`, EXIT.usage));
    };
    s.once('error', refused);
  });
}

/** The loop manager and the WebSocket hub its events and agent activity go out through. */
function managerWithHub(options: ServerOptions, store: Store, log: (message: string) => void): { manager: LoopManager; hub: EventHub } {
  let hub: EventHub | null = null;
  const manager = new LoopManager({
    store,
    env: options.env,
    maxConcurrent: options.maxConcurrent,
    resumeOnStart: options.resumeOnStart,
    ...(options.iterationThreads !== undefined ? { iterationThreads: options.iterationThreads } : {}),
    onEvent: (event) => hub?.publish(event),
    onActivity: (runId, activity) => hub?.activity(runId, activity),
    log,
    ...(options.dispatch ? { dispatch: options.dispatch } : {}),
    ...(options.origin ? { origin: options.origin } : {}),
  });
  hub = new EventHub({
    store,
    unstoredEvents: (runId) => manager.unstoredEvents(runId),
    version: options.version,
    now: Date.now,
    ...(options.maxBufferedBytes !== undefined ? { maxBufferedBytes: options.maxBufferedBytes } : {}),
  });
  return { manager, hub };
}

/** Upgrades /api/ws requests that pass the access checks to WebSocket clients of the hub; refuses the others. */
function acceptWebSockets(server: ServerType, access: AccessPolicy, hub: EventHub, log: (message: string) => void): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Nothing a client sends here may throw out of this handler: that would end the process and every run.
    socket.on('error', () => socket.destroy());
    try {
      const refusal = upgradeRefusal(access, req);
      if (refusal) {
        socket.end(`HTTP/1.1 ${refusal.status} ${refusal.reason}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${refusal.message}\n`);
        return;
      }
      // A browser's session can end (sign-out): its sockets go with it. A token holds for the server's life.
      const session = upgradeSession(access, req);
      wss.handleUpgrade(req, socket, head, (ws) => hub.attach(ws, session === null ? null : () => access.credentials.checkSession(session)));
    } catch (error) {
      log(`refused a WebSocket upgrade that failed: ${error instanceof Error ? error.message : String(error)}`);
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    }
  });
  return wss;
}

/** Serves the built dashboard at / (its client-side routes fall back to index.html). */
function mountDashboard(app: Hono, dir: string | null): void {
  const index = dir === null ? null : join(dir, 'index.html');
  const html = index !== null && existsSync(index) ? readFileSync(index, 'utf8') : null;
  if (dir === null || html === null) {
    app.get('*', (c) =>
      c.text(
        "The dashboard is not built: run 'npm run build' in Ringmaster's directory. The API is at /api (see /api/openapi.json).\n",
        200,
      ),
    );
    return;
  }
  // Built assets have content hashes in their names: cached for good. Pages are revalidated (a new build shows at
  // once). Both are compressed (above 1 KB) for a browser that accepts it: the bundles shrink to about a third.
  const cache = (value: string) => (_path: string, c: Context) => void c.header('Cache-Control', value);
  app.use('/assets/*', compress(), serveStatic({ root: dir, onFound: cache('public, max-age=31536000, immutable') }));
  // A built asset that is not there is a 404, never the page (a stale bundle name must fail as such).
  app.get('/assets/*', (c) => c.text('not found\n', 404));
  app.use('*', compress(), serveStatic({ root: dir, onFound: cache('no-cache') }));
  app.get('*', compress(), (c) => {
    c.header('Cache-Control', 'no-cache');
    return c.html(html);
  });
}
