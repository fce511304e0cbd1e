// The host side of a sandbox's network: an HTTP proxy (CONNECT for TLS, absolute-URL requests for plain HTTP) on
// a unix socket bound into the sandbox. It lets through the hosts the policy allows and answers 403 at once for
// any other, recording the host and port it refused.
import { request as httpRequest, createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { hostAllowed, type Endpoint } from './policy.js';

/** The most refused connections one iteration records (the rest are counted, not listed). */
export const MAX_BLOCKED = 100;

/** A running proxy. */
export interface SandboxProxy {
  /** Connections refused so far, in order (at most MAX_BLOCKED). */
  blocked: Endpoint[];
  close(): Promise<void>;
}

/** Who may be reached: host patterns (ports 80 and 443), and exact endpoints (a local model server, `host:port` entries). */
export interface ProxyRules {
  hosts: readonly string[];
  endpoints: readonly Endpoint[];
}

function splitHostPort(text: string, defaultPort: number): Endpoint | null {
  const m = /^\[?([^\]]*?)\]?(?::(\d+))?$/.exec(text.trim());
  if (!m?.[1]) return null;
  return { host: m[1].toLowerCase(), port: m[2] !== undefined ? Number(m[2]) : defaultPort };
}

/** True when the rules let the agent reach the endpoint. */
export function endpointAllowed(rules: ProxyRules, to: Endpoint): boolean {
  if (rules.endpoints.some((e) => e.host === to.host && e.port === to.port)) return true;
  // Hosts by name only on the usual ports: a pattern never opens a host's every port.
  return (to.port === 443 || to.port === 80) && hostAllowed(to.host, rules.hosts);
}

/** Starts the proxy listening on `socketPath`. */
export async function startProxy(socketPath: string, rules: ProxyRules): Promise<SandboxProxy> {
  const blocked: Endpoint[] = [];
  const sockets = new Set<Duplex>();
  const refuse = (to: Endpoint): void => {
    if (blocked.length < MAX_BLOCKED) blocked.push(to);
  };
  const track = (s: Duplex): void => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server: Server = createServer((req, res) => {
    track(req.socket);
    const url = safeUrl(req.url ?? '');
    const to = url ? { host: url.hostname.replace(/^\[|\]$/g, '').toLowerCase(), port: url.port !== '' ? Number(url.port) : 80 } : null;
    if (!url || !to || url.protocol !== 'http:' || !endpointAllowed(rules, to)) {
      if (to) refuse(to);
      res.writeHead(403, { 'content-type': 'text/plain', connection: 'close' }).end(`ringmaster sandbox: ${to ? `${to.host}:${to.port}` : 'this request'} is not allowed\n`);
      return;
    }
    forward(req, url, to, (status, headers, body) => {
      res.writeHead(status, headers);
      body.pipe(res);
    }, () => res.writeHead(502, { connection: 'close' }).end());
  });
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const to = splitHostPort(req.url ?? '', 443);
    if (!to || !endpointAllowed(rules, to)) {
      if (to) refuse(to);
      client.end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const upstream: Socket = connect(to.port, to.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    track(upstream);
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n'));
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    blocked,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function safeUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

function forward(req: IncomingMessage, url: URL, to: Endpoint, reply: (status: number, headers: IncomingMessage['headers'], body: IncomingMessage) => void, fail: () => void): void {
  const out = httpRequest({ host: to.host, port: to.port, method: req.method, path: `${url.pathname}${url.search}`, headers: req.headers }, (res) => reply(res.statusCode ?? 502, res.headers, res));
  out.on('error', fail);
  req.pipe(out);
}
