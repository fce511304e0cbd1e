// The dashboard's files as the server sends them: hashed assets cached for good, pages revalidated, both
// compressed for a browser that accepts it (above 1 KB: the page itself is smaller) (and the bytes unchanged once decompressed).
import { readFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders } from 'node:http';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

const WEB = resolve(import.meta.dirname, '..', '..', 'dist', 'web');
let t: TestServer;

function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((done, fail) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', fail);
    }).on('error', fail);
  });
}

beforeAll(async () => {
  t = await startTestServer({ dashboardDir: WEB });
});

afterAll(async () => {
  await t?.stop();
});

describe('dashboard assets', () => {
  it('sends a hashed asset gzipped and cached for good, and the page revalidated', async () => {
    const page = await fetch(`${t.base}/`, { headers: { 'accept-encoding': 'gzip' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    const asset = /src="(\/assets\/index-[\w-]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();

    // Raw bytes (fetch would decompress them): node's http client.
    const zipped = await rawGet(`${t.base}${asset}`, { 'accept-encoding': 'gzip' });
    expect(zipped.status).toBe(200);
    expect(zipped.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(zipped.headers['content-encoding']).toBe('gzip');
    const original = readFileSync(join(WEB, asset ?? ''));
    expect(zipped.body.length).toBeLessThan(original.length / 2);
    expect(gunzipSync(zipped.body).equals(original)).toBe(true);

    // A client that asks for no compression gets the file as it is.
    const plain = await fetch(`${t.base}${asset}`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(Buffer.from(await plain.arrayBuffer()).equals(original)).toBe(true);
  });

  it('says on every answer not to be framed nor sniffed; a missing asset is a 404, a client-side route the page', async () => {
    for (const path of ['/', '/runs/abc', '/api/health']) {
      const r = await fetch(`${t.base}${path}`, { headers: t.auth });
      expect(r.status, path).toBe(200);
      expect([r.headers.get('x-frame-options'), r.headers.get('content-security-policy'), r.headers.get('x-content-type-options'), r.headers.get('referrer-policy')], path).toEqual(['DENY', "frame-ancestors 'none'", 'nosniff', 'no-referrer']);
      expect(r.headers.get('strict-transport-security')).toBeNull();
    }
    const missing = await fetch(`${t.base}/assets/index-nope.js`);
    expect([missing.status, await missing.text()]).toEqual([404, 'not found\n']);
  });
});
