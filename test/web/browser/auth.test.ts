// Signing in and out in real Chromium, and what a page of another origin can reach: nothing. A sandboxed frame
// (its requests carry Origin: null and no Sec-Fetch-Site) and a plain page on another port of 127.0.0.1, in a
// browser signed in to the server, get no answer from the API and no WebSocket.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { openPage, ServeProcess, until, useServeAndBrowser } from './harness.js';

const t = useServeAndBrowser();

/** What the attacking script reports: the API answer it could read, and whether a WebSocket opened. */
const PROBE = (server: string) => `
  const report = (r) => parent === window ? (window.__probe = r) : parent.postMessage(r, '*');
  (async () => {
    let api = 'refused';
    try { api = await (await fetch('${server}/api/runs', { credentials: 'include' })).text(); } catch (e) { api = 'refused'; }
    let post = 'refused';
    try { post = String((await fetch('${server}/api/runs/x/stop', { method: 'POST', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{}' })).status); } catch (e) { post = 'refused'; }
    const ws = await new Promise((resolve) => {
      const socket = new WebSocket('${server.replace('http', 'ws')}/api/ws');
      socket.onmessage = (m) => resolve('message: ' + m.data);
      socket.onerror = () => resolve('error');
      socket.onclose = () => resolve('closed');
    });
    report({ api, post, ws });
  })();`;

let attacker: Server;
let attackerUrl = '';
beforeAll(async () => {
  attacker = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const probe = PROBE(url.searchParams.get('server') ?? t.serve.url);
    res.setHeader('content-type', 'text/html');
    if (url.pathname === '/frame') {
      // The frame's document comes from srcdoc: an opaque origin (Origin: null).
      const frame = `<script>${probe}</script>`.replace(/"/g, '&quot;');
      res.end(`<!doctype html><script>window.addEventListener('message', (m) => (window.__probe = m.data));</script><iframe sandbox="allow-scripts" srcdoc="${frame}"></iframe>`);
    } else res.end(`<!doctype html><script>${probe}</script>`);
  });
  await new Promise<void>((done) => attacker.listen(0, '127.0.0.1', done));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((done) => attacker.close(() => done()));
});

describe('signing in', () => {
  it('a browser not signed in sees how to sign in; the one-time link signs it in; sign-out ends it', async () => {
    const page = await openPage(t.browser, t.serve.url, { signIn: false });
    await page.getByTestId('sign-in').waitFor();
    expect(await page.getByTestId('sign-in').locator('pre').textContent()).toBe('ringmaster serve --sign-in-link');
    const link = await runCli(['serve', '--sign-in-link'], { cwd: t.serve.home, env: t.serve.env });
    expect(link.code).toBe(0);
    await page.goto(link.stdout.trim());
    expect(page.url()).toBe(`${t.serve.url}/`);
    await page.getByTestId('capacity').waitFor();
    const cookies = await page.context().cookies();
    expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite }))).toEqual([{ name: `ringmaster_session_${t.serve.port}`, httpOnly: true, sameSite: 'Lax' }]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByTestId('sign-in').waitFor();
    await page.reload();
    await page.getByTestId('sign-in').waitFor();
    await page.context().close();
  });

  it('/?token= signs in and leaves the address bar', async () => {
    const page = await openPage(t.browser, `${t.serve.url}/new`);
    expect(page.url()).toBe(`${t.serve.url}/new`);
    await page.getByTestId('capacity').waitFor();
    await page.context().close();
  });
});

describe('a page of another origin, in a signed-in browser', () => {
  for (const [what, path] of [
    ['a sandboxed frame (Origin: null)', '/frame'],
    ['a page on another port', '/page'],
  ] as const) {
    it(`${what} reaches neither the API nor the WebSocket`, async () => {
      const page = await openPage(t.browser, `${t.serve.url}/`);
      await page.getByTestId('capacity').waitFor();
      await page.goto(`${attackerUrl}${path}`);
      const probe = await until('the probe', () => page.evaluate(() => (window as unknown as { __probe?: unknown }).__probe ?? null));
      expect(probe).toEqual({ api: 'refused', post: expect.stringMatching(/^(refused|403)$/) as unknown, ws: expect.stringMatching(/^(error|closed)$/) as unknown });
      await page.context().close();
    });
  }

  it('a sandboxed frame reaches no WebSocket of a --no-auth server either (the origin check alone), while the probe works from the server\'s own origin', async () => {
    const open = await ServeProcess.start({ args: ['--no-auth'] });
    try {
      const page = await openPage(t.browser, `${attackerUrl}/frame?server=${encodeURIComponent(open.url)}`);
      const probe = await until('the probe', () => page.evaluate(() => (window as unknown as { __probe?: unknown }).__probe ?? null));
      expect(probe).toMatchObject({ api: 'refused', ws: expect.stringMatching(/^(error|closed)$/) as unknown });
      // The same probe on the server's own page reads the API and gets the WebSocket's hello.
      await page.goto(`${open.url}/`);
      await page.evaluate(PROBE(open.url).replace(/report\(\{ api, post, ws \}\);/, 'window.__probe = { api, post, ws };'));
      const mine = (await until('the own probe', () => page.evaluate(() => (window as unknown as { __probe?: unknown }).__probe ?? null))) as { api: string; post: string; ws: string };
      expect(mine.api).toMatch(/^\{"runs":\[/);
      expect(mine.post).toBe('415');
      expect(mine.ws).toMatch(/^message: \{"type":"hello"/);
      await page.context().close();
    } finally {
      await open.stop();
    }
  });
});
