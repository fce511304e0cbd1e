// Who may use the server: every bind asks a credential (the bearer token, or a browser session from a one-time
// sign-in link or /?token=); loopback binds answer only to loopback host names; a request from any origin but the
// server's own (Origin: null included) is refused on the API and the WebSocket.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { mintSignInCode, SIGN_IN_CODE_TTL_MS } from '../../src/server/credentials.js';
import type { ServerMessage } from '../../src/server/schemas.js';
import { connect, startTestServer, type TestServer } from './harness.js';

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

/** A GET with a chosen Host header (fetch does not let a caller set it). */
function rawGet(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The HTTP status a WebSocket handshake gets (101 when it opens). */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => undefined);
  });
}

/** The session cookie a sign-in response sets, as a Cookie header value. */
function cookieOf(response: Response): string {
  const set = response.headers.get('set-cookie') ?? '';
  return set.split(';')[0] ?? '';
}

describe('a loopback server', () => {
  it('asks a credential of every request and upgrade: the bearer token works, nothing else does', async () => {
    t = await startTestServer();
    const ws = `${t.base.replace('http', 'ws')}/api/ws`;
    expect(await t.request('/api/runs', { anonymous: true })).toMatchObject({ status: 401, body: { error: { code: 'unauthorized', message: 'sign in first: a token (Authorization: Bearer <token>) or a session is required' } } });
    expect(await t.request('/api/health', { headers: { authorization: 'Bearer wrong' } })).toMatchObject({ status: 401, body: { error: { message: 'the token is not valid' } } });
    expect((await t.request('/api/health')).status).toBe(200);
    // A token in the address of an API call or upgrade is not a credential (addresses get logged).
    expect((await t.request(`/api/runs?token=${t.token}`, { anonymous: true })).status).toBe(401);
    expect(await upgradeStatus(ws, {})).toBe(401);
    expect(await upgradeStatus(`${ws}?token=${t.token}`, {})).toBe(401);
    expect(await upgradeStatus(ws, t.auth)).toBe(101);
    // A cookie that is not a session, malformed ones included, is refused without harm.
    expect(await upgradeStatus(ws, { cookie: `ringmaster_session_${t.server.port}=%E0%A4%A; =; ;;` })).toBe(401);
    expect((await t.request('/api/runs', { anonymous: true, headers: { cookie: `ringmaster_session_${t.server.port}=nope` } })).body).toMatchObject({ error: { message: 'the session has ended: sign in again' } });
  });

  it('a one-time sign-in link starts a session (HttpOnly, SameSite=Lax) once, for 5 minutes; sign-out ends it', async () => {
    t = await startTestServer();
    const code = mintSignInCode(t.home);
    // A link preview's HEAD does not use the code up.
    expect((await fetch(`${t.base}/sign-in?code=${code}`, { method: 'HEAD', redirect: 'manual' })).status).toBe(200);
    const signIn = await fetch(`${t.base}/sign-in?code=${code}`, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/');
    expect(signIn.headers.get('set-cookie')).toMatch(new RegExp(`^ringmaster_session_${t.server.port}=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=/; Max-Age=2592000$`));
    const cookie = cookieOf(signIn);
    expect((await t.request('/api/runs', { anonymous: true, headers: { cookie } })).status).toBe(200);
    expect(await upgradeStatus(`${t.base.replace('http', 'ws')}/api/ws`, { cookie })).toBe(101);
    // Used once.
    const again = await fetch(`${t.base}/sign-in?code=${code}`, { redirect: 'manual' });
    expect(again.status).toBe(401);
    expect(await again.text()).toContain('It was used already, or it is older than 5 minutes.');
    // Older than 5 minutes.
    const old = mintSignInCode(t.home, Date.now() - SIGN_IN_CODE_TTL_MS - 1000);
    expect((await fetch(`${t.base}/sign-in?code=${old}`, { redirect: 'manual' })).status).toBe(401);
    // Sign-out (from the server's own page) ends the session and clears the cookie, and lets go of the WebSockets
    // it opened; one opened with the token stays.
    const bySession = await connect(t.base, { cookie });
    const byToken = await connect(t.base, t.auth);
    const out = await t.request('/api/sign-out', { anonymous: true, method: 'POST', headers: { cookie, origin: t.base } });
    expect(out).toMatchObject({ status: 200, body: { signed_out: true } });
    expect((await t.request('/api/runs', { anonymous: true, headers: { cookie } })).status).toBe(401);
    expect(await bySession.closed).toEqual({ code: 4001, reason: 'the session has ended: sign in again' });
    byToken.send({ type: 'ping' });
    await byToken.waitFor((m): m is Extract<ServerMessage, { type: 'pong' }> => m.type === 'pong', 'the pong');
    await byToken.close();
  });

  it('/?token= signs a browser in and redirects the token out of the address bar', async () => {
    t = await startTestServer();
    const page = await fetch(`${t.base}/runs/abc?tab=cost&token=${t.token}`, { redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/runs/abc?tab=cost');
    const cookie = cookieOf(page);
    expect(cookie).not.toContain(t.token);
    expect((await t.request('/api/runs', { anonymous: true, headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${t.base}/?token=wrong`, { redirect: 'manual' })).status).toBe(401);
  });

  it('answers only to loopback names, and only to its own pages: another origin, Origin: null and cross-site are refused', async () => {
    t = await startTestServer();
    // A page of another site that resolves its name to 127.0.0.1 (DNS rebinding) is refused by name.
    expect(await rawGet(t.server.port, '/api/health', { host: 'evil.example:80', ...t.auth })).toEqual({
      status: 403,
      body: `{"error":{"code":"forbidden","message":"host 'evil.example:80' is not this server's name (it answers to localhost and 127.0.0.1)"}}`,
    });
    expect((await rawGet(t.server.port, '/api/health', { host: `localhost:${t.server.port}`, ...t.auth })).status).toBe(200);
    const crossOrigin = await t.request('/api/runs', { body: { workspace: '/tmp' }, headers: { origin: 'https://evil.example' } });
    expect(crossOrigin).toMatchObject({ status: 403, body: { error: { code: 'forbidden', message: "request from origin https://evil.example refused: only the server's own pages may call it" } } });
    expect((await t.request('/api/runs', { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    // A sandboxed frame: Origin null, no Sec-Fetch-Site.
    expect((await t.request('/api/runs', { headers: { origin: 'null' } })).status).toBe(403);
    expect((await t.request('/api/runs', { body: {}, headers: { origin: 'null' } })).status).toBe(403);
    expect((await t.request('/api/runs', { headers: { 'sec-fetch-site': 'same-site' } })).status).toBe(403);
    expect((await t.request('/api/runs', { headers: { origin: t.base, 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
    const ws = `${t.base.replace('http', 'ws')}/api/ws`;
    expect(await upgradeStatus(ws, { ...t.auth, origin: 'https://evil.example' })).toBe(403);
    expect(await upgradeStatus(ws, { ...t.auth, origin: 'null' })).toBe(403);
    expect(await upgradeStatus(ws, { ...t.auth, origin: t.base })).toBe(101);
    expect(await upgradeStatus(`${t.base.replace('http', 'ws')}/elsewhere`, t.auth)).toBe(404);
    expect((await fetch(`${t.base}/`)).status).toBe(200);
    expect(await t.request('/api/nothing')).toMatchObject({ status: 404, body: { error: { code: 'not_found', message: 'no route GET /api/nothing' } } });
  });

  it('with --no-auth asks nothing, and still refuses other origins', async () => {
    t = await startTestServer({ noAuth: true });
    expect((await t.request('/api/runs', { anonymous: true })).status).toBe(200);
    expect((await t.request('/api/runs', { anonymous: true, headers: { origin: 'null' } })).status).toBe(403);
  });
});

describe('a server bound to every address', () => {
  it('asks the token too, and answers to any host name', async () => {
    t = await startTestServer({ host: '0.0.0.0', token: 'sekret-token' });
    expect((await t.request('/api/runs', { anonymous: true })).status).toBe(401);
    expect((await rawGet(t.server.port, '/api/health', { host: 'build-box:7420', authorization: 'Bearer sekret-token' })).status).toBe(200);
  });
});
