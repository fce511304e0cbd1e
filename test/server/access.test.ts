// Who may use the server: a non-loopback bind needs the token (401 without it, for REST and the WebSocket);
// loopback binds answer only to loopback host names; cross-origin state changes and upgrades are refused.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from './harness.js';

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

/** A GET with a chosen Host header (fetch does not let a caller set it). */
function rawGet(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
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

describe('a server bound to every address', () => {
  it('refuses requests without the token (401), accepts the bearer token, and keeps it for a browser in a cookie', async () => {
    t = await startTestServer({ host: '0.0.0.0', token: 'sekret-token' });
    expect(await t.request('/api/runs')).toMatchObject({ status: 401, body: { error: { code: 'unauthorized', message: 'a token is required (Authorization: Bearer <token>)' } } });
    expect(await t.request('/api/runs', { headers: { authorization: 'Bearer wrong' } })).toMatchObject({ status: 401, body: { error: { message: 'the token is not valid' } } });
    expect((await t.request('/api/health', { headers: { authorization: 'Bearer sekret-token' } })).status).toBe(200);
    const ws = `${t.base.replace('http', 'ws')}/api/ws`;
    expect(await upgradeStatus(ws, {})).toBe(401);
    expect(await upgradeStatus(`${ws}?token=sekret-token`, {})).toBe(101);
    const page = await fetch(`${t.base}/runs/abc?token=sekret-token`, { redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/runs/abc');
    expect(page.headers.get('set-cookie')).toBe('ringmaster_token=sekret-token; HttpOnly; SameSite=Strict; Path=/');
    expect((await t.request('/api/health', { headers: { cookie: 'ringmaster_token=sekret-token' } })).status).toBe(200);
  });
});

describe('a loopback server', () => {
  it('answers only to loopback names and refuses cross-origin changes', async () => {
    t = await startTestServer();
    expect((await t.request('/api/health')).status).toBe(200);
    // A page of another site that resolves its name to 127.0.0.1 (DNS rebinding) is refused by name.
    expect(await rawGet(t.server.port, '/api/health', 'evil.example:80')).toEqual({
      status: 403,
      body: `{"error":{"code":"forbidden","message":"host 'evil.example:80' is not this server's name (it answers to localhost and 127.0.0.1)"}}`,
    });
    expect((await rawGet(t.server.port, '/api/health', `localhost:${t.server.port}`)).status).toBe(200);
    const crossOrigin = await t.request('/api/runs', { body: { workspace: '/tmp' }, headers: { origin: 'https://evil.example' } });
    expect(crossOrigin).toMatchObject({ status: 403, body: { error: { code: 'forbidden', message: 'cross-origin request from https://evil.example refused' } } });
    expect((await t.request('/api/runs', { headers: { origin: 'https://evil.example' } })).status).toBe(200);
    const ws = `${t.base.replace('http', 'ws')}/api/ws`;
    expect(await upgradeStatus(ws, { origin: 'https://evil.example' })).toBe(403);
    expect(await upgradeStatus(ws, { origin: t.base })).toBe(101);
    expect(await upgradeStatus(`${t.base.replace('http', 'ws')}/elsewhere`, {})).toBe(404);
    expect((await fetch(`${t.base}/`)).status).toBe(200);
    expect(await t.request('/api/nothing')).toMatchObject({ status: 404, body: { error: { code: 'not_found', message: 'no route GET /api/nothing' } } });
  });
});
