// The browser test harness: Debian's Chromium driven by playwright-core (headless, loopback only), a real
// `ringmaster serve` process (the built CLI) serving the built dashboard and its API over a temporary data
// directory, with fake agent CLIs first on its PATH; temporary git workspaces; a folder outside the repository
// for screenshots (test artifacts).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { removeDir, tempRepo } from '../../git/git-repo.js';
import { cleanEnv, startCli, type CliResult } from '../../helpers/cli.js';
import { until } from '../../server/harness.js';

/** Polls until a value other than null (60 s at most: a safety net, not a timing assertion). */
export { until };

/** Repository root. */
export const ROOT = resolve(import.meta.dirname, '..', '..', '..');

/** The built dashboard. */
export const WEB_DIST = join(ROOT, 'dist', 'web');

/** Fake agent CLIs (a `claude` that speaks stream-json) put first on the server's PATH. */
export const FAKE_BIN = join(import.meta.dirname, 'bin');

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

/** Saves a screenshot of the viewport as a test artifact (or at `path`); returns its path. */
export async function screenshot(page: Page, name: string, path = join(artifactsDir(), `${name}.png`)): Promise<string> {
  await page.screenshot({ path, fullPage: false });
  return path;
}

/** Launches headless Chromium; fails with the fix when it or the build is missing. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), as .ci/run does`);
  if (!existsSync(join(WEB_DIST, 'index.html'))) throw new Error(`${WEB_DIST}/index.html is missing: run npm run build first`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

/** The tokens of the servers this file started, by origin: a page opened on one signs in with it. */
const tokens = new Map<string, string>();

/**
 * A page in a fresh context (its own storage), light theme unless told. On a server of this harness it signs in as
 * a user would with the token: `?token=` once, which the server swaps for a session cookie and drops from the
 * address (`signIn: false` opens it signed out).
 */
export async function openPage(
  browser: Browser,
  url: string,
  options: { width?: number; height?: number; dark?: boolean; signIn?: boolean; before?: (context: BrowserContext) => Promise<void> } = {},
): Promise<Page> {
  const context: BrowserContext = await browser.newContext({ viewport: { width: options.width ?? 1400, height: options.height ?? 900 }, colorScheme: options.dark ? 'dark' : 'light' });
  await options.before?.(context);
  const page = await context.newPage();
  const target = new URL(url);
  const token = tokens.get(target.origin);
  if (token !== undefined && options.signIn !== false) target.searchParams.set('token', token);
  await page.goto(target.href);
  return page;
}

/** One `ringmaster serve` and one browser for a test file: started before its tests, stopped after them. */
export function useServeAndBrowser(options: ServeOptions = {}): { readonly serve: ServeProcess; readonly browser: Browser } {
  let serve: ServeProcess | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    [serve, browser] = await Promise.all([ServeProcess.start(options), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} not started`);
    return value;
  };
  return {
    get serve() {
      return started(serve, 'ringmaster serve');
    },
    get browser() {
      return started(browser, 'the browser');
    },
  };
}

/** A free TCP port on 127.0.0.1 (the server is restarted on the same one). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** How to start a server: extra arguments, extra environment. */
export interface ServeOptions {
  args?: string[];
  env?: Record<string, string>;
}

/** A `ringmaster serve` process under test and what it serves. */
export class ServeProcess {
  readonly home: string;
  readonly port: number;
  readonly url: string;
  readonly env: Record<string, string>;
  /** The server's token (RINGMASTER_TOKEN). */
  readonly token = randomBytes(24).toString('base64url');
  #cli: ReturnType<typeof startCli> | null = null;
  #stdout = '';
  #workspaces: string[] = [];

  readonly #args: string[];

  private constructor(home: string, port: number, options: ServeOptions) {
    this.home = home;
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
    this.env = cleanEnv({ RINGMASTER_HOME: home, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', PATH: `${FAKE_BIN}:${process.env.PATH ?? ''}`, RINGMASTER_TOKEN: this.token, ...options.env });
    this.#args = options.args ?? [];
    tokens.set(this.url, this.env.RINGMASTER_TOKEN ?? this.token);
  }

  /** Starts a server over a new temporary data directory. */
  static async start(options: ServeOptions = {}): Promise<ServeProcess> {
    const serve = new ServeProcess(mkdtempSync(join(tmpdir(), 'ringmaster-web-')), await freePort(), options);
    await serve.restart();
    return serve;
  }

  /** What the server printed so far. */
  get stdout(): string {
    return this.#stdout;
  }

  /** The server's pid (while it runs). */
  get pid(): number | undefined {
    return this.#cli?.child.pid;
  }

  /** Starts the server again (same port, same data directory); resolves once it listens. */
  async restart(): Promise<void> {
    const cli = startCli(['serve', '--port', String(this.port), ...this.#args], { cwd: this.home, env: this.env });
    this.#cli = cli;
    this.#stdout = '';
    cli.child.stdout?.on('data', (c: Buffer) => (this.#stdout += c.toString('utf8')));
    const exited = cli.done.then((r) => r);
    await until('the server to listen', async () => {
      if (this.#stdout.includes('serving on')) return true;
      const ended = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), 20))]);
      if (ended !== null) throw new Error(`ringmaster serve exited (${ended.code}): ${ended.stderr}`);
      return null;
    });
  }

  /** Sends a signal and waits for the process to end. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<CliResult | null> {
    const cli = this.#cli;
    if (cli === null) return null;
    this.#cli = null;
    cli.child.kill(signal);
    return cli.done;
  }

  /** A JSON request to the API (POST when there is a body). */
  async api<T = unknown>(path: string, body?: unknown): Promise<T> {
    const auth = { authorization: `Bearer ${this.env.RINGMASTER_TOKEN ?? ''}` };
    const response = await fetch(`${this.url}${path}`, body === undefined ? { headers: auth } : { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await response.json()) as T;
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  }

  /** A new temporary git workspace with `files` committed (removed by `stop`). */
  workspace(files: Record<string, string> = { 'README.md': 'hello\n' }): string {
    const dir = tempRepo(files);
    this.#workspaces.push(dir);
    return dir;
  }

  /** Stops the server (SIGTERM: runs interrupted) and removes its data directory and workspaces. */
  async stop(): Promise<void> {
    await this.kill('SIGTERM');
    tokens.delete(this.url);
    for (const dir of this.#workspaces) removeDir(dir);
    rmSync(this.home, { recursive: true, force: true });
  }
}
