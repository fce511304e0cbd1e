// Requests no client should send never stop the server: an upgrade whose target is not a path or whose cookie is
// malformed fails closed with a 4xx; a body over 1 MiB gets 413 before it is read (even one that never arrives); a
// body not declared JSON gets 415; `workflow` takes a workspace's workflow by name only, and says nothing of a file.
import { writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, useRepos, type TestServer } from './harness.js';

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});
const repo = useRepos();

/** Sends raw bytes and resolves with the status line and body of what comes back (the server closes or answers). */
export function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(port, '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.setEncoding('latin1').on('data', (c: string) => {
      out += c;
      // A complete response to a request whose body never comes: enough to answer.
      if (/\r\n\r\n/.test(out) && /content-length: (\d+)/i.test(out)) {
        const length = Number(/content-length: (\d+)/i.exec(out)?.[1]);
        if (out.length - out.indexOf('\r\n\r\n') - 4 >= length) socket.destroy();
      }
    });
    socket.on('end', () => socket.end());
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

const upgrade = (target: string, extra = ''): string =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`;

describe('malformed requests', () => {
  it('an upgrade whose target is not a path, or whose cookie is malformed, fails with a 4xx; the server keeps serving', async () => {
    t = await startTestServer();
    const auth = `Authorization: ${t.auth.authorization}\r\n`;
    for (const target of ['//', 'http://[', '*', '//evil.example/api/ws', '/%']) {
      const answer = await rawExchange(t.server.port, upgrade(target, auth));
      expect(answer, target).toMatch(/^HTTP\/1\.1 4\d\d /);
    }
    expect(await rawExchange(t.server.port, upgrade('/api/ws', `Cookie: ringmaster_session_1=%E0%A4%A; ==; %\r\n`))).toMatch(/^HTTP\/1\.1 401 Unauthorized/);
    expect((await t.request('/api/health')).status).toBe(200);
  });

  it('a request whose target is not a path (absolute-form, as to a proxy) gets a bare 400, credential or not', async () => {
    t = await startTestServer();
    for (const target of ['http://evil.example/api/health', `http://127.0.0.1:${t.server.port}/api/runs`]) {
      const answer = await rawExchange(t.server.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\nAuthorization: ${t.auth.authorization}\r\nConnection: close\r\n\r\n`);
      expect(answer, target).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(answer).not.toContain('{');
    }
    expect((await t.request('/api/health')).status).toBe(200);
  });

  it('a body over 1 MiB gets 413 before it is read; a chunked one as soon as it passes the limit', async () => {
    t = await startTestServer();
    const head = `POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\nAuthorization: ${t.auth.authorization}\r\nContent-Type: application/json\r\n`;
    // 100 MiB declared, none sent: the answer comes anyway.
    const declared = await rawExchange(t.server.port, `${head}Content-Length: ${100 * 1024 * 1024}\r\n\r\n`);
    expect(declared).toMatch(/^HTTP\/1\.1 413 /);
    expect(declared).toContain('{"error":{"code":"payload_too_large","message":"the request body is larger than 1048576 bytes"}}');
    const big = `{"workspace":"/tmp","prompt":"${'x'.repeat(2 * 1024 * 1024)}"}`;
    const chunked = await fetch(`${t.base}/api/runs`, {
      method: 'POST',
      headers: { ...t.auth, 'content-type': 'application/json' },
      body: new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(big)), c.close()) }),
      duplex: 'half',
    });
    expect(chunked.status).toBe(413);
    expect(await t.request('/api/runs', { body: { workspace: repo(), prompt: 'x'.repeat(900 * 1024), agent_command: ['true'], max_iterations: 1 } })).toMatchObject({ status: 201 });
  });

  it('a body not declared JSON gets 415 in the error shape, never 500', async () => {
    t = await startTestServer();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await t.request('/api/runs', { body: '{"workspace":"/tmp"}', headers: { 'content-type': type } });
      expect({ status: r.status, body: r.body }, type).toEqual({ status: 415, body: { error: { code: 'unsupported_media_type', message: `the body must be JSON (Content-Type: application/json), not '${type}'` } } });
    }
    const undeclared = await fetch(`${t.base}/api/runs/x/stop`, { method: 'POST', headers: t.auth, body: new Uint8Array([123, 125]) });
    expect(undeclared.status).toBe(415);
    expect(await undeclared.json()).toEqual({ error: { code: 'unsupported_media_type', message: 'the body must be JSON (Content-Type: application/json), not undeclared' } });
    // No body and no type on a route that needs one: the validator's 400.
    expect((await t.request('/api/runs', { method: 'POST' })).status).toBe(400);
  });

  it("`workflow` takes a workflow's name, never a path, and the error never shows a file", async () => {
    t = await startTestServer();
    const dir = repo();
    writeFileSync(join(dir, 'secret.yaml'), 'password: hunter2-do-not-show\n');
    for (const workflow of [join(dir, 'secret.yaml'), 'secret.yaml', '../secret', '/etc/passwd']) {
      const r = await t.request('/api/runs', { body: { workspace: dir, workflow, agent_command: ['true'] } });
      expect(r.status, workflow).toBe(400);
      expect(r.text).not.toContain('hunter2');
      expect((r.body as { error: { message: string } }).error.message).toMatch(/^workflow: give the (name of one of the workspace's workflows \('ringmaster workflow list'\), not a path|workflow's name, not its file's)$/);
    }
    const named = await t.request('/api/runs', { body: { workspace: dir, workflow: 'secret', agent_command: ['true'] } });
    expect(named).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    expect(named.text).not.toContain('hunter2');
    for (const file of ['/etc/passwd', '../outside.md', 'a/../../b.md']) {
      const r = await t.request('/api/runs', { body: { workspace: dir, prompt_file: file, agent_command: ['true'] } });
      expect(r.body, file).toEqual({ error: { code: 'invalid_request', message: 'prompt_file: a path inside the workspace, relative to it (no /..., no ..)' } });
    }
  });
});
