// The browser test harness: Debian's Chromium driven by playwright-core (headless, loopback only), the
// built dashboard (dist/web) served by a small node:http server, and a folder outside the repository for
// screenshots (test artifacts).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Repository root. */
export const ROOT = resolve(import.meta.dirname, '..', '..', '..');

/** The built dashboard. */
export const WEB_DIST = join(ROOT, 'dist', 'web');

/** Debian's Chromium (`.ci/run` installs it when missing). */
export const CHROMIUM = process.env.RINGMASTER_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Flags for a closed network: no background connections (they are refused here, many at a time), no
 * GPU, no sandbox (tests may run as root). A fresh profile per launch comes from playwright.
 */
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Where screenshots go: outside the repository (`RINGMASTER_TEST_ARTIFACTS` or the temp dir). */
export function artifactsDir(): string {
  const dir = process.env.RINGMASTER_TEST_ARTIFACTS ?? join(tmpdir(), 'ringmaster-test-artifacts', 'web');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Saves a full-page screenshot as a test artifact; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(artifactsDir(), `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/** Launches headless Chromium; fails with the fix when it or the build is missing. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), as .ci/run does`);
  if (!existsSync(join(WEB_DIST, 'index.html'))) throw new Error(`${WEB_DIST}/index.html is missing: run npm run build first`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Answers an /api request, or returns false to let it 404. */
export type ApiHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>;

/** A running dashboard server. */
export interface DashboardServer {
  url: string;
  close(): Promise<void>;
}

/** Serves dist/web on 127.0.0.1 (any other path gets index.html, as the app routes in the browser) and /api through `api`. */
export async function serveDashboard(api?: ApiHandler): Promise<DashboardServer> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    void (async () => {
      if (url.pathname.startsWith('/api/')) {
        if (api && (await api(req, res, url))) return;
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'not_found', message: `no ${url.pathname}` } }));
        return;
      }
      const file = normalize(join(WEB_DIST, url.pathname));
      const path = file.startsWith(WEB_DIST) && existsSync(file) && extname(file) !== '' ? file : join(WEB_DIST, 'index.html');
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(readFileSync(path));
    })().catch((e: unknown) => res.writeHead(500).end(String(e)));
  });
  // WebSocket upgrades are refused: this server has no live link, the page must say it is disconnected.
  server.on('upgrade', (_req, socket) => socket.destroy());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** Replies with JSON. */
export function sendJson(res: ServerResponse, body: unknown, status = 200): true {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  return true;
}
