// A fuzz suite over the routes and the WebSocket upgrade: random methods, request targets, headers (credentials,
// origins, cookies, content types, upgrades) and bodies, sent as raw bytes. Fixed seed and bounded count (a few
// seconds): no answer is a 5xx, and afterwards the server still answers /api/health.
import fc from 'fast-check';
import { connect as tcpConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.stop();
});

/** Sends one request and resolves with its status code (0: the server closed without one). */
function send(port: number, bytes: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1', () => socket.end(bytes, 'latin1'));
    let head = '';
    const done = (status: number) => {
      socket.destroy();
      resolve(status);
    };
    socket.setEncoding('latin1').on('data', (c: string) => {
      head += c;
      const line = /^HTTP\/1\.1 (\d{3}) /.exec(head);
      if (line) done(Number(line[1]));
    });
    socket.on('error', () => done(0));
    socket.on('close', () => done(0));
  });
}

const printable = (max: number) => fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: max });
const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 80 });
const segment = fc.oneof(fc.constantFrom('api', 'runs', 'ws', 'events', 'logs', 'activity', 'extend', 'rollback', 'stop', 'pause', 'sign-in', 'sign-out', 'health', 'stats', 'checkpoints', 'diff', '..', '.', '', '%', '%zz', '%00', '%2F'), printable(12));
const target = fc.oneof(
  fc.array(segment, { maxLength: 6 }).chain((parts) => fc.tuple(fc.constant(`/${parts.join('/')}`), fc.option(printable(30)))).map(([path, query]) => (query === null ? path : `${path}?${query}`)),
  fc.constantFrom('//', '*', 'http://[', '//evil.example/api/ws', '/api/ws', '/api/ws?token=x', '/sign-in?code=', '/?token=', 'http://127.0.0.1/api/runs', '/api/runs?limit=-1&offset=x'),
  printable(40),
);
const method = fc.oneof({ arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'), weight: 9 }, printable(8).filter((m) => /^[A-Z]+$/.test(m)));
/** Mostly absent: a header that is there in about one request of `1 + n`. */
const rare = <T>(arb: fc.Arbitrary<T>, n = 4) => fc.oneof({ arbitrary: fc.constant(undefined), weight: n }, arb);
const headers = fc.record(
  {
    authorization: fc.oneof({ arbitrary: fc.constant('TOKEN'), weight: 4 }, fc.constant('Bearer wrong'), headerValue),
    origin: fc.oneof({ arbitrary: fc.constant('SELF'), weight: 4 }, fc.constantFrom('null', 'https://evil.example', 'http://localhost:1'), headerValue),
    cookie: fc.oneof(fc.constantFrom('ringmaster_session_1=%E0%A4%A', '=', ';;;', 'a=b; =c; %'), headerValue),
    'content-type': fc.oneof(fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8', 'application/vnd.x+json'), headerValue),
    'sec-fetch-site': rare(fc.constantFrom('cross-site', 'same-site', 'same-origin', 'none')),
    upgrade: rare(fc.constantFrom('websocket', 'h2c', 'x')),
    'sec-websocket-version': rare(fc.constantFrom('13', '8', 'x')),
    'sec-websocket-key': rare(fc.constantFrom('dGhlIHNhbXBsZSBub25jZQ==', 'x', '')),
    'transfer-encoding': rare(fc.constantFrom('chunked', 'gzip')),
    host: fc.oneof({ arbitrary: fc.constant('SELF'), weight: 4 }, fc.constantFrom('localhost', 'evil.example', ''), headerValue),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(fc.constant(''), fc.json(), headerValue, fc.constant('{"workspace":"/tmp","prompt":"x","agent_command":["true"]}'));

describe('the server under random requests', () => {
  it('never answers 5xx nor stops; it still answers /api/health', async () => {
    const self = `127.0.0.1:${t.server.port}`;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(method, target, headers, body, async (m, path, h, b) => {
        const lines = [`${m} ${path} HTTP/1.1`];
        if (h.host === undefined) lines.push(`Host: ${self}`);
        for (const [name, value] of Object.entries(h)) {
          if (value === undefined) continue;
          const v = value === 'TOKEN' ? t.auth.authorization : value === 'SELF' ? (name === 'origin' ? `http://${self}` : self) : value;
          lines.push(`${name}: ${v}`);
        }
        if (h.upgrade !== undefined) lines.push('Connection: Upgrade');
        else lines.push('Connection: close');
        if (h['transfer-encoding'] === undefined && b !== '') lines.push(`Content-Length: ${Buffer.byteLength(b, 'latin1')}`);
        const status = await send(t.server.port, `${lines.join('\r\n')}\r\n\r\n${b}`);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        expect(status, `${m} ${path} ${JSON.stringify(h)} ${b.slice(0, 80)}`).toBeLessThan(500);
      }),
      { seed: 18, numRuns: 500 },
    );
    // The requests reached past the parser and the gate: some were answered by the routes.
    for (const status of [200, 401, 403, 404, 415]) expect(statuses.get(status), `answers ${status}`).toBeGreaterThan(0);
    expect((await t.request('/api/health')).status).toBe(200);
  }, 60_000);
});
