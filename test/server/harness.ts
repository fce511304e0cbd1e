// A real server (startServer) in the test process, on a free loopback port, over a store in a temporary data
// directory; helpers for JSON requests and WebSocket clients. Stopped (runs interrupted, port closed) by stop().
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { afterAll } from 'vitest';
import { removeDir, tempRepo } from '../git/git-repo.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { Credentials, sha256 } from '../../src/server/credentials.js';
import type { ServerMessage } from '../../src/server/schemas.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { cleanEnv } from '../helpers/cli.js';

/** A server under test. */
export interface TestServer {
  server: RunningServer;
  store: Store;
  home: string;
  env: Record<string, string>;
  base: string;
  /** The token every request of `request` carries (as Authorization: Bearer). */
  token: string;
  /** The header that carries the token, for other clients (WebSocket, raw HTTP). */
  auth: { authorization: string };
  /** A request with the token, unless `anonymous` (or an Authorization header of its own). */
  request(path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string>; anonymous?: boolean }): Promise<{ status: number; body: unknown; text: string }>;
  stop(): Promise<void>;
}

/** The token of test servers unless told. */
export const TEST_TOKEN = 'test-token-0123456789';

/** Starts a server; `host` 0.0.0.0 makes it a non-loopback server reached through 127.0.0.1; `noAuth`: serve --no-auth. */
export async function startTestServer(
  options: { maxConcurrent?: number; host?: string; token?: string; noAuth?: boolean; maxBufferedBytes?: number; home?: string; env?: Record<string, string>; dashboardDir?: string } = {},
): Promise<TestServer> {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'ringmaster-server-'));
  const env = cleanEnv({ RINGMASTER_HOME: home, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ...options.env });
  const store = await openStore({ env });
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? TEST_TOKEN;
  const auth = { authorization: `Bearer ${token}` };
  const server = await startServer({
    store,
    env,
    host,
    port: 0,
    access: { credentials: new Credentials(home, options.noAuth === true ? null : sha256(token)), loopback: host === '127.0.0.1' },
    maxConcurrent: options.maxConcurrent ?? 5,
    resumeOnStart: true,
    version: 'test',
    dashboardDir: options.dashboardDir ?? null,
    ...(options.maxBufferedBytes !== undefined ? { maxBufferedBytes: options.maxBufferedBytes } : {}),
  });
  const base = `http://127.0.0.1:${server.port}`;
  return {
    server,
    store,
    home,
    env,
    base,
    token,
    auth,
    async request(path, init = {}) {
      const response = await fetch(`${base}${path}`, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: { ...(init.anonymous === true ? {} : auth), ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...(init.headers ?? {}) },
        ...(init.body === undefined ? {} : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
      });
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      return { status: response.status, body, text };
    },
    async stop() {
      await server.close();
      await store.close();
      if (options.home === undefined) rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A WebSocket client that records every message. */
export interface TestClient {
  ws: WebSocket;
  messages: ServerMessage[];
  send(message: unknown): void;
  /** Resolves with the first recorded message (from the start) that matches, waiting for it if needed. */
  waitFor<T extends ServerMessage>(match: (m: ServerMessage) => m is T, what: string): Promise<T>;
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

/** Connects to /api/ws (with headers, e.g. a token or an Origin). */
export async function connect(base: string, headers: Record<string, string> = {}): Promise<TestClient> {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/ws`, { headers });
  const messages: ServerMessage[] = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data) => {
    messages.push(JSON.parse((data as Buffer).toString('utf8')) as ServerMessage);
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    ws,
    messages,
    closed,
    send: (message) => ws.send(JSON.stringify(message)),
    async waitFor<T extends ServerMessage>(match: (m: ServerMessage) => m is T, what: string): Promise<T> {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const found = messages.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    async close() {
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close();
      await closed;
    },
  };
}

/** A factory of temporary git workspaces for the file's tests, all removed after them. */
export function useRepos(): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) removeDir(dir);
  });
  return () => {
    const dir = tempRepo({ 'README.md': 'hello\n' });
    dirs.push(dir);
    return dir;
  };
}

/** Polls `probe` until it returns a value other than null. */
export async function until<T>(what: string, probe: () => Promise<T | null> | T | null): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The pids the plan agent wrote (itself and its grandchild), once both are there. */
export function agentPids(dir: string): number[] | null {
  const file = join(dir, '.plan-agent-pids');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  return text.includes(' ') ? text.split(' ').map(Number) : null;
}
